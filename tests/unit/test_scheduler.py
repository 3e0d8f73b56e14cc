"""Continuous batching (`studio.scheduler`) on a fake runtime whose next token depends on the row's source, its
position and the previous token, and which checks that each row is fed its own position: rows that join and
leave at different positions give exactly what each gives decoded alone; a cancelled request frees its slot; a
request that breaks the model fails alone."""

import threading
import time
from concurrent.futures import CancelledError
from types import SimpleNamespace

import numpy as np
import pytest

from studio.generate import DecodeSpec, TokenByToken, decode, sampler
from studio.inference import TextGenerator
from studio.scheduler import Scheduler

PAD, BOS, EOS, BOOM = 0, 1, 2, 99
V = 12
SPEC = DecodeSpec(BOS, EOS, max_new_tokens=30, pad=PAD)


class FakeRowsRuntime:
    has_rows = True
    """source ids = [kind, length, ...]: `length` tokens then </s>, each token a function of (kind, position,
    previous token). A source of kind BOOM breaks every step it takes part in."""

    name = "fake"

    def __init__(self, step_s: float = 0.0):
        self.step_s = step_s
        self.batches: list[list[int]] = []  # the positions of each step's rows
        self.lock = threading.Lock()

    def encode(self, source_ids):
        source_ids = np.asarray(source_ids)
        if (source_ids[:, 0] == -1).any():
            raise ValueError("this source cannot be encoded")
        return {"kind": source_ids[:, 0].copy(), "length": source_ids[:, 1].copy(),
                "steps": np.zeros(len(source_ids), dtype=int)}

    def step_rows(self, state, tokens, positions):
        positions = np.asarray(positions)
        assert (positions == state["steps"]).all(), (positions, state["steps"])  # each row at its own position
        with self.lock:
            self.batches.append(positions.tolist())
        if (state["kind"] == BOOM).any():
            raise RuntimeError("this input breaks the model")
        time.sleep(self.step_s)
        nxt = np.where(positions + 1 > state["length"], EOS, 3 + (state["kind"] * 7 + positions * 3 + tokens) % 8)
        logits = np.full((len(tokens), V), -5.0, dtype=np.float32)
        rows = np.arange(len(tokens))
        logits[rows, (np.asarray(tokens) + 1) % V] = 4.0  # a close second: sampling rows draw differently
        logits[rows, nxt] = 5.0
        return logits, dict(state, steps=state["steps"] + 1)

    def step(self, state, tokens, position):
        return self.step_rows(state, tokens, np.full(len(tokens), position))

    def select(self, state, rows):
        return {name: a[np.asarray(rows)] for name, a in state.items()}

    def join(self, state, other):
        return {name: np.concatenate([a, other[name]]) for name, a in state.items()}


def alone(runtime, source, new_strategy=TokenByToken):
    return decode(runtime, [source], SPEC, new_strategy())[0]


def test_rows_joining_and_leaving_at_their_own_positions_give_the_outputs_of_decoding_alone():
    runtime = FakeRowsRuntime(step_s=0.002)
    scheduler = Scheduler(runtime, max_batch=4)
    sources = [[kind, length] for kind, length in [(3, 12), (4, 2), (5, 7), (6, 20), (7, 1), (8, 9), (9, 15),
                                                   (10, 4), (11, 11), (12, 3)]]
    jobs = []
    for source in sources:  # arrivals spread over the decoding: rows join mid-batch
        jobs.append(scheduler.submit(source, SPEC, TokenByToken))
        time.sleep(0.005)
    outputs = [job.future.result(timeout=10) for job in jobs]
    expected = [alone(FakeRowsRuntime(), source) for source in sources]
    assert outputs == expected
    assert [len(ids) for ids in outputs] == [length for _, length in sources]
    assert max(len(rows) for rows in runtime.batches) == 4  # never more rows than max_batch
    assert any(len(set(rows)) > 1 for rows in runtime.batches)  # rows at different positions shared a step
    assert scheduler.jobs == len(sources) and scheduler.rows > scheduler.steps


