"""Translating lines: glossary terms and protected spans (placeholders in, the user's English out), stopping
half-way; on a fake word-by-word translator (no model)."""

import re
from dataclasses import replace
from types import SimpleNamespace

import pytest
from helpers import translate_lines

from studio.errors import DataError
from studio.generate.confidence import Confidence
from studio.inference import Generation
from studio.tasks import KOREAN_ENGLISH
from studio.text.protect import Glossary, Protector, article_for, describe, inside_longer_words
from studio.translation import finish_sentence, split_sentences

WORDS = {"회의는": "the meeting is", "에서": "at", "열린다": "held", "대표와": "with CEO", "만났다": "met",
         "가격은": "the price is", "무게는": "the weight is"}


class WordTranslator:
    """Translates known words, copies everything else; with `drops`, leaves out the placeholders of the
    sources it has not seen before (a model that forgets them once)."""

    def __init__(self, drops: bool = False):
        self.drops, self.seen, self.calls = drops, set(), []
        self.preprocessor = SimpleNamespace(source_limit=1000, count_tokens=lambda text: len(text.split()),
                                            pair=KOREAN_ENGLISH)

    def generate(self, sources, options=None, scores=False):
        self.calls.append(list(sources))
        results = []
        for source in sources:
            words = [WORDS.get(w, w) for w in source.split()]
            if self.drops and re.search(r"Xq\d", source) and source not in self.seen:
                self.seen.add(source)
                words = [w for w in words if not re.fullmatch(r"Xq\d+\W*", w)]
            text = " ".join(words)
            results.append(Generation(text, [], [], Confidence([(w, -0.5) for w in text.split()], -0.5)
                                      if scores else None))
        return results


def test_glossary_parses_tsv_and_names_bad_lines(tmp_path):
    glossary = Glossary.parse("# terms\n삼성\tSamsung\n\n삼성전자\t Samsung  Electronics \n")
    assert glossary.entries == (("삼성", "Samsung"), ("삼성전자", "Samsung Electronics"))  # as written (shown so)
    assert [s.english for s in Protector(glossary).protect("삼성전자와 삼성은").spans] == [
        "Samsung Electronics", "Samsung"]  # the longer term wins where both match
    with pytest.raises(DataError, match=r"terms.tsv:2: expected the Korean term and its English separated by a tab"):
        Glossary.parse("삼성\tSamsung\n원자로 reactor\n", "terms.tsv")
    # typed in a browser's text box, which cannot type a tab; with a tab the line is TSV, whatever else it holds
    typed = Glossary.parse("삼성 = Samsung\n원자로→reactor\n중성자 -> neutron\n등식\tE = mc²\n양성자 => proton\n")
    assert dict(typed.entries) == {"삼성": "Samsung", "원자로": "reactor", "중성자": "neutron", "등식": "E = mc²",
                                   "양성자": "proton"}
    with pytest.raises(DataError, match=r":1: expected the Korean term"):
        Glossary.parse("삼성 = Samsung = Group\n")
    assert Glossary.parse(typed.as_text()) == typed  # as the Translate tab shows an uploaded file's entries
    assert typed.as_text().splitlines()[-2:] == ["등식\tE = mc²", "양성자 = proton"]
    with pytest.raises(DataError, match="bad.tsv:1: not valid UTF-8"):
        (tmp_path / "bad.tsv").write_bytes(b"\xff\xfe\x00garbage")
        Glossary.read(tmp_path / "bad.tsv")
    with pytest.raises(DataError, match="cannot read"):
        Glossary.read(tmp_path / "missing.tsv")
    with pytest.raises(DataError, match="more than"):
        Glossary.parse("".join(f"단어{i}\tword{i}\n" for i in range(5001)))


def test_terms_and_spans_become_placeholders_and_come_back():
    protector = Protector(Glossary.parse("삼성전자\tSamsung Electronics\n삼성\tSamsung\n"))
    protected = protector.protect("삼성전자는 Zoran Zaev 대표와 https://example.com/a?b=1 에서 5kg, $20, 3.5% 삼성")
    assert protected.text == "Xq1는 Xq2 대표와 Xq3 에서 Xq4, Xq5, Xq6 Xq7"
    assert [(s.kind, s.original, s.english) for s in protected.spans] == [
        ("glossary", "삼성전자", "Samsung Electronics"), ("latin", "Zoran Zaev", "Zoran Zaev"),
        ("url", "https://example.com/a?b=1", "https://example.com/a?b=1"), ("number", "5kg", "5kg"),
        ("number", "$20", "$20"), ("number", "3.5%", "3.5%"), ("glossary", "삼성", "Samsung")]
    text, applied, lost = protected.restore("xq1 met Xq2 at Xq3; Xq6 Xq7 Xq10")
    assert text == "Samsung Electronics met Zoran Zaev at https://example.com/a?b=1; 3.5% Samsung"  # Xq10: made up
    assert [s.placeholder for s in lost] == ["Xq4", "Xq5"] and len(applied) == 5


