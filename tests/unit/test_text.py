import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.text import SentencePieceTokenizer, SubwordTokenizer, TokenizerPair, dedupe_pairs, keep_pair, normalize, tidy
from helpers import generated_pairs


def test_normalize_spaces_out_punctuation_and_collapses_spaces():
    assert normalize("영화 볼래?") == "영화 볼래 ?"
    assert normalize("  안녕,   반가워!!  ") == "안녕 , 반가워 ! !"


def test_normalize_drops_characters_outside_hangul_latin_digits_and_punctuation():
    assert normalize("오늘 날씨 ☀️ 좋다 :) #행복") == "오늘 날씨 좋다 행복"
    assert normalize("ㅋㅋ 3시에 봐") == "ㅋㅋ 3시에 봐"


def test_normalize_lowercases_english_only_when_asked():
    assert normalize("Seven people DIED.", lowercase=True) == "seven people died ."
    assert normalize("Seven people DIED.") == "Seven people DIED ."


def test_normalize_composes_decomposed_hangul():
    decomposed = unicodedata.normalize("NFD", "한국어")
    assert normalize(decomposed) == "한국어"


def test_tidy_reattaches_punctuation_for_display():
    assert tidy("하루가 또 가네요 .") == "하루가 또 가네요."
    assert tidy("정말 ? 네 !") == "정말? 네!"


def test_dedupe_keeps_first_occurrence_in_order():
    pairs = [("a", "1"), ("b", "2"), ("a", "1"), ("a", "3")]
    assert dedupe_pairs(pairs) == [("a", "1"), ("b", "2"), ("a", "3")]


def test_length_filter_rejects_empty_too_long_and_misaligned_pairs():
    assert keep_pair(5, 6, 10, 10)
    assert not keep_pair(0, 6, 10, 10)
    assert not keep_pair(11, 6, 10, 10)
    assert not keep_pair(4, 30, 50, 50, max_ratio=3.0)
    assert keep_pair(4, 10, 50, 50, max_ratio=3.0)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_normalize_never_raises_and_is_idempotent(text):
    once = normalize(text)
    assert normalize(once) == once


CORPUS = [s for q, a, e in generated_pairs(60) for s in (q, a)]


@pytest.fixture(scope="module")
def sentencepiece():
    return SentencePieceTokenizer.train([normalize(s) for s in CORPUS], vocab_size=300)


def test_sentencepiece_uses_the_tutorial_special_ids(sentencepiece):
    assert (sentencepiece.pad_id, sentencepiece.bos_id, sentencepiece.eos_id, sentencepiece.unk_id) == (0, 1, 2, 3)
    assert [sentencepiece.id_to_piece(i) for i in range(4)] == ["<pad>", "<s>", "</s>", "<unk>"]


def test_sentencepiece_round_trips_and_stops_at_end_token(sentencepiece):
    text = normalize("나는 커피를 좋아해?")
    ids = sentencepiece.encode(text)
    assert all(i > 3 for i in ids)
    assert sentencepiece.decode(ids) == text
    assert sentencepiece.decode([1] + ids + [2] + ids) == text


def test_subword_encoder_round_trips_with_start_and_end_after_vocabulary():
    tokenizer = SubwordTokenizer.train([normalize(s) for s in CORPUS], vocab_size=300)
    text = normalize("그는 책을 샀어?")
    ids = tokenizer.encode(text)
    assert tokenizer.decode(ids) == text
    assert tokenizer.pad_id == 0 and tokenizer.bos_id == tokenizer.vocab_size - 2
    assert tokenizer.eos_id == tokenizer.vocab_size - 1
    assert max(ids) < tokenizer.bos_id


@pytest.mark.parametrize("kind", ["sentencepiece", "subword"])
@pytest.mark.parametrize("shared", [True, False])
def test_tokenizer_pair_saves_and_loads(tmp_path, kind, shared):
    from studio.text import train_tokenizer

    make = lambda: train_tokenizer(kind, [normalize(s) for s in CORPUS], 300)  # noqa: E731
    pair = TokenizerPair(make(), make()) if not shared else TokenizerPair(*(2 * [make()]))
    pair.save(tmp_path)
    loaded = TokenizerPair.load(tmp_path)
    assert loaded.shared == shared
    text = normalize("우리는 여행을 원해!")
    assert loaded.source.encode(text) == pair.source.encode(text)
    assert loaded.target.decode(pair.target.encode(text)) == text


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_sentencepiece_tokenize_never_raises_and_detokenize_is_stable(text):
    tokenizer = _shared_sentencepiece()
    once = tokenizer.decode(tokenizer.encode(normalize(text)))
    assert tokenizer.decode(tokenizer.encode(once)) == once


_CACHE = {}


def _shared_sentencepiece():
    if "sp" not in _CACHE:
        _CACHE["sp"] = SentencePieceTokenizer.train([normalize(s) for s in CORPUS], vocab_size=300)
    return _CACHE["sp"]


def test_byte_fallback_spells_unseen_characters_and_drops_broken_bytes(sentencepiece):
    text = normalize("햏햏 나는 커피를 좋아해")  # 햏 is not in the training corpus
    ids = sentencepiece.encode(text)
    assert sentencepiece.unk_id not in ids
    assert sentencepiece.decode(ids) == text
    byte_piece = sentencepiece.encode("햏")[-1]  # one byte of a three-byte character
    assert sentencepiece.decode([byte_piece]) == ""


@pytest.mark.parametrize("text, expected", [
    ("Hello, how are you today?", "English or another language in Latin letters"),
    ("def translate(text): return text", "English or another language in Latin letters"),
    ("こんにちは、元気ですか", "Japanese (kana)"), ("你好，世界", "Chinese (Han characters)"),
    ("Привет, как дела?", "Russian or another Cyrillic language"),
    ("오바마는 대통령이다.", None), ("BTS 노래 좋아해?", None), ("iPhone 15 살까 말까", None), ("OK", None), ("", None),
    ("삼성전자(Samsung Electronics)는 3분기 영업이익이 늘었다", None),  # Korean with a name in Latin letters
])
def test_an_input_mostly_in_another_script_is_named(text, expected):
    from studio.text.script import looks_like

    assert looks_like(text) == expected