def test_seeded_sampling_rows_draw_what_they_draw_alone_beside_greedy_rows():
    runtime = FakeRowsRuntime(step_s=0.002)
    scheduler = Scheduler(runtime, max_batch=8)
    sampling = [lambda seed=seed: TokenByToken(sampler(temperature=2.0, seed=seed)) for seed in range(4)]
    jobs = [scheduler.submit([kind, 10], SPEC, new) for kind, new in zip(range(3, 7), sampling)]
    jobs += [scheduler.submit([kind, 10], SPEC, TokenByToken) for kind in range(3, 7)]
    outputs = [job.future.result(timeout=10) for job in jobs]
    assert outputs[:4] == [alone(FakeRowsRuntime(), [kind, 10], new) for kind, new in zip(range(3, 7), sampling)]
    assert outputs[4:] == [alone(FakeRowsRuntime(), [kind, 10]) for kind in range(3, 7)]
    assert outputs[:4] != outputs[4:]  # the samplers did draw


def test_a_cancelled_request_frees_its_slot():
    runtime = FakeRowsRuntime(step_s=0.01)
    scheduler = Scheduler(runtime, max_batch=1)
    long = scheduler.submit([3, 25], SPEC, TokenByToken)
    waiting = scheduler.submit([4, 3], SPEC, TokenByToken)
    time.sleep(0.05)
    assert not waiting.future.done()  # the only slot is taken
    long.cancel()
    assert waiting.future.result(timeout=10) == alone(FakeRowsRuntime(), [4, 3])
    with pytest.raises(CancelledError):
        long.future.result(timeout=1)
    assert sum(1 for rows in runtime.batches if rows and rows[0] > 3) < 20  # it left long before its end
    queued = scheduler.submit([5, 3], SPEC, TokenByToken)
    queued.cancel()  # cancelled before it joined: never decoded
    with pytest.raises(CancelledError):
        queued.future.result(timeout=10)


def test_a_request_that_breaks_the_model_fails_alone():
    runtime = FakeRowsRuntime(step_s=0.002)
    scheduler = Scheduler(runtime, max_batch=4)
    jobs = [scheduler.submit(source, SPEC, TokenByToken) for source in ([3, 6], [BOOM, 4], [5, 8], [-1, 2], [6, 3])]
    assert jobs[0].future.result(timeout=10) == alone(FakeRowsRuntime(), [3, 6])
    assert jobs[2].future.result(timeout=10) == alone(FakeRowsRuntime(), [5, 8])
    assert jobs[4].future.result(timeout=10) == alone(FakeRowsRuntime(), [6, 3])
    with pytest.raises(RuntimeError, match="breaks the model"):
        jobs[1].future.result(timeout=10)
    with pytest.raises(ValueError, match="cannot be encoded"):
        jobs[3].future.result(timeout=10)
    assert scheduler.submit([7, 2], SPEC, TokenByToken).future.result(timeout=10) == alone(FakeRowsRuntime(), [7, 2])


def test_a_batch_that_cannot_be_rearranged_fails_its_rows_and_the_scheduler_goes_on():
    class BrokenSelect(FakeRowsRuntime):
        def select(self, state, rows):
            raise RuntimeError("cannot drop rows")

    scheduler = Scheduler(BrokenSelect(), max_batch=4)
    jobs = [scheduler.submit(source, SPEC, TokenByToken) for source in ([3, 2], [4, 9])]
    assert jobs[0].future.result(timeout=10) == alone(FakeRowsRuntime(), [3, 2])  # it ended: its row must go
    with pytest.raises(RuntimeError, match="cannot drop rows"):
        jobs[1].future.result(timeout=10)
    assert scheduler.submit([7, 2], SPEC, TokenByToken).future.result(timeout=10) == alone(FakeRowsRuntime(), [7, 2])


