"""The translator text pipeline keeps text as written; the tutorial pipeline behaves as before."""

import unicodedata

import pytest

from studio.config import TaskConfig
from studio.text import SentencePieceTokenizer, clean_text, normalize, pipeline_for
from studio.text.pipelines import PIPELINES

NEWS = [
    "2022년 작, '풀장에서 수영하는 사람들'은 비센테 시소(Vicente Siso)의 작품이다.",
    "\"People Swimming in the Pool\" from 2022 is one Vicente Siso artwork.",
    "Quarterly profits jumped 76% to $1.13bn (£600m) — up from $639m.",
    "회의는 오후 3:30~5:00에 열린다 [참고: www.example.com/a?b=1 · 문의 info@example.com]",
    "Zoran Zaev said: “We will not give up.” #news @home",
]


@pytest.fixture(scope="module")
def cased_tokenizer():
    sentences = NEWS * 3 + ["나는 커피를 좋아해.", "I like coffee.", "The Prime Minister met President Obama."]
    return SentencePieceTokenizer.train(sentences, vocab_size=400, byte_fallback=True)


def test_translator_pipeline_keeps_case_quotes_brackets_numbers_symbols_and_latin_names(cased_tokenizer):
    pipeline = pipeline_for(TaskConfig(task="translator", text_pipeline="translator"))
    for text in NEWS:
        cleaned = pipeline.source(text)
        assert cleaned == text  # nothing to normalize in ordinary text
        ids = cased_tokenizer.encode(cleaned)
        assert cased_tokenizer.unk_id not in ids
        assert pipeline.output(cased_tokenizer.decode(ids)) == text


def test_translator_pipeline_reads_unseen_characters_through_byte_fallback(cased_tokenizer):
    text = "Ωμέγα 😀 ∑ 語"
    assert cased_tokenizer.decode(cased_tokenizer.encode(clean_text(text))) == text


def test_clean_text_normalizes_unicode_and_whitespace_only():
    decomposed = unicodedata.normalize("NFD", "한국어")
    assert clean_text(decomposed) == "한국어"
    assert clean_text("ＡＢＣ　１２３！") == "ABC 123!"  # full-width ASCII and ideographic space
    assert clean_text("a\u200bb\u202ec\ufeff") == "abc"  # zero-width and bidi controls removed
    assert clean_text("  two\t\tlines\nand\u00a0more  ") == "two lines and more"
    assert clean_text("ㅋㅋ ㅠㅠ") == "ㅋㅋ ㅠㅠ"  # compatibility jamo stay (NFKC would change them)
    assert clean_text("\x00\x07") == ""


def test_tutorial_pipeline_is_the_tutorials_normalization():
    pipeline = pipeline_for(TaskConfig(task="translator", lowercase_target=True))  # old bundles: no pipeline field
    assert pipeline.name == "tutorial"
    assert pipeline.source("영화 볼래?") == normalize("영화 볼래?") == "영화 볼래 ?"
    assert pipeline.target("Seven people DIED.") == "seven people died ."
    assert pipeline.output("하루가 또 가네요 .") == "하루가 또 가네요."


def test_translator_output_is_not_respaced():
    pipeline = pipeline_for(TaskConfig(task="translator", text_pipeline="translator"))
    assert pipeline.output(" He said: \"No.\" (Reuters) ") == "He said: \"No.\" (Reuters)"


@pytest.mark.parametrize("written, english", [
    ("the `` Solar Tree '' project", "the “Solar Tree” project"), ("``We stop,'' he said", "“We stop,” he said"),
    ("the 'House of Blues ''.", "the 'House of Blues'."), ("`` unclosed", "“unclosed"),
    ("the film 's success", "the film's success"), ("world 's", "world's"),
    ("after film 's Nike' premiere", "after film 's Nike' premiere"),  # 's opened a quote: left alone
    ("in 1995 --2005 and 34 -- 13", "in 1995-2005 and 34-13"), ("wait -- no", "wait -- no"),
    ("Don't stop, it's John's", "Don't stop, it's John's")])
def test_the_treebank_habits_of_the_training_data_are_undone_on_output_and_targets(written, english):
    pipeline = pipeline_for(TaskConfig(task="translator", text_pipeline="translator"))
    assert pipeline.output(written) == english
    assert pipeline.target(written) == english
    assert pipeline.source(written) == written  # what a user writes is read as written


def test_unknown_pipeline_is_refused():
    with pytest.raises(ValueError, match="unknown text pipeline"):
        pipeline_for(TaskConfig(text_pipeline="nope"))


def test_east_asian_brackets_become_quotes_and_a_middle_dot_between_words_a_comma():
    assert clean_text("한국·미국·일본 《기생충》과 「인용」") == "한국, 미국, 일본 “기생충”과 “인용”"
    assert clean_text("6·25 전쟁 · 항목") == "6.25 전쟁 · 항목"  # digits: a point; a free-standing dot stays


def test_double_quotes_mixed_in_one_output_become_straight_ones():
    pipeline = pipeline_for(TaskConfig(task="translator", text_pipeline="translator"))
    assert pipeline.output('He said: “Do not think it is a solution."') == 'He said: "Do not think it is a solution."'
    assert pipeline.output("The film “Parasite” won.") == "The film “Parasite” won."  # one style: kept


@pytest.mark.parametrize("name", PIPELINES)
def test_an_output_shows_no_control_character_a_byte_piece_decoded_to(name):
    from studio.text.pipelines import TextPipeline

    assert TextPipeline(name).output("안녕\x10하세요\x7f") == "안녕하세요"


def test_a_python_with_other_unicode_tables_is_said_to_differ_from_the_golden_datas(monkeypatch):
    import unicodedata

    from studio.text.pipelines import UNICODE_VERSION, unicode_difference

    assert unicode_difference() is None or unicodedata.unidata_version != UNICODE_VERSION
    monkeypatch.setattr(unicodedata, "unidata_version", "15.0.0")
    said = unicode_difference()
    assert said.startswith("this Python follows Unicode 15.0.0, not 14.0.0 (Python 3.11's)")