def test_a_term_inside_a_word_or_a_placeholder_in_the_input_is_left_alone():
    protector = Protector(Glossary.parse("성전\ttemple\nAI\tartificial intelligence\n"), auto=False)
    assert protector.protect("삼성전자 AIR").spans == []  # not at a word start / not a whole Latin word
    protected = Protector(Glossary.parse("회의\tsummit\n")).protect("Xq1 회의는 Xq1")
    assert "Xq1" not in [s.placeholder for s in protected.spans]  # the input's own "Xq1" is not a placeholder
    assert protected.restore(protected.text.replace("회의는", "is"))[0].startswith("Xq1 summit")
    assert Protector(auto=False).protect("Zoran Zaev 5kg").text == "Zoran Zaev 5kg"


def test_translate_lines_restores_terms_and_reports_them():
    protector = Protector(Glossary.parse("삼성\tSamsung\n"))
    report, confidences = [], []
    outputs, _ = translate_lines(WordTranslator(), ["회의는 삼성 에서 열린다", "", "가격은 $20"],
                                 protector=protector, report=report, scores=confidences)
    assert outputs == ["The meeting is Samsung at held", "", "The price is $20"]
    assert [w for w, _ in confidences[0].words] == ["The", "meeting", "is", "Samsung", "at", "held"]  # as the text
    assert describe(report) == "Glossary: 삼성 → Samsung (applied)."


def test_a_dropped_placeholder_is_retried_with_the_english_written_in():
    translator = WordTranslator(drops=True)
    report = []
    outputs, _ = translate_lines(translator, ["회의는 삼성 에서 열린다"], protector=Protector(Glossary.parse("삼성\tSamsung\n")),
                                 report=report)
    assert translator.calls == [["회의는 Xq1 에서 열린다"], ["회의는 Samsung 에서 열린다"]]
    assert outputs == ["The meeting is Samsung at held"] and report[0][1] is True


def test_describe_says_which_entries_did_not_apply():
    protected = Protector(Glossary.parse("삼성\tSamsung\n원자로\treactor\n")).protect("삼성 원자로 삼성")
    _, applied, lost = protected.restore("Xq1 went")
    report = [(s, True) for s in applied] + [(s, False) for s in lost]
    assert describe(report) == ("Glossary: 삼성 → Samsung (applied); 원자로 → reactor (not applied: the model "
                                "dropped it).")
    assert describe([]) == ""
    url = Protector().protect("자세한 내용은 https://example.com/news/2024/article 참고")
    assert describe([(url.spans[0], False)]) == ("Not kept as written (the model dropped it): "
                                                 "https://example.com/news/2024/article.")


def test_describe_names_glossary_terms_found_only_inside_longer_words():
    glossary = Glossary.parse("삼성\tSamsung\n전자\tElectronics\n삼성전자\tSamsung Electronics\n서울\tSeoul\n")
    text = "삼성은 \"대한삼성\"에 투자했다. 삼성전자는 서울에서 전자제품을 판다."
    assert inside_longer_words(glossary, text) == {"삼성": "대한삼성", "전자": "전자제품을"}  # 삼성전자 is an entry
    assert describe([], glossary, text) == (
        "Not applied inside a longer word or before an ending it does not take (add that word to the glossary to "
        "translate it so): 삼성 (in 대한삼성), 전자 (in 전자제품을).")
    assert describe([], glossary, "삼성은 서울에 있다. A삼성") == ""  # after a Latin letter: no longer Korean word


def test_an_input_that_is_not_korean_is_left_for_the_language_hint():
    assert Protector().protect("How are you doing today?").spans == []
    glossary = Protector(Glossary.parse("Seoul\t서울\n"))
    assert [s.kind for s in glossary.protect("I love Seoul in May").spans] == ["glossary"]  # the user's terms still


def test_a_stopped_translation_keeps_the_lines_done_and_leaves_the_rest_as_they_were():
    translator, batches = WordTranslator(), []
    lines = ["회의는 열린다", "", "가격은 만났다", "무게는 열린다"]
    outputs, warnings = translate_lines(translator, lines, batch_size=1,
                                        on_progress=lambda done, total: batches.append((done, total)),
                                        stop=lambda: batches[-1][0] >= 2)
    assert batches == [(0, 3), (1, 3), (2, 3)]  # the total first, then after each batch
    assert outputs == ["The meeting is held", "", "The price is met", "무게는 열린다"]
    assert warnings == ["Stopped after 2 of 3 sentences; the rest is left untranslated."]