def test_streaming_listeners_see_each_rows_own_prefixes():
    scheduler = Scheduler(FakeRowsRuntime(step_s=0.001), max_batch=4)
    seen: dict[int, list] = {0: [], 1: []}
    jobs = [scheduler.submit([3 + i, 5 + i], SPEC, TokenByToken, on_token=seen[i].append) for i in range(2)]
    for i, job in enumerate(jobs):
        ids = job.future.result(timeout=10)
        assert seen[i] == [ids[:n] for n in range(1, len(ids) + 1)]  # each token once, the last step ends it


class FakePreprocessor:
    """Text "kind length" <-> source ids; output ids <-> their numbers as text."""
    config = SimpleNamespace(model=SimpleNamespace(max_target_len=30, bos_id=BOS, eos_id=EOS, pad_id=PAD),
                             task=SimpleNamespace(task="translator"))
    # pieces that write no digits: the translator's figure guard (tests/unit/test_figures.py) has nothing to ban
    tokenizers = SimpleNamespace(source=SimpleNamespace(decode=lambda ids: ""),
                                 target=SimpleNamespace(vocab_size=V, id_to_piece=lambda i: f"<w{chr(97 + i)}>"))

    def encode(self, text):
        return [int(word) for word in text.split()] + [PAD] * 20, []  # long enough that no length cap applies

    def decode(self, ids):
        return " ".join(map(str, ids))


def test_a_generators_stream_decodes_in_the_batch_and_leaves_it_when_closed():
    runtime = FakeRowsRuntime(step_s=0.01)
    generator = TextGenerator(FakePreprocessor(), runtime)
    generator.scheduler = Scheduler(runtime, max_batch=1)
    texts = [text for text, _, _ in generator.stream("3 6")]
    assert texts[-1] == " ".join(map(str, alone(FakeRowsRuntime(), [3, 6])))
    assert texts[:-1] == [" ".join(texts[-1].split()[:n]) for n in range(1, 7)]  # each token, then the end
    stream = generator.stream("4 25")
    next(stream)
    stream.close()  # the user closed the tab after the first token: its row leaves, the slot is free
    waiting = generator.scheduler.submit([5, 3], SPEC, TokenByToken)
    assert waiting.future.result(timeout=5) == alone(FakeRowsRuntime(), [5, 3])
    assert max(rows[0] for rows in runtime.batches) < 10  # the closed one never got far into its 25 tokens


def test_closing_finishes_the_submitted_jobs_then_ends_the_thread_and_refuses_new_ones():
    scheduler = Scheduler(FakeRowsRuntime(step_s=0.002), max_batch=2)
    jobs = [scheduler.submit([kind, 6], SPEC, TokenByToken) for kind in (3, 4, 5)]
    scheduler.close(timeout=10)
    assert not scheduler._thread.is_alive()
    assert [job.future.result(timeout=0) for job in jobs] == [alone(FakeRowsRuntime(), [k, 6]) for k in (3, 4, 5)]
    with pytest.raises(RuntimeError, match="closed"):
        scheduler.submit([3, 2], SPEC, TokenByToken)


class FakeBeamRuntime(FakeRowsRuntime):
    def reorder(self, state, rows):  # the decode loop's name for a beam's row choice
        return self.select(state, rows)


def test_beam_search_requests_share_the_batch_and_find_what_they_find_alone():
    from studio.generate import Beam

    runtime = FakeBeamRuntime(step_s=0.002)
    scheduler = Scheduler(runtime, max_batch=8)
    beams = [lambda: Beam(size=3, length_penalty=1.0), lambda: Beam(size=2, length_penalty=0.6)]
    requests = [([3, 9], beams[0]), ([4, 5], TokenByToken), ([5, 12], beams[1]), ([6, 7], beams[0]),
                ([7, 3], TokenByToken), ([8, 11], beams[1])]
    jobs = []
    for source, new in requests:
        jobs.append(scheduler.submit(source, SPEC, new))
        time.sleep(0.004)
    outputs = [job.future.result(timeout=10) for job in jobs]
    assert outputs == [alone(FakeBeamRuntime(), source, new) for source, new in requests]
    assert max(len(rows) for rows in runtime.batches) <= 8  # a beam counts its width from the start
    assert any(len(rows) > 3 for rows in runtime.batches)  # a beam's rows shared steps with other requests
