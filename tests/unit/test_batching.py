"""The request batcher on a fake generator: concurrent requests decode together, each gets exactly its own
output, settings never mix in a batch, a failing request does not fail its batch-mates, a cancelled one
leaves before decoding."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from studio.batching import Batcher
from studio.generate import DecodeOptions
from studio.inference import Generation


class FakeGenerator:
    backend = "fake"

    def __init__(self, step_s: float = 0.02):
        self.step_s, self.calls, self.lock = step_s, [], threading.Lock()

    def generate(self, texts, options=None, scores=False, on_first_step=None):
        with self.lock:
            self.calls.append((list(texts), options))
        if any("boom" in t for t in texts):
            raise RuntimeError("this input breaks the model")
        time.sleep(self.step_s)
        if on_first_step:
            on_first_step()
        suffix = "!" if options and options.strategy == "beam" else ""
        return [Generation(text[::-1] + suffix, list(range(len(text)))) for text in texts]


def test_concurrent_requests_decode_together_and_each_gets_its_own_output():
    generator = FakeGenerator()
    batcher = Batcher(generator, max_batch=4, window_s=0.05)
    texts = [f"문장 {i}" for i in range(12)]
    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(batcher.generate, texts))
    assert [result.text for result, _ in results] == [t[::-1] for t in texts]
    assert all(len(batch) <= 4 for batch, _ in generator.calls) and len(generator.calls) < 12
    assert batcher.rows == 12 and batcher.batches == len(generator.calls)
    _, latency = results[0]
    assert latency.backend == "fake" and 0 < latency.first_token_ms <= latency.total_ms


def test_requests_with_other_settings_wait_for_a_batch_of_their_own():
    generator = FakeGenerator()
    batcher = Batcher(generator, max_batch=8, window_s=0.05)
    beam = DecodeOptions("beam", beam_size=2)
    futures = [batcher.submit(f"a{i}", beam if i % 2 else None) for i in range(6)]
    outputs = [f.result(timeout=10)[0].text for f in futures]
    assert outputs == [f"{i}a" + ("!" if i % 2 else "") for i in range(6)]
    for texts, options in generator.calls:
        assert len({int(t[1:]) % 2 for t in texts}) == 1  # one kind of settings per batch


def test_a_failing_request_fails_alone():
    batcher = Batcher(FakeGenerator(), max_batch=4, window_s=0.05)
    futures = [batcher.submit(text) for text in ("하나", "boom", "셋")]
    assert futures[0].result(timeout=10)[0].text == "나하"
    assert futures[2].result(timeout=10)[0].text == "셋"
    with pytest.raises(RuntimeError, match="breaks the model"):
        futures[1].result(timeout=10)


def test_a_cancelled_request_leaves_before_decoding():
    generator = FakeGenerator(step_s=0.2)
    batcher = Batcher(generator, max_batch=1, window_s=0.0)
    first = batcher.submit("먼저")
    time.sleep(0.05)  # the first is decoding; the second waits in the queue
    second = batcher.submit("나중")
    assert second.cancel()
    third = batcher.submit("셋째")
    assert third.result(timeout=10)[0].text == "째셋" and first.result(timeout=10)[0].text == "저먼"
    assert ["나중"] not in [texts for texts, _ in generator.calls]
