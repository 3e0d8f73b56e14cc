"""The decode loop and its strategies on a fake runtime: a NumPy table says the log-probabilities of the next
token given the source's first token and the previous token, so every expected output is known exactly."""

import numpy as np
import pytest

from studio.generate import (Beam, DecodeOptions, DecodeSpec, Forced, TokenByToken, decode, decode_steps, sampler,
                             strategy_for)

PAD, BOS, EOS, A, B, C, D = 0, 1, 2, 3, 4, 5, 6
V = 7


class FakeRuntime:
    """`table[source][previous]` = next-token probabilities. The state is each row's source and previous
    token (the "cache"); `reorder` checks the protocol's promise that rows stay within their source's group."""

    name = "fake"

    def __init__(self, table: dict, rows_per_source: int = 1):
        self.table = table
        self.group = rows_per_source
        self.steps = 0
        self.batch_sizes = []  # rows of each step
        self.selected = []  # batch sizes after each `select`

    def encode(self, source_ids):
        source_ids = np.asarray(source_ids)
        return {"source": source_ids[:, 0].copy(), "previous": np.full(len(source_ids), -1)}

    def step(self, state, tokens, position):
        self.steps += 1
        self.batch_sizes.append(len(tokens))
        previous = np.asarray(tokens)
        probs = np.array([self.table[int(s)].get(int(p), {EOS: 1.0}) for s, p in zip(state["source"], previous)],
                         dtype=object)
        logits = np.full((len(previous), V), -1e9, dtype=np.float32)
        for row, dist in enumerate(probs):
            for token, p in dist.items():
                logits[row, token] = np.log(p)
        return logits, {"source": state["source"], "previous": previous}

    def reorder(self, state, indices):
        indices = np.asarray(indices)
        assert all(i // self.group == row // self.group for row, i in enumerate(indices)), indices
        return {"source": state["source"], "previous": state["previous"][indices]}

    def select(self, state, rows):
        rows = np.asarray(rows)
        assert all(len({r // self.group for r in rows[i:i + self.group]}) == 1 for i in range(0, len(rows), self.group))
        self.selected.append(len(rows))
        return {"source": state["source"][rows], "previous": state["previous"][rows]}


# source A: greedy takes B (0.5) and then has only weak choices; beam finds C (0.4) then D (0.9)
TABLE = {
    A: {BOS: {B: 0.5, C: 0.4, EOS: 0.1}, B: {A: 0.4, D: 0.25, EOS: 0.35}, C: {D: 0.9, EOS: 0.1}, D: {EOS: 1.0},
        A: {EOS: 1.0}},
    B: {BOS: {A: 0.6, B: 0.4}, A: {B: 0.9, EOS: 0.1}, B: {A: 0.9, EOS: 0.1}},  # loops a b a b …
}
SPEC = DecodeSpec(BOS, EOS, max_new_tokens=8)


def test_greedy_takes_the_most_likely_token_until_the_end_token():
    assert decode(FakeRuntime(TABLE), [[A, EOS]], SPEC, TokenByToken()) == [[B, A]]


def test_rows_end_independently_and_a_batch_equals_one_at_a_time():
    runtime = FakeRuntime(TABLE)
    together = decode(runtime, [[A, EOS], [B, EOS]], SPEC, TokenByToken())
    assert together == [decode(runtime, [[A, EOS]], SPEC, TokenByToken())[0],
                        decode(runtime, [[B, EOS]], SPEC, TokenByToken())[0]]
    assert together[1] == [A, B, A, B, A, B, A, B]  # never ends: stopped by max_new_tokens


def test_max_and_min_new_tokens():
    assert decode(FakeRuntime(TABLE), [[B, EOS]], DecodeSpec(BOS, EOS, 3), TokenByToken()) == [[A, B, A]]
    # </s> is impossible for the first 3 tokens: after A only </s> is likely, so the third is another token
    # (the benchmark uses this to time exactly N steps); at the fourth step </s> is allowed again
    assert decode(FakeRuntime(TABLE), [[A, EOS]], DecodeSpec(BOS, EOS, 8, min_new_tokens=3), TokenByToken()) == \
        [[B, A, PAD]]


def test_beam_search_finds_the_more_likely_sequence_greedy_misses():
    log_p = {(B, A): np.log(0.5 * 0.4 * 1.0), (C, D): np.log(0.4 * 0.9 * 1.0)}
    assert log_p[(C, D)] > log_p[(B, A)]
    runtime = FakeRuntime(TABLE, rows_per_source=3)
    assert decode(runtime, [[A, EOS]], SPEC, Beam(3, length_penalty=0.0)) == [[C, D]]
    assert decode(FakeRuntime(TABLE), [[A, EOS]], SPEC, Beam(1)) == decode(FakeRuntime(TABLE), [[A, EOS]], SPEC,
                                                                          TokenByToken())


def test_beam_search_over_a_batch_keeps_each_source_in_its_own_rows():
    runtime = FakeRuntime(TABLE, rows_per_source=4)  # reorder asserts rows stay within their group
    # for source B greedy loops without end; the most likely *finished* output is A </s> (0.6 * 0.1)
    assert decode(runtime, [[A, EOS], [B, EOS], [A, EOS]], SPEC, Beam(4, length_penalty=0.0)) == [[C, D], [A], [C, D]]


def test_beam_search_runs_its_first_step_on_one_row_per_source():
    runtime = FakeRuntime(TABLE, rows_per_source=4)
    decode(runtime, [[A, EOS], [B, EOS]], SPEC, Beam(4, length_penalty=0.0))
    assert runtime.batch_sizes[:2] == [2, 8]  # then every source's row is copied to its 4 beams
    assert runtime.selected[0] == 8


def test_no_repeat_ngram_breaks_a_loop():
    out = decode(FakeRuntime(TABLE), [[B, EOS]], SPEC, TokenByToken(no_repeat_ngram_size=2))[0]
    pairs = list(zip(out, out[1:]))
    assert len(pairs) == len(set(pairs)) and out[:2] == [A, B]


def test_sampling_is_reproducible_with_a_seed_and_top_k_1_is_greedy():
    sources = [[A, EOS]] * 20
    first = decode(FakeRuntime(TABLE), sources, SPEC, TokenByToken(sampler(seed=3)))
    assert first == decode(FakeRuntime(TABLE), sources, SPEC, TokenByToken(sampler(seed=3)))
    assert len({tuple(o) for o in first}) > 1  # 20 draws from this table are not all alike
    assert decode(FakeRuntime(TABLE), sources, SPEC, TokenByToken(sampler(top_k=1, seed=3))) == \
        decode(FakeRuntime(TABLE), sources, SPEC, TokenByToken())


def test_teacher_forcing_feeds_the_targets_and_yields_every_step():
    targets = np.array([[BOS, C, D]])
    runtime = FakeRuntime(TABLE)
    logits = list(decode_steps(runtime, [[A, EOS]], SPEC, Forced(targets)))
    assert len(logits) == 3 and runtime.steps == 3
    assert [int(np.argmax(step[0])) for step in logits] == [B, D, EOS]  # what the table says after BOS, C, D


@pytest.mark.parametrize("options, kind", [(DecodeOptions(), TokenByToken), (DecodeOptions("beam", 3), Beam),
                                           (DecodeOptions("beam", 1), TokenByToken),
                                           (DecodeOptions("sample", seed=1), TokenByToken)])
def test_options_choose_the_strategy(options, kind):
    assert isinstance(strategy_for(options), kind)


@pytest.mark.parametrize("make, rows", [(TokenByToken, 1), (lambda: Beam(3, length_penalty=0.0), 3)])
def test_rows_of_ended_sources_leave_the_batch_and_outputs_stay_the_same(make, rows):
    sources = [[A, EOS]] * 5 + [[B, EOS]]  # five end after two tokens; source B goes on (greedy) or ends soon
    runtime = FakeRuntime(TABLE, rows_per_source=rows)
    together = decode(runtime, sources, SPEC, make())
    alone = [decode(FakeRuntime(TABLE, rows), [s], SPEC, make())[0] for s in sources]
    assert together == alone
    if rows == 1:  # greedy: the one loop left decodes on a batch of one
        assert runtime.selected == [1]


def test_a_sources_length_cap_ends_its_output_and_only_its_own():
    from dataclasses import replace

    capped = replace(SPEC, caps=(8, 3))  # source B loops a b a b …: its cap ends it after 2 tokens + </s>
    assert decode(FakeRuntime(TABLE), [[A, EOS], [B, EOS]], capped, TokenByToken()) == [[B, A], [A, B]]
    beam = decode(FakeRuntime(TABLE, rows_per_source=3), [[B, EOS]], replace(SPEC, caps=(3,)), Beam(3, 0.0))
    assert len(beam[0]) <= 2


@pytest.mark.parametrize("task, capped", [("translator", True), ("chatbot", False)])
def test_only_a_translation_is_capped_by_its_sources_length(task, capped):
    """A translation's length follows its source's; a chat reply to a two-word question may be a sentence."""
    from types import SimpleNamespace

    from studio.config import chatbot_preset, translator_preset
    from studio.generate.guards import length_cap
    from studio.inference import TextGenerator

    config = {"translator": translator_preset, "chatbot": chatbot_preset}[task]()
    generator = TextGenerator(SimpleNamespace(config=config, tokenizers=None), FakeRuntime(TABLE), "fake")
    spec = generator.spec(DecodeOptions(keep_figures=False), [[A, B, EOS], [A, EOS]])  # figures: test_figures
    limit = config.model.max_target_len  # where every output ends, beam search's hypotheses included
    assert [spec.cap(0), spec.cap(1)] == ([length_cap(3), length_cap(2)] if capped else [limit, limit])


@pytest.mark.parametrize("ids, loop", [([5, 5, 5], True), ([5, 6, 5, 6, 5, 6], True), ([1, 2, 3, 1, 2, 3, 1, 2, 3], True),
                                       ([5, 5, 6, 5, 5], False), ([1, 2, 3, 4, 1, 2, 3, 4], False), ([], False)])
def test_degenerate_loops_are_spotted(ids, loop):
    from studio.generate.guards import is_degenerate, length_cap

    assert is_degenerate(ids) is loop
    assert length_cap(4) == 16  # 1.5 x 4 pieces + 10


def test_confidence_groups_pieces_into_words_and_averages():
    from studio.generate.confidence import confidence

    scored = confidence(["▁Ob", "ama", "▁is", "▁here", "."], [-0.2, -0.4, -0.1, -1.0, -0.6])
    assert [w for w, _ in scored.words] == ["Obama", "is", "here."]
    assert scored.words[0][1] == pytest.approx(-0.3) and scored.words[2][1] == pytest.approx(-0.8)
    assert scored.sentence == pytest.approx((-0.3 - 0.1 - 0.8) / 3)
    assert confidence([], []).sentence == 0.0


def test_beam_search_offers_its_finished_hypotheses_best_first():
    beam = Beam(3, length_penalty=0.0)
    decode(FakeRuntime(TABLE, rows_per_source=3), [[A, EOS]], SPEC, beam)
    found = beam.alternatives(3)[0]
    # p(C D) = 0.36 > p(B A) = 0.2 > p(B) = 0.5 x 0.35 (> p(B D) = 0.125)
    assert [ids for _, ids in found] == [[C, D], [B, A], [B]]
    assert [s for s, _ in found] == sorted((s for s, _ in found), reverse=True)
    assert len({tuple(ids) for _, ids in found}) == len(found)


def test_each_task_decodes_by_its_own_default_unless_told_otherwise():
    """What `studio translate` / `studio chat` do with no decoding flags: the task's default (the translator's
    beam search was chosen on the dev sets); a flag overrides only what it names."""
    from studio.cli import decode_options
    from studio.tasks import CHATBOT, TRANSLATOR

    flags = dict(sample=False, temperature=1.0, top_k=0, top_p=1.0, seed=None, max_new_tokens=None, no_repeat_ngram=0)
    translator = decode_options("translator", None, None, **flags)
    assert (translator.strategy, translator.beam_size, translator.length_penalty) == \
        ("beam", TRANSLATOR.default_decoding["beam_size"], TRANSLATOR.default_decoding["length_penalty"])
    assert decode_options("translator", 1, None, **flags).strategy == "greedy"  # --beam 1
    assert decode_options("translator", 2, 1.0, **flags).length_penalty == 1.0
    assert decode_options("translator", None, None, **{**flags, "sample": True}).strategy == "sample"
    assert decode_options("chatbot", None, None, **flags).strategy == CHATBOT.default_decoding["strategy"] == "greedy"
    # sampling flags left out: the task's sampling defaults (a top-k cut: these models' tails are word salad)
    sampled = decode_options("chatbot", None, None, **{**flags, "sample": True, "temperature": None, "top_k": None,
                                                       "top_p": None})
    assert (sampled.temperature, sampled.top_k, sampled.top_p) == tuple(CHATBOT.default_decoding[name] for name in
                                                                        ("temperature", "top_k", "top_p"))
    assert sampled.top_k > 0 and decode_options("chatbot", None, None, **{**flags, "top_k": 0}).top_k == 0


def test_alternatives_that_differ_only_in_case_or_end_punctuation_are_one():
    from studio.inference import distinct_outputs

    scored = [("Seven deaths caused by fire.", -0.1), ("Seven deaths caused by fire", -0.2),
              ("seven deaths caused by fire", -0.3), ("Seven deaths caused by fire?", -0.35),
              ("Seven people died in a fire.", -0.4), ("Fire.", -0.5)]
    assert distinct_outputs(scored, 8) == [scored[0], scored[3], scored[4], scored[5]]  # a question is another
    assert distinct_outputs(scored, 2) == [scored[0], scored[3]]


def test_the_seed_box_empty_is_a_new_sample_each_time_and_text_must_be_a_whole_number():
    from studio.app_model import InputError, decode_options

    assert decode_options("sample", seed="").seed is None and decode_options("sample", seed=" 42 ").seed == 42
    assert decode_options("sample", seed=None).seed is None and decode_options("sample", seed=7.0).seed == 7  # API
    for bad in ("abc", "-1", -3):
        with pytest.raises(InputError, match="whole number, 0 or more"):
            decode_options("sample", seed=bad)