def test_a_repeated_sentence_is_decoded_once_and_each_repeat_gets_its_english():
    translator, batches = WordTranslator(), []
    lines = ["회의는 열린다", "가격은 만났다", "회의는 열린다", "", "회의는 열린다", "무게는 열린다"]
    outputs, _ = translate_lines(translator, lines, batch_size=2,
                                 on_progress=lambda done, total: batches.append((done, total)))
    assert outputs == ["The meeting is held", "The price is met", "The meeting is held", "", "The meeting is held",
                       "The weight is held"]
    assert translator.calls == [["회의는 열린다", "가격은 만났다"], ["무게는 열린다"]]
    assert batches == [(0, 3), (2, 3), (3, 3)]
    # stopped after the first batch: the lines up to the first one not decoded, repeats included, are done
    translator = WordTranslator()
    outputs, warnings = translate_lines(translator, lines, batch_size=2, stop=lambda: bool(translator.calls))
    assert outputs == ["The meeting is held", "The price is met", "The meeting is held", "", "The meeting is held",
                       "무게는 열린다"]
    assert warnings == ["Stopped after 2 of 3 sentences; the rest is left untranslated."]


class ForgetsEachPlaceholderOnce(WordTranslator):
    """Drops Xq1 the first time it sees a source, Xq2 the second time: a retry that loses what pass 1 kept."""

    def generate(self, sources, options=None, scores=False):
        self.calls.append(list(sources))
        drop = f"Xq{len(self.calls)}"
        return [Generation(" ".join(WORDS.get(w, w) for w in s.split() if not w.startswith(drop)), [])
                for s in sources]


def test_a_retry_that_applies_fewer_spans_than_the_first_pass_is_not_kept():
    report = []
    outputs, _ = translate_lines(ForgetsEachPlaceholderOnce(), ["삼성 애플 만났다"],
                                 protector=Protector(Glossary.parse("삼성\tSamsung\n애플\tApple\n")), report=report)
    assert outputs == ["Apple met"]  # pass 1 (Samsung dropped) beat the retry (Apple dropped, Samsung written in)
    assert sorted((s.original, ok) for s, ok in report) == [("삼성", False), ("애플", True)]
    assert "삼성 → Samsung (not applied" in describe(report)


def test_ten_and_more_placeholders_and_made_up_ones():
    protector = Protector(Glossary.parse("삼성\tSamsung\n"))
    protected = protector.protect("삼성 무게는 " + ", ".join(f"{i}kg를 가진 상자" for i in range(12)))
    assert [s.placeholder for s in protected.spans][-1] == "Xq13"
    inline = protected.inline([s for s in protected.spans if s.placeholder in ("Xq1", "Xq11")])
    assert inline.startswith("Samsung 무게는 Xq2를") and "9kg를" in inline and "Xq10를" in inline
    assert protected.restore("Xq1 Xq10 Xq99 ok")[0] == "Samsung 8kg ok"  # Xq99 was made up by the model
    assert Protector().protect("Xq7 회의는 열린다").restore("Xq7 Xq8")[0] == "Xq7"  # the user's own Xq7 stays
    assert protected.restore("with theXq1) and AXq99")[0] == "with the Samsung) and A"  # glued to a word


def test_a_misspelt_placeholder_stands_for_its_span_only_where_the_right_one_is_missing():
    protected = Protector().protect("영국의 통신사인 Tiscali와 BSkyB, 그리고 Virgin Media는 스위스 IOC 본부에서 만났다고 밝혔다")
    assert [s.placeholder for s in protected.spans] == ["Xq1", "Xq2", "Xq3", "Xq4"]
    restored, applied, lost = protected.restore("Seq1, X Q2 and X-q3 at the \"raq4 Xq4 headquarters, Aq9")
    assert restored == "Tiscali, BSkyB and Virgin Media at the \" IOC headquarters,"
    assert not lost
    own = Protector(Glossary.parse("국제올림픽위원회\tIOC\n"), auto=False).protect("Seq1 팀과 국제올림픽위원회")
    assert own.restore("Seq1 team and Xq1")[0] == "Seq1 team and IOC"  # the user's own Seq1 stays


def test_a_korean_term_matches_with_particles_not_inside_a_longer_word():
    protector = Protector(Glossary.parse("삼성\tSamsung\n"), auto=False)
    assert protector.protect("삼성은 삼성에서 삼성이다").text == "Xq1은 Xq1에서 Xq1이다"
    chained = "삼성에서는 삼성과의 삼성이라는 삼성으로부터 삼성엔 삼성만의"  # particles one after another
    assert protector.protect(chained).text == "Xq1에서는 Xq1과의 Xq1이라는 Xq1으로부터 Xq1엔 Xq1만의"
    assert protector.protect("삼성전자 삼성동 삼성시장").spans == []
    assert Protector().protect("1" * 8000).spans == []  # long runs stay cheap (and unprotected past 2,000 chars)


