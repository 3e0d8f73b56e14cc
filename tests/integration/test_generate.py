import numpy as np
import pytest

from studio.generate import Beam, DecodeOptions, DecodeSpec, TokenByToken, decode
from studio.generate.constraints import ban_repeated_ngrams

PROMPTS = ["나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?"]


@pytest.fixture
def generator(tiny_generator):
    return tiny_generator


def sources(generator):
    return [generator.preprocessor.encode(p)[0] for p in PROMPTS]


def test_beam_search_with_one_beam_equals_greedy(generator):
    spec = DecodeSpec.for_model(generator.config.model)
    greedy = decode(generator.runtime, sources(generator), spec, TokenByToken())
    beam = decode(generator.runtime, sources(generator), spec, Beam(1))
    assert beam == greedy


def test_wider_beams_never_score_worse_than_greedy(generator):
    from studio.generate import Forced, decode_steps
    from studio.generate.constraints import log_softmax

    c = generator.config.model

    def log_prob(source, output):
        """log P(output </s> | source), teacher-forced through the same decode loop."""
        targets = np.array([[c.bos_id] + output])
        steps = decode_steps(generator.runtime, [source], DecodeSpec.for_model(c), Forced(targets))
        return sum(float(log_softmax(np.asarray(logits, np.float64))[0, token])
                   for logits, token in zip(steps, output + [c.eos_id]))

    srcs = sources(generator)
    spec = DecodeSpec.for_model(c)
    greedy = decode(generator.runtime, srcs, spec, TokenByToken())
    beam = decode(generator.runtime, srcs, spec, Beam(4, length_penalty=0.0))
    for source, g, b in zip(srcs, greedy, beam):
        if len(g) < c.max_target_len - 1:  # greedy finished: beam (unnormalized) must find at least as likely
            assert log_prob(source, b) >= log_prob(source, g) - 1e-4


def test_sampling_with_a_seed_is_reproducible_and_seeds_differ(generator):
    options = DecodeOptions("sample", temperature=1.5, seed=7)
    first = [g.ids for g in generator.generate(PROMPTS * 3, options=options)]
    again = [g.ids for g in generator.generate(PROMPTS * 3, options=DecodeOptions("sample", temperature=1.5, seed=7))]
    assert first == again
    others = [[g.ids for g in generator.generate(PROMPTS * 3, options=DecodeOptions("sample", temperature=1.5, seed=s))]
              for s in range(8, 12)]
    assert any(o != first for o in others)


def test_top_k_one_sampling_is_greedy(generator):
    greedy = [g.ids for g in generator.generate(PROMPTS)]
    assert [g.ids for g in generator.generate(PROMPTS, options=DecodeOptions("sample", top_k=1, seed=3))] == greedy
    assert [g.ids for g in generator.generate(PROMPTS, options=DecodeOptions("sample", top_p=1e-6, seed=3))] == greedy


def test_no_repeat_ngram_bans_repeats():
    logits = np.zeros((1, 10))
    banned = ban_repeated_ngrams(logits, [[5, 6, 7, 5, 6]], 3)  # "5 6" was followed by 7 before
    assert banned[0, 7] == -np.inf and np.isfinite(banned[0, [0, 5, 6, 8]]).all()
    assert np.isinf(ban_repeated_ngrams(logits, [[4, 4]], 1)[0, 4])


def test_outputs_respect_no_repeat_and_max_new_tokens(generator):
    for g in generator.generate(PROMPTS * 2, options=DecodeOptions(no_repeat_ngram_size=2, max_new_tokens=6)):
        bigrams = list(zip(g.ids, g.ids[1:]))
        assert len(bigrams) == len(set(bigrams)) and len(g.ids) <= 6


@pytest.mark.parametrize("bad", [dict(strategy="nope"), dict(beam_size=0), dict(temperature=0), dict(top_p=0),
                                 dict(max_new_tokens=0)])
def test_invalid_options_are_rejected_clearly(bad):
    with pytest.raises(ValueError):
        DecodeOptions(**bad).validate()


def test_streaming_yields_growing_text_that_ends_as_the_batch_result(generator):
    for prompt in PROMPTS:
        steps = list(generator.stream(prompt))
        final_text, latency, _ = steps[-1]
        assert final_text == generator(prompt)
        assert latency.tokens == len(generator.generate([prompt])[0].ids) + 1 or latency.tokens == 16
        assert 0 < latency.first_token_ms <= latency.total_ms
        assert "ms/token" in latency.summary()
    sampled = [t for t, _, _ in generator.stream(PROMPTS[0], DecodeOptions("sample", seed=5, temperature=1.3))][-1]
    again = [t for t, _, _ in generator.stream(PROMPTS[0], DecodeOptions("sample", seed=5, temperature=1.3))][-1]
    assert sampled == again
    beam = list(generator.stream(PROMPTS[0], DecodeOptions("beam", beam_size=3)))
    assert len(beam) == 1
    _, latency, _ = beam[0]  # a search has no first token: its summary gives the whole search's time per token
    assert latency.summary().startswith("tf · beam 3 · ") and "first token" not in latency.summary()
    assert latency.ms_per_token == pytest.approx(latency.total_ms / latency.tokens) and latency.ms_per_token > 0


def test_an_output_caught_in_a_loop_is_decoded_again_without_repeats(tiny_bundle):
    """A runtime whose favourite token is always 5 (then </s>) loops 5 5 5 …; the generator spots the loop and
    decodes again with repeated bigrams banned, and says so; a streamed reply ends the same way."""
    import numpy as np

    from studio.bundle import load_bundle
    from studio.generate.guards import RETRIED
    from studio.inference import TextGenerator

    bundle = load_bundle(tiny_bundle)

    class Looping:
        name = "looping"

        def encode(self, source_ids):
            return len(source_ids)

        def step(self, rows, tokens, position):
            logits = np.full((rows, bundle.config.model.tgt_vocab_size), -10.0, np.float32)
            logits[:, 5], logits[:, bundle.config.model.eos_id] = 0.0, -1.0
            return logits, rows

        def reorder(self, rows, indices):
            return len(indices)

        select = reorder

    generator = TextGenerator(bundle.preprocessor, Looping())
    result = generator.generate(["나는 커피를 좋아해?"])[0]
    assert result.ids == [5, 5] and RETRIED in result.warnings
    *_, (text, _, warnings) = generator.stream("나는 커피를 좋아해?")
    assert text == result.text and RETRIED in warnings
