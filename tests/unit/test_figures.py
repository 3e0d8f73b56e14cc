"""No invented figure (issue 41): the decoder writes only numbers its source has, whatever the model prefers —
on a fake runtime that would turn 2018 into 1818, with greedy, beam and sampling alike."""

from types import SimpleNamespace

import numpy as np
import pytest

from studio.generate import Beam, DecodeSpec, TokenByToken, decode, sampler
from studio.generate.figures import FigureGuard
from studio.text.facts import source_numbers, source_years

PIECES = ["<pad>", "<s>", "</s>", "\u2581On", "\u2581September", "\u258130", ",", "\u258118", "18", "\u258120",
          ".", "\u2581in", "\u25811", "500", "\u2581people", "\u2581two", "<0x37>"]
ID = {piece.replace("\u2581", "_"): i for i, piece in enumerate(PIECES)}
EOS = 2


class ToyTokenizer:
    """A target vocabulary of whole pieces: decode joins them (the fake runtime's outputs read as text)."""

    vocab_size = len(PIECES)

    def id_to_piece(self, token_id):
        return PIECES[token_id]

    def decode(self, ids):
        return "".join(PIECES[i] for i in ids if i > EOS).replace("\u2581", " ").strip()


def ids(*names):
    return [ID[name] for name in names]


class PreferringRuntime:
    """A model that would write `wanted` (its first choice at each step: the wrong year), with every other piece
    a little less likely, so a constrained decoder has somewhere else to go. The state is the step's position."""

    name = "fake"

    def __init__(self, wanted):
        self.wanted = wanted + [EOS]

    def encode(self, source_ids):
        return {"rows": len(source_ids)}

    def step(self, state, tokens, position):
        logits = np.full((len(tokens), len(PIECES)), -4.0, np.float32)
        logits[:, ID["_20"]] = -1.0  # the next best guesses: the right century, then the right year
        logits[:, ID["18"]] = -1.5
        logits[:, EOS] = -2.0
        logits[:, self.wanted[min(position, len(self.wanted) - 1)]] = 0.0
        return logits, {"rows": len(tokens)}

    def reorder(self, state, indices):
        return {"rows": len(indices)}

    def select(self, state, rows):
        return {"rows": len(rows)}


GUARD = FigureGuard(PIECES, EOS)
WRONG_YEAR = ids("_On", "_September", "_30", ",", "_18", "18", ".")  # "On September 30, 1818."


def spec_for(*sources):
    return DecodeSpec(1, EOS, 12, figures=GUARD, numbers=tuple(source_numbers(s) for s in sources),
                      years=tuple(source_years(s) for s in sources))


def test_source_numbers_are_written_without_thousands_commas_and_also_in_parts():
    assert source_numbers("2018년 9월 30일, 1,500명이 3.5배 Xq1.") == {"2018", "9", "30", "1500", "1", "500", "3.5",
                                                                   "3", "5"}
    assert source_numbers("지난해 세 명") == frozenset()


@pytest.mark.parametrize("name, strategy", [("greedy", lambda: TokenByToken()), ("beam", lambda: Beam(3, 1.8)),
                                            ("sample", lambda: TokenByToken(sampler(seed=1, top_k=3)))])
def test_a_year_the_model_would_change_is_kept(name, strategy):
    """The source says 2018 and 30; the model prefers "1818": every strategy writes "2018" instead."""
    runtime = PreferringRuntime(WRONG_YEAR)
    free = decode(runtime, [[5, EOS]], DecodeSpec(1, EOS, 12), TokenByToken())
    assert ToyTokenizer().decode(free[0]) == "On September 30, 1818."  # the model's own choice, unguarded
    guarded = decode(runtime, [[5, EOS]], spec_for("2018년 9월 30일"), strategy())
    text = ToyTokenizer().decode(guarded[0])
    assert source_numbers(text) <= {"2018", "30", "9"}, text
    assert name == "sample" or "2018" in text  # a sample may end sooner


def test_a_number_in_progress_must_become_one_of_the_sources():
    numbers = source_numbers("2018년 9월 30일 1,500명")
    history = ids("_On", "_September", "_30", ",")
    banned = set(GUARD.banned(history, numbers))
    assert ID["_18"] in banned and ID["_20"] not in banned and ID["_1"] not in banned  # 1… may become 1500
    after_20 = set(GUARD.banned(history + ids("_20"), numbers))  # "20" is no number of the source yet
    assert ID["18"] not in after_20 and {EOS, ID["_in"], ID["_two"]} <= after_20
    assert {EOS, ID["_in"]} <= set(GUARD.banned(history + ids("_20", "."), numbers))  # "20." must go on
    assert ID["500"] in after_20  # "20500"
    after_year = set(GUARD.banned(history + ids("_20", "18"), numbers))
    assert EOS not in after_year and ID["."] not in after_year and ID["18"] in after_year  # "201818"