@pytest.mark.parametrize("korean, english", [
    ("30억 달러를", "$3 billion"), ("3조 5천억 원이", "3.5 trillion won"), ("1억1천만 달러", "$110 million"),
    ("12조3천억 번", "12.3 trillion"), ("135만 톤", "1.35 million"), ("6백만 파운드", "£6 million"),
    ("3백만불에", "$3 million"), ("1억 유로", "€100 million"), ("1만8500메가와트", "18,500"), ("1만 2천 명", "12,000"),
    ("3.5조 원", "3.5 trillion won"), ("10억원을", "1 billion won"), ("1만 엔진", "10,000"),  # engines, not yen
    ("3천5백만 달러를", "$35 million"), ("1조2천5백억원", "1.25 trillion won"), ("1만2천5백 명", "12,500"),
    ("2만 3천 5백 원", "23,500 won"), ("3만 원으로", "30,000 won"), ("3조원대", "3 trillion won"),
    ("100만 3회", "1 million"), ("5천만 위안을", "50 million yuan")])
def test_korean_amounts_are_kept_in_english(korean, english):
    protected = Protector().protect(f"정부는 {korean} 썼다")
    assert [(s.kind, s.english) for s in protected.spans] == [("amount", english)]
    assert protected.restore(protected.text.replace("정부는", "He").replace("썼다", ""))[0].startswith(f"He {english}")


@pytest.mark.parametrize("korean", ["제3조에 따라", "제 3조에", "헌법 1조 1항", "형법 250조에", "2조로 나뉘어",
                                    "3만큼 더", "3만 2억", "2024년 5월", "유로존 국가", "연봉 1억 5천", "2억 500",
                                    "9" * 27 + "조 원", "1" * 40 + "만"])
def test_what_is_no_amount_is_left_whole_to_the_model(korean):
    protected = Protector().protect(korean)
    assert not [s for s in protected.spans if s.kind == "amount"] and not re.search(r"Xq\d+\s?\d", protected.text)


@pytest.mark.parametrize("korean, taken, english", [
    ("국영 철도 회사인 도이체반(Deutsche Bahn)의 파업", "도이체반", "Deutsche Bahn"),
    ("녹색 일자리 펀드 (Green Jobs Fund)를 받았다", "녹색 일자리 펀드", "Green Jobs Fund"),
    ("화가 비센테 시소(Vicente Siso)의 작품", "비센테 시소", "Vicente Siso"),
    ("그레그스( Greggs )는", "그레그스", "Greggs"),
    ("4세기에 쓰여진‘코덱스 시나이티쿠스(Codex Sinaiticus)’ 필사본", "코덱스 시나이티쿠스", "Codex Sinaiticus")])
def test_a_korean_name_with_its_original_in_brackets_becomes_the_original(korean, taken, english):
    protected = Protector().protect(korean)
    assert [(s.kind, s.original, s.english) for s in protected.spans] == [("named", taken, english)]
    assert protected.restore(protected.text)[0] == re.sub(rf"{taken} ?\(\s*{english}\s*\)", english, korean)


@pytest.mark.parametrize("korean", ["국민 보건 서비스(NHS)의 몰락", "상장지수펀드(ETFs)", "웹사이트 (www.example.org)",
                                    "그는 (Deutsche Bahn) 말했다", "(Green Jobs Fund)", "3월(March)에",
                                    "'독일을 위한 대안'(AfD)은", "짐바브웨아프리카민족연맹-애국전선(ZANU-PF)", "'Fed'(Fed Reserve)"])
def test_acronyms_addresses_and_brackets_after_no_korean_word_are_not_names(korean):
    assert not [s for s in Protector().protect(korean).spans if s.kind == "named"]


def test_named_spans_are_automatic_protection():
    assert Protector(auto=False).protect("도이체반(Deutsche Bahn)").spans == []


def test_decimals_are_kept_as_written_and_other_bare_numbers_left_to_the_model():
    protected = Protector().protect("규모 6.8의 강진이 2011년에 2개 도시에서 배럴당 124.44, 25,000명")
    assert [(s.kind, s.english) for s in protected.spans] == [("figure", "6.8"), ("figure", "124.44")]
    assert "2011년" in protected.text and "25,000명" in protected.text
    # dotted runs too (a version, an IP address, a date); a number with its unit was protected before
    assert [(s.kind, s.english) for s in Protector().protect("버전 1.2.3과 3.5%, 192.168.0.1에서").spans] == [
        ("figure", "1.2.3"), ("number", "3.5%"), ("figure", "192.168.0.1")]