def test_a_thousands_comma_may_be_written_where_korean_has_none_and_only_there():
    numbers = source_numbers("1500명")
    assert ID[","] not in GUARD.banned(ids("_1"), numbers)
    assert ID["500"] not in GUARD.banned(ids("_1", ","), numbers)
    assert EOS in GUARD.banned(ids("_1", ","), numbers)  # "1," is no number of the source
    assert ID[","] in GUARD.banned(ids("_1", ","), numbers)  # "1,," is no number at all
    assert ID["."] in GUARD.banned(ids("_1"), numbers)  # "1." would be the start of a decimal
    year = source_numbers("2023년")
    assert ID["."] not in GUARD.banned(ids("_20", "18"), source_numbers("2018년"))  # "in 2018." ends a sentence
    assert ID["18"] in GUARD.banned(ids("_20", ","), year) and ID["."] in GUARD.banned(ids("_20"), year)


def test_a_source_without_digits_allows_words_only():
    banned = set(GUARD.banned([], frozenset()))
    assert {ID["_30"], ID["_18"], ID["_1"], ID["<0x37>"]} <= banned  # a byte piece that writes "7" too
    assert ID["_two"] not in banned and EOS not in banned


@pytest.mark.parametrize("task, guarded", [("translator", True), ("chatbot", False)])
def test_only_a_translation_keeps_its_sources_figures_unless_told_not_to(task, guarded):
    from studio.config import chatbot_preset, translator_preset
    from studio.generate import DecodeOptions
    from studio.inference import TextGenerator

    config = {"translator": translator_preset, "chatbot": chatbot_preset}[task]()
    source = SimpleNamespace(decode=lambda ids: "2018년 9월")
    preprocessor = SimpleNamespace(config=config, tokenizers=SimpleNamespace(source=source, target=ToyTokenizer()))
    generator = TextGenerator(preprocessor, PreferringRuntime(WRONG_YEAR), "fake")
    spec = generator.spec(None, [[5, EOS]])
    assert (spec.figures is not None) == guarded
    if guarded:
        assert spec.numbers == ({"2018", "9"},)
        assert generator.spec(DecodeOptions(keep_figures=False), [[5, EOS]]).figures is None


def test_the_guard_never_leaves_the_model_without_a_token_nor_writes_another_number():
    """Random walks through what the guard allows: some token is always left, and every number written is one of
    the source's as English writes it."""
    from studio.generate.figures import written_forms

    pieces = ["<pad>", "<s>", "</s>", *"0123456789", ",", ".", "...", "\u2581", "a", "\u25811", "23", ",000", "\u25812,"]
    guard = FigureGuard(pieces, EOS)
    rng = np.random.default_rng(0)
    for source in ("2018년 9월 30일", "1,500명이 3.5배", "2,473개 145개 2023년", "09월", "12345.67달러", "세 명"):
        numbers = source_numbers(source)
        for _ in range(40):
            history = []
            for _ in range(16):
                allowed = np.setdiff1d(np.arange(len(pieces)), guard.banned(history, numbers))
                assert allowed.size, (source, history)
                token = int(rng.choice(allowed))
                if token == EOS:
                    break
                history.append(token)
            else:
                continue  # did not end: its last number may be unfinished
            text = "".join(pieces[t] for t in history).replace("\u2581", " ")
            for run in __import__("re").findall(r"\d[\d.,]*", text):
                assert run.rstrip(",.") in written_forms(numbers), (source, text)


def test_beam_search_answers_with_a_translation_that_keeps_every_year_if_one_does():
    """Of its finished translations, the best that writes each of the source's years: a year dropped is lost."""
    dropped, kept = ids("_On", "_September", "_30"), ids("_in", "_20", "18")
    for source, answer in (("2018년 9월 30일", kept), ("9월 30일", dropped)):
        beam = Beam(2, 1.0)
        beam.start(1, spec_for(source))
        beam.done_hypotheses[0] = [(-0.5, dropped), (-0.9, kept)]
        beam.done[0] = True
        assert beam.outputs() == [answer]


def test_a_korean_amount_may_be_written_as_english_writes_it():
    """`1만8500` is "18,500" in English (what term protection writes for it where it protects it)."""
    numbers = source_numbers("1만8500메가와트를 전송한다")
    assert {"18500", "1", "8500"} <= numbers
    assert ID["_1"] not in GUARD.banned([], numbers)


def test_the_masks_kept_are_bounded(monkeypatch):
    """A server sees ever new sources: the guard keeps at most CACHED masks, and answers alike after a reset."""
    import studio.generate.figures as figures

    monkeypatch.setattr(figures, "CACHED", 2)
    guard = FigureGuard(PIECES, EOS)
    first = guard.banned([], source_numbers("2018년"))
    for year in ("1999년", "2000년", "2001년", "2018년"):
        guard.banned([], source_numbers(year))
        assert len(guard._banned) <= 2
    np.testing.assert_array_equal(guard.banned([], source_numbers("2018년")), first)


def test_thousands_commas_and_long_runs_of_digits():
    from studio.generate.figures import with_commas, written_forms

    assert [with_commas(d) for d in ("7", "123", "1234", "0123", "1234567")] == ["7", "123", "1,234", "0,123",
                                                                                 "1,234,567"]
    digits = "1" * 200_000  # one pass: a lookahead regex took minutes here
    assert max(written_forms(frozenset([digits])), key=len).count(",") == (len(digits) - 1) // 3