@pytest.mark.parametrize("korean, english", [
    ("물가는 3~4% 올랐다", "3-4%"), ("가격은 1.5~2.5배", "1.5-2.5"), ("2020~2023년에", "2020-2023"),
    ("10:30~11:45에", "10:30-11:45"), ("$10~$20이다", "$10-$20"), ("15 ~ 20℃로", "15-20℃"), ("5∼10kg을", "5-10kg"),
    ("오전 10:30에", "10:30 a.m."), ("오후 2:00~3:30까지", "2:00-3:30 p.m."), ("오후 2시에", "2 p.m."),
    ("오전 0시 26분 발생", "12:26 a.m."), ("오후 0시 30분", "12:30 p.m."), ("오후 2시 5분~4시까지", "2:05-4 p.m."), ("오전 8시부터", "8 a.m."),
    ("리셉션은 오후 6~8시에 열린다", "6-8 p.m."), ("오전 0 ~ 2시 30분", "12-2:30 a.m.")])
def test_a_range_or_a_time_of_day_is_one_span_as_english_writes_it(korean, english):
    protected = Protector().protect(korean)
    assert [s.english for s in protected.spans] == [english]
    assert not re.search(r"[~∼]", protected.text)


def test_a_number_of_hours_is_no_time_of_day():
    assert Protector().protect("오후 2시간 동안 회의했다").spans == []


@pytest.mark.parametrize("korean, kind, english", [
    ("배럴당 127.95달러에", "amount", "$127.95"), ("가격은 5달러다", "amount", "$5"), ("1,000원을", "amount", "1,000 won"),
    ("1,000,000원", "amount", "1 million won"), ("15,000원짜리", "amount", "15,000 won"), ("10유로", "amount", "€10"),
    ("면적은 605.2 km²이다", "number", "605.2 km²"), ("부피는 3m³", "number", "3m³"),
    ("좋아요😊👍", "symbol", "😊👍"), ("▲ 첫째", "symbol", "▲")])
def test_prices_square_units_and_symbols_are_kept(korean, kind, english):
    protected = Protector().protect(korean)
    assert [(s.kind, s.english) for s in protected.spans] == [(kind, english)]
    assert protected.restore(protected.text)[0].replace(" ", "") == korean.replace(protected.spans[0].original,
                                                                                   english).replace(" ", "")


@pytest.mark.parametrize("korean", ["3원칙", "100엔진", "3불안", "위안부 2명"])
def test_a_currency_word_that_begins_another_word_is_no_price(korean):
    assert not [s for s in Protector().protect(korean).spans if s.kind == "amount"]


class Repeats(WordTranslator):
    """Writes each placeholder twice the first time it sees a source (a model that repeats a number)."""

    def generate(self, sources, options=None, scores=False):
        self.calls.append(list(sources))
        return [Generation(" ".join(f"{w} {w}" if w.startswith("Xq") and len(self.calls) == 1 else WORDS.get(w, w)
                                    for w in s.split()), []) for s in sources]


def test_a_placeholder_written_twice_is_restored_once_and_the_sentence_retried():
    protected = Protector().protect("제3조에 따르면 100만 원 이하의 벌금")
    assert protected.restore("For Xq1, below XQ1")[0] == "For 1 million won, below"
    assert protected.restore("Xq1 is below Xq1 .")[0] == "1 million won is below."  # no space left before the mark
    assert [s.english for s in protected.repeated("Xq1 and Xq1")] == ["1 million won"]
    assert protected.repeated("Xq1 only") == []
    twice = Protector().protect("회의는 100만 원 100만 원")  # a term the source has twice: restored twice
    assert twice.repeated(twice.text) == [] and twice.restore("Xq1 Xq1 Xq1")[0] == "1 million won 1 million won"
    translator, report = Repeats(), []
    outputs, _ = translate_lines(translator, ["회의는 100만 원 만났다"], protector=Protector(), report=report)
    assert translator.calls == [["회의는 Xq1 만났다"], ["회의는 1 million won 만났다"]]
    assert outputs == ["The meeting is 1 million won met"] and report[0][1] is True


def test_a_possessive_after_a_name_ending_in_s_is_written_as_english_writes_it():
    protected = Protector().protect("브루스터 브라더스(Brewster Brothers)의 가게와 Tiscali의 망")
    assert protected.restore("Xq1's shop and Xq2's network")[0] == "Brewster Brothers' shop and Tiscali's network"


def test_an_article_before_a_restored_amount_agrees_with_how_it_is_read():
    trillions = Protector().protect("정부는 3조 5천억 원이 썼다")  # the model chose "an" for "Xq1" ("ex-cue one")
    assert trillions.restore("The government spent an Xq1")[0] == "The government spent a 3.5 trillion won"
    assert trillions.restore("An Xq1 budget")[0] == "A 3.5 trillion won budget"  # its capital kept
    millions = Protector().protect("정부는 800만 원을 썼다")
    assert millions.restore("It spent a Xq1")[0] == "It spent an 8 million won"
    assert millions.restore("A Xq1 budget")[0] == "An 8 million won budget"
    assert millions.restore("It spent Xq1")[0] == "It spent 8 million won"  # no article: nothing to agree with
    assert millions.restore("Dan Xq1")[0] == "Dan 8 million won"  # "an" inside a word is no article
    assert millions.restore("a\tXq1")[0] == "a 8 million won"  # an article one space before it only
    names = Protector().protect("삼성의 새 휴대폰 Galaxy S24는 애플의 iPhone 15보다 훨씬 싸다")
    assert names.restore("an Xq1 is cheaper than a Xq2")[0] == "a Galaxy S24 is cheaper than an iPhone 15"


@pytest.mark.parametrize("text, article", [
    ("8", "an"), ("11", "an"), ("18", "an"), ("80", "an"), ("89%", "an"), ("800", "an"), ("8.5", "an"),
    ("11 million won", "an"), ("8,000", "an"), ("11000", "an"), ("18,000", "an"), ("800,000", "an"), ("$8", "an"),
    ("8:30 p.m.", "an"), ("3.5 trillion won", "a"), ("100", "a"), ("1,000", "a"), ("1,100", "a"), ("110", "a"),
    ("181", "a"), ("0.8", "a"), ("$5", "a"), ("€ 10", "a"), ("FBI", "an"), ("NHS", "an"), ("A.I.", "an"),
    ("US", "a"), ("BBC", "a"), ("iPhone 15", "an"), ("Oslo", "an"), ("Galaxy S24", "a"), ("COVID-19", "a"),
    ("Uber", "an"), ("▲", None), ("“Parasite”", None), ("Élysée", None), ("", None)])
def test_the_article_for_a_restored_text_follows_how_it_is_read_aloud(text, article):
    assert article_for(text) == article


def test_a_glossary_term_with_its_original_in_brackets_gets_its_english_once():
    protected = Protector(Glossary.parse("삼성전자\tSamsung Electronics\n")).protect("삼성전자(Samsung Electronics)는 삼성전자와")
    assert protected.text == "Xq1는 Xq1와" and [s.original for s in protected.spans] == ["삼성전자"]


def test_a_placeholder_glued_between_digits_never_shows_through():
    protected = Protector().protect("2024년 3월 31일에 Zoran Zaev는 말했다")
    restored, applied, lost = protected.restore("Under the 1Xq124 bill, he said")
    assert "Xq" not in restored and lost  # reported dropped: the sentence is decoded again
    assert Protector().protect("Xq7 회의").restore("Xq7 and 1Xq7")[0] == "Xq7 and 1Xq7"  # the user's own token


@pytest.mark.parametrize("source, output, finished", [
    ("삼성전자는 30억 달러를 투자했다.", "samsung invested $3 billion", "Samsung invested $3 billion."),
    ("《기생충》을 봤다!", "“parasite” was seen", "“Parasite” was seen!"),
    ("아이폰이다.", "iPhone is here", "iPhone is here."),  # a capital inside: written so on purpose
    ("회의는 오후 2시다.", "The meeting is at 2 p.m.", "The meeting is at 2 p.m."),
    ("왜?", "why.", "Why."), ("그는 \"안녕\"이라고 했다.", "He said \"hello\"", "He said \"hello\"."), ("", "", ""),
    ("안녕하세요", "Hello,", "Hello"), ("안녕하세요.", "hello ,", "Hello."), ("사과, 배,", "apples, pears,", "Apples, pears,"),
    ("초안이다.", "it is the draft draft of the plan", "It is the draft of the plan."),
    ("섬이다.", "Bora Bora had had an island", "Bora Bora had had an island.")])
def test_finish_sentence_gives_a_capital_and_the_sources_final_mark(source, output, finished):
    assert finish_sentence(source, output) == finished


def test_sentences_are_not_cut_after_abbreviations_initials_or_a_lines_list_marker():
    assert split_sentences("그는 Dr. Smith를 만났다. U.S. Steel은 컸다. J. Kim도 왔다!") == [
        "그는 Dr. Smith를 만났다.", "U.S. Steel은 컸다.", "J. Kim도 왔다!"]
    assert split_sentences("가. 서론이다. 다음 문장.") == ["가. 서론이다.", "다음 문장."]
    assert split_sentences("12. 개요다. 끝.") == ["12. 개요다.", "끝."]


@pytest.mark.parametrize("korean, english", [("수출은 ▲3.5% 증가했다", "▲ 3.5%"), ("기온은 ±5도 변동했다", "± 5도"),
                                             ("크기 3×4 입니다", "3 × 4"), ("😊5개를 샀다", "😊 5개")])
def test_a_symbol_next_to_a_number_keeps_the_number(korean, english):
    protected = Protector().protect(korean)
    assert english in protected.restore(protected.text)[0]  # a model that copies every placeholder


def test_a_long_run_of_latin_words_with_no_closing_bracket_is_quick():
    import time

    started = time.perf_counter()
    Protector(Glossary.parse("국민보건서비스\tNHS\n")).protect("국민보건서비스(" + "ab-cd ef " * 300)
    assert time.perf_counter() - started < 5.0  # a hang guard, not a speed claim: it was exponential in the words


@pytest.mark.parametrize("korean, latin, alike", [
    ("도이체반", "Deutsche Bahn", True), ("그레그스", "Greggs", True), ("휴먼라이츠워치", "Human Rights Watch", True),
    ("비욘드 디이즈 월즈", "Beyond These Walls", True), ("시나이티쿠스", "Codex Sinaiticus", True),
    ("통신", "Australia Associated Press", False), ("녹색 일자리 펀드", "Green Jobs Fund", False),
    ("트리", "Solar Tree", False), ("시간", "time", False),
    # an r after a vowel: silent in English names, sounded in others
    ("카터", "Carter", True), ("보르도", "Bordeaux", True), ("마르틴 루터", "Martin Luther", True)])
def test_a_transliteration_sounds_like_its_original_and_a_translation_does_not(korean, latin, alike):
    from studio.text.transliteration import sounds_like

    assert sounds_like(korean, latin) is alike


def test_a_name_a_document_introduces_with_its_original_is_given_in_english_wherever_it_is_written_alone():
    lines = ["국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다.", "", "도이체반과 그레그스는 만났다",
             "녹색 일자리 펀드 (Green Jobs Fund)를 받았다. 녹색 일자리 펀드는 컸다.", "그레그스(Greggs)의 가격은 올랐다."]
    outputs, _ = translate_lines(WordTranslator(), lines, protector=Protector())
    assert outputs[2] == "Deutsche Bahn과 Greggs는 met"  # the word translator copies Korean particles
    assert "녹색 일자리 펀드는" in outputs[3]  # a translated name is no transliteration: left to the model
    assert translate_lines(WordTranslator(), lines, protector=Protector(auto=False))[0][2] == "도이체반과 그레그스는 met"
    glossary = Protector(Glossary.parse("도이체반\tDB\n"))  # the user's glossary wins
    assert translate_lines(WordTranslator(), lines, protector=glossary)[0][2] == "DB과 Greggs는 met"


def test_a_name_is_remembered_within_one_sentence_and_not_from_a_lower_case_term_or_one_syllable():
    protected = Protector().protect("비센테 시소(Vicente Siso)의 작품이다(사진 제공: 비센테 시소).")
    assert protected.text == "Xq1의 작품이다(사진 제공: Xq1)." and protected.restore(protected.text)[0] == (
        "Vicente Siso의 작품이다(사진 제공: Vicente Siso).")
    remembered = Protector().remembering("텍스트 (richtext)로 쓴다. 선(Zen)을 배운다.")
    assert remembered.names == Glossary()


def test_a_name_the_model_wrote_twice_in_a_row_is_given_once():
    protected = Protector().protect("ITV의 드라마 '베이트 씨 대 우체국(Mr Bates Vs The Post Office)'은 놀라운 일을 해내고 있다")
    assert protected.restore("Xq1's drama 'Xq2 'Xq2' is surprising")[0] == (
        "ITV's drama 'Mr Bates Vs The Post Office' is surprising")


def test_latin_names_with_diacritics_are_one_span():
    protected = Protector().protect("프랑스 대통령 François Hollande는 독일 총리의 보좌관 José Müller와 함께 쾰른(Köln)에서 만났다")
    assert [s.english for s in protected.spans] == ["François Hollande", "José Müller", "Köln"]


def test_placeholders_written_as_x_and_digits_stand_for_their_spans_and_made_up_ones_leave_no_brackets():
    protected = Protector().protect("미 합동태풍경보센터(Joint Typhoon Warning Center, JTWC)가 전했다")
    restored = protected.restore("the center (X1q1, X2) said, as the franc (X23) did")[0]
    assert restored == "the center (Joint Typhoon Warning Center, JTWC) said, as the franc did"
    assert protected.restore("Xq1 and Xq2 saw X2q and x2")[0] == "Joint Typhoon Warning Center and JTWC saw X2q and x2"


def test_a_remembered_name_takes_only_a_bracket_that_holds_its_own_original():
    remembered = Protector().remembering("국제 인권단체 휴먼라이츠워치(Human Rights Watch)가 성명을 냈다.")
    protected = remembered.protect("휴먼라이츠워치(HRW)는 중국 정부를 다시 비판했다.")
    assert protected.text == "Xq1(Xq2)는 중국 정부를 다시 비판했다."  # the acronym is kept
    assert protected.restore(protected.text)[0] == "Human Rights Watch(HRW)는 중국 정부를 다시 비판했다."
    glossary = Protector(Glossary.parse("Deutsche Bahn\tDB\n")).protect("국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다")
    assert glossary.restore(glossary.text)[0] == "국영 철도 회사인 Deutsche Bahn(DB)은 파업했다"


def test_two_syllable_words_are_not_remembered_and_the_first_introduction_wins():
    remembered = Protector().remembering("일본 나라(Nara)현의 사슴. 빵집 그레그스(Greggs). 다시 그레그스(Gregs).")
    assert remembered.names == Glossary.of({"그레그스": "Greggs"})
    assert remembered.protect("이 나라의 경제는 그레그스를 닮았다").text == "이 나라의 경제는 Xq1를 닮았다"


def test_a_span_the_source_has_twice_in_a_row_stays_twice():
    protected = Protector().protect("수출 비중은 3%, 3%, 5% 순이다")
    assert protected.restore("Xq1, Xq1, Xq2 in order")[0] == "3%, 3%, 5% in order"
    drama = Protector().protect("ITV의 드라마 '베이트 씨 대 우체국(Mr Bates Vs The Post Office)'은 놀라운 일을 해내고 있다")
    assert drama.restore("the drama Xq2 “Xq2” is")[0] == "the drama “Mr Bates Vs The Post Office” is"


def test_a_long_bracket_is_no_name_and_costs_little():
    import time

    started = time.perf_counter()
    remembered = Protector().remembering("가나 " * 4000 + "(" + " ".join(["Gana"] * 4000) + ")")
    assert remembered.names == Glossary() and time.perf_counter() - started < 5.0  # a hang guard: it was quadratic


def test_a_word_written_once_instead_of_twice_loses_its_second_score_too():
    from studio.translation import finish_generation

    words = [("the", -0.1), ("draft", -0.5), ("draft", -2.0), ("is", -0.2), ("ready", -0.3)]
    finished = finish_generation("초안이 준비됐다.", Generation("the draft draft is ready", [], [], Confidence(words, -0.6)))
    assert finished.text == "The draft is ready."
    assert finished.confidence.words == [("The", -0.1), ("draft", -0.5), ("is", -0.2), ("ready.", -0.3)]
    words = [("the", -0.1), ("draft", -0.5), ("draft,", -2.0), ("it", -0.2), ("is", -0.3)]
    finished = finish_generation("초안이다.", Generation("the draft draft, it is", [], [], Confidence(words, -0.6)))
    assert finished.confidence.words == [("The", -0.1), ("draft,", -0.5), ("it", -0.2), ("is.", -0.3)]


def test_lines_without_korean_are_kept_as_written_and_said_once_as_the_reader_sees_them():
    import unicodedata

    from helpers import translate_document

    from studio.formats import read_document

    translator = WordTranslator()
    outputs, warnings = translate_lines(translator, ["회의는 서울에서 열린다", "Hello there.", "", "2024",
                                                     unicodedata.normalize("NFD", "회의는 열린다")])
    assert outputs[1:4] == ["Hello there.", "", "2024"] and outputs[4]  # decomposed Korean is Korean
    assert warnings == ["2 lines without Korean kept as written (the first: 'Hello there.')"]
    assert all("Hello" not in source for call in translator.calls for source in call)  # never sent to the model
    document = read_document("a.md", "**Note** `code` here\n\n회의는 **서울**에서 열린다\n".encode())
    data, warnings = translate_document(WordTranslator(), document)
    assert data.decode().startswith("**Note** `code` here\n")  # as written, markup and all
    # a formatted phrase is no line of its own, and the markup's tokens are not shown
    assert warnings == ["kept as written, without Korean to translate: 'Note here'"]


def test_alternatives_of_a_text_without_korean_are_the_text_itself():
    from helpers import translate_alternatives

    translator = WordTranslator()
    assert translate_alternatives(translator, "Hello  there.", 3) == (
        [("Hello there.", 0.0)], ["kept as written, without Korean to translate: 'Hello there.'"])


def test_a_document_names_the_formatting_it_lost_but_not_that_of_phrases_a_stop_left_untranslated():
    from helpers import translate_document

    from studio.formats import read_document

    document = read_document("a.md", "회의는 **서울**에서 열린다\n".encode())  # "서울" alone stays Korean here
    _, warnings = translate_document(WordTranslator(), document, batch_size=1)
    assert "the formatting of '서울' was not kept" not in " ".join(warnings)

    class Renamed(WordTranslator):
        def generate(self, sources, options=None, scores=False):
            results = super().generate(sources, options, scores)
            return [replace(r, text="Seoul City") if s == "서울" else r for s, r in zip(sources, results)]

    _, warnings = translate_document(Renamed(), document)
    assert "the formatting of '서울' was not kept in the English" in warnings


def test_addresses_are_left_out_of_the_language_guess_even_after_a_very_long_word():
    from studio.text.protect import language_sample

    word = "x" * 200_000  # an e-mail pattern that rescanned the word from each letter took minutes here
    assert language_sample(f"{word} 연락은 kim.lee@example.co.kr 로") == f"{word} 연락은   로"
    assert language_sample("메일:kim@example.com") == "메일: "
