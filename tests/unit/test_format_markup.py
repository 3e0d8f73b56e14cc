"""Inline markup never cuts a sentence into separately translated pieces: a .md or .html block is one
segment with its markup as placeholder tokens, put back around the English; a .docx line keeps its main
formatting and its line breaks; an .srt dialogue cue keeps one line per speaker. The "translator" here
writes English by hand, tokens where a model would put them (or not)."""

import io
import re

import docx
import pytest

from studio.formats import read_document
from studio.formats.phrases import find_phrase
from studio.text.protect import Protector


def one(name: str, source: str):
    document = read_document(name, source.encode())
    assert len(document.segments) == 1, document.segments
    return document, document.segments[0]


def rendered(name: str, source: str, english: str) -> str:
    document, _ = one(name, source)
    return document.render([english]).decode()


def tokens(segment: str) -> list[str]:
    return re.findall(r"Xq\d+", segment)


# ---------------------------------------------------------------- .md

SEOUL = "서울은 **한국의 수도**이며 인구는 약 *950만* 명이다.\n"
LINKS = "[서울](http://a.kr)은 [한국](http://b.kr)의 수도이다.\n"


def test_md_emphasis_is_found_as_a_phrase_in_the_plain_sentences_english_no_tokens_in_the_sentence():
    document = read_document("a.md", SEOUL.encode())
    assert document.segments == ["서울은 한국의 수도이며 인구는 약 950만 명이다.", "한국의 수도", "950만"]
    out = document.render(["Seoul is the capital of Korea and has about 9.5 million people.", "The capital of Korea",
                           "9.5 million"]).decode()
    assert out == "Seoul is **the capital of Korea** and has about *9.5 million* people.\n"
    # a phrase the sentence's English does not have stays plain; phrases are found in any order
    out = document.render(["About 9.5 million people live in Seoul, Korea's capital.", "The capital of Korea",
                           "9.5 million"]).decode()
    assert out == "About *9.5 million* people live in Seoul, Korea's capital.\n"
    reversed_order = read_document("a.md", "**삼성**은 *공장*을 지었다.\n".encode())
    assert reversed_order.render(["The factory was built by Samsung.", "Samsung", "Factories"]).decode() == (
        "The *factory* was built by **Samsung**.\n")


def test_md_emphasis_around_a_link_or_around_no_letters_keeps_tokens():
    for source in ("그는 **[삼성](http://a.kr) 공장**을 지었다.\n", "그는 **2024**년에 왔다.\n"):
        document, segment = one("a.md", source)
        assert "**" not in segment and len(tokens(segment)) >= 2


def test_md_spacing_around_restored_markup_reads_naturally():
    source = "자세한 내용은 [위키백과](https://ko.wikipedia.org/wiki/서울)를 참고하세요.\n"
    _, segment = one("a.md", source)
    opening, closing = tokens(segment)
    out = rendered("a.md", source, f"See{opening}Wikipedia{closing}for details.")
    assert out == "See [Wikipedia](https://ko.wikipedia.org/wiki/서울) for details.\n"


def test_md_link_keeps_its_destination_around_the_translated_text():
    source = "자세한 내용은 [위키백과](https://ko.wikipedia.org/wiki/서울)를 참고하세요.\n"
    _, segment = one("a.md", source)
    assert "https" not in segment and "위키백과" in segment
    opening, closing = tokens(segment)
    out = rendered("a.md", source, f"See {opening} Wikipedia {closing} for details.")
    assert out == "See [Wikipedia](https://ko.wikipedia.org/wiki/서울) for details.\n"


@pytest.mark.parametrize("english", ["Seoul is the capital of Korea.",  # all dropped
                                     "{1} Seoul {0} is the capital of {2} Korea {3}.",  # reordered
                                     "{0} Seoul {2} is the capital of {1} Korea {3}."])  # crossing
def test_md_pair_dropped_or_out_of_order_is_removed_cleanly(english):
    _, segment = one("a.md", LINKS)
    out = rendered("a.md", LINKS, english.format(*tokens(segment)))
    assert "Xq" not in out and "  " not in out
    assert "Seoul" in out and "Korea" in out
    assert out.count("[") == out.count("](") and "http://b.kr" in out  # written whole, or its destination after


def test_md_pair_kept_in_order_survives_when_another_is_broken():
    _, segment = one("a.md", LINKS)
    seoul, end_seoul, korea, end_korea = tokens(segment)
    out = rendered("a.md", LINKS, f"{end_seoul} Seoul {seoul} is the capital of {korea} Korea {end_korea}.")
    assert out == "Seoul is the capital of [Korea](http://b.kr). <http://a.kr>\n"


def test_md_inline_code_and_urls_are_never_lost_even_when_the_model_drops_them():
    source = "함수 `print(\"안녕\")`는 https://example.com/a_b 에 있다.\n"
    _, segment = one("a.md", source)
    assert "print" not in segment and "example.com" not in segment
    code, url = tokens(segment)
    assert rendered("a.md", source, f"The function {code} is at {url}.") == (
        "The function `print(\"안녕\")` is at https://example.com/a_b.\n")
    assert rendered("a.md", source, "The function is there.") == (
        "The function is there. `print(\"안녕\")` https://example.com/a_b\n")


def test_a_link_whose_brackets_the_model_dropped_keeps_its_destination():
    source = "[여기](https://example.com/a \"제목\")를 누르고 [문서](guide.md)와 ![그림](img.png)을 보세요.\n"
    _, segment = one("a.md", source)
    assert "example.com" not in segment and "guide.md" not in segment and "img.png" not in segment
    assert rendered("a.md", source, "Press here and see the guide and the picture.") == (
        "Press here and see the guide and the picture. <https://example.com/a> [guide.md](guide.md) ![](img.png)\n")
    # an anchor in the page (named by its Korean heading) and a script have nothing to keep
    assert rendered("a.md", "[목차](#목차)로 가거나 [닫기](javascript:void(0))를 누르세요.\n",
                    "Go to the contents or press close.") == "Go to the contents or press close.\n"
    html_source = "<p><a href='https://example.com'>여기</a>를 누르고 <a name=top>위</a>로 가세요.</p>"
    out = rendered("a.html", html_source, "Press the here and go up.")  # as the shipped model wrote it
    assert out == "<p>Press the here and go up. <a href='https://example.com'>https://example.com</a></p>"
    _, segment = one("a.html", html_source)
    link, end_link = tokens(segment)[:2]
    assert rendered("a.html", html_source, f"Press {link} here {end_link} and go up.") == (
        "<p>Press <a href='https://example.com'>here</a> and go up.</p>")  # kept: nothing added


def test_a_reference_link_whose_brackets_the_model_dropped_keeps_its_definitions_destination():
    source = ("[위키백과][wiki]를 보고 [문서][]와 [그림]을 보세요. [정의 없음][x]도.\n\n"
              "[wiki]: https://ko.wikipedia.org/wiki/서울\n[문서]: guide.md\n[그림]: #그림\n")
    document = read_document("a.md", source.encode())
    assert document.render(["See Wikipedia, the guide and the picture, and none."]).decode() == (
        "See Wikipedia, the guide and the picture, and none. <https://ko.wikipedia.org/wiki/서울> "
        "[guide.md](guide.md)\n\n[wiki]: https://ko.wikipedia.org/wiki/서울\n[문서]: guide.md\n[그림]: #그림\n")
    escaped = read_document("a.md", "[문서][a]를 보세요.\n\n[a]: https://a.kr/x%2Fy/%EC%84%9C\n".encode())
    assert "<https://a.kr/x%2Fy/서>\n" in escaped.render(["See the document."]).decode()  # %2F is not "/"


def test_md_a_token_written_twice_is_written_once():
    _, segment = one("a.md", LINKS)
    seoul, end_seoul, korea, end_korea = tokens(segment)
    out = rendered("a.md", LINKS, f"{seoul} Seoul {end_seoul} is the capital {end_seoul} of {korea} Korea {end_korea}"
                                  f" {korea}.")
    assert out == "[Seoul](http://a.kr) is the capital of [Korea](http://b.kr).\n"


def test_md_text_is_escaped_but_markup_is_not():
    document = read_document("a.md", "이것은 **굵은** 글이다.\n".encode())
    assert document.render(["This is bold_text [sic] *x*.", "bold_text"]).decode() == (
        "This is **bold\\_text** \\[sic\\] \\*x\\*.\n")


def test_md_tokens_skip_a_number_the_text_already_uses_and_leave_the_users_token_alone():
    source = "자리표시자 Xq51 는 [링크](http://a.kr)로 쓴다.\n"
    _, segment = one("a.md", source)
    assert tokens(segment) == ["Xq51", "Xq52", "Xq53"]
    out = rendered("a.md", source, "The placeholder Xq51 is written Xq52 as a link Xq53.")
    assert out == "The placeholder Xq51 is written [as a link](http://a.kr).\n"


def test_md_markup_around_the_whole_block_stays_outside_the_segment():
    document = read_document("a.md", "**전체가 굵다**\n\n[링크만 있다](http://a.b)\n".encode())
    assert document.segments == ["전체가 굵다", "링크만 있다"]
    assert document.render(["All bold", "Only a link"]).decode() == "**All bold**\n\n[Only a link](http://a.b)\n"


def test_md_placeholders_pass_through_the_term_protector():
    """protect.py numbers its own placeholders from 1 and restores; ours must come back intact."""
    _, segment = one("a.md", "서울은 [한국의 수도](http://a.kr)이며 인구는 약 950만 명이다.\n")
    shielded = Protector().protect(segment)
    assert "950만" not in shielded.text  # the amount is still protected, not swallowed with a token
    assert not [span for span in shielded.spans if "Xq" in span.original]  # our tokens are no terms of its own
    copied, _, lost = shielded.restore(shielded.text)  # a model that copies every placeholder
    assert not lost and tokens(copied) == tokens(segment)


# ---------------------------------------------------------------- .html

def test_html_sentence_with_inline_tags_is_one_segment_and_emphasis_is_found_as_a_phrase():
    document = read_document("a.html", "<p>이것은 <em>매우</em> 중요한 문장입니다.</p>".encode())
    assert document.segments == ["이것은 매우 중요한 문장입니다.", "매우"]
    assert document.render(["This is a very important sentence.", "Very"]) == (
        b"<p>This is a <em>very</em> important sentence.</p>")


def test_html_link_and_bold_keep_their_attributes_and_text_is_escaped():
    source = '<p>우리 회사는 <b>2010년</b>에 설립되었고 <a href="/team?a=1&amp;b=2">팀</a>이 있다.</p>'
    document = read_document("a.html", source.encode())
    link, end_link = tokens(document.segments[0])
    assert document.segments[1:] == ["2010년"]
    out = document.render([f"Founded in 2010, we have a {link} team {end_link} & more.", "2010"]).decode()
    assert out == '<p>Founded in <b>2010</b>, we have a <a href="/team?a=1&amp;b=2">team</a> &amp; more.</p>'


def test_html_dropped_pair_leaves_no_token_and_no_half_tag():
    source = "<p><b>2010</b>년 설립</p>"
    _, segment = one("a.html", source)
    out = rendered("a.html", source, "Established in 2010.")
    assert out == "<p>Established in 2010.</p>"
    out = rendered("a.html", source, f"Established in {tokens(segment)[1]} 2010 {tokens(segment)[0]}.")
    assert out == "<p>Established in 2010.</p>"


def test_html_line_break_and_block_tags_end_segments():
    document = read_document("a.html", "<p>첫째 줄입니다.<br>둘째 줄입니다.</p><div>셋째</div>".encode())
    assert document.segments == ["첫째 줄입니다.", "둘째 줄입니다.", "셋째"]
    assert document.render(["First.", "Second.", "Third"]) == b"<p>First.<br>Second.</p><div>Third</div>"


def test_html_inline_code_is_kept_whole_and_not_translated():
    source = "<p>명령 <code>ls -l</code>을 실행한다.</p>"
    _, segment = one("a.html", source)
    assert "ls" not in segment
    (code,) = tokens(segment)
    assert rendered("a.html", source, f"Run {code}.") == "<p>Run <code>ls -l</code>.</p>"


# ---------------------------------------------------------------- .docx

def docx_with(*paragraphs) -> bytes:
    """Each paragraph: a list of (text, bold) runs; "\\n" in a text is a line break (w:br)."""
    document = docx.Document()
    for runs in paragraphs:
        paragraph = document.add_paragraph()
        for text, bold in runs:
            for i, line in enumerate(text.split("\n")):
                if i:
                    paragraph.add_run().add_break()
                if line:
                    paragraph.add_run(line).bold = bold
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_docx_translation_goes_into_the_main_run_and_a_bold_stretch_keeps_its_english_bold():
    document = read_document("a.docx", docx_with([("중요: ", True), ("회의는 오후 3시에 시작한다.", None)],
                                                  [("삼성은 ", None), ("새 공장", True), ("을 지었다.", None)]))
    assert document.segments == ["중요: 회의는 오후 3시에 시작한다.", "중요:", "삼성은 새 공장을 지었다.", "새 공장"]

    def runs(*english):
        out = docx.Document(io.BytesIO(document.render(list(english))))
        return [[(r.text, r.bold) for r in paragraph.runs if r.text] for paragraph in out.paragraphs]

    assert runs("Important: the meeting starts at 3 pm.", "Important:", "Samsung built a new factory.",
                "The new factory.") == [[("Important:", True), (" the meeting starts at 3 pm.", None)],
                                        [("Samsung built a ", None), ("new factory", True), (".", None)]]
    # a stretch's English that the line's English does not have as a phrase: the line as one run, as before
    assert runs("Important: the meeting starts at 3 pm.", "Caution", "Samsung built a new plant.",
                "factory") == [[("Important: the meeting starts at 3 pm.", None)], [("Samsung built a new plant.", None)]]


def test_docx_line_breaks_split_segments_and_stay_between_the_lines():
    document = read_document("a.docx", docx_with([("첫 줄이다.\n둘째 줄이다.", None)]))
    assert document.segments == ["첫 줄이다.", "둘째 줄이다."]
    out = docx.Document(io.BytesIO(document.render(["The first line.", "The second line."])))
    assert out.paragraphs[0].text == "The first line.\nThe second line."


# ---------------------------------------------------------------- .srt

def test_srt_dialogue_lines_are_translated_and_written_one_per_speaker():
    source = "1\n00:00:01,000 --> 00:00:03,000\n- 어디 가?\n- 집에 가.\n\n2\n00:00:04,000 --> 00:00:05,000\n<i>어디 가?\n-집에.</i>\n"
    document = read_document("a.srt", source.encode())
    assert document.segments == ["어디 가?", "집에 가.", "어디 가?", "집에."]
    out = document.render(["Where are you going?", "Home.", "Where?", "Home."]).decode()
    assert out == ("1\n00:00:01,000 --> 00:00:03,000\n- Where are you going?\n- Home.\n\n"
                   "2\n00:00:04,000 --> 00:00:05,000\n<i>Where?\n-Home.</i>\n")


def test_srt_cue_without_dialogue_dashes_stays_one_segment():
    document = read_document("a.srt", "1\n00:00:01,000 --> 00:00:03,000\n오늘은 날씨가 좋네요.\n산책하러 갈까요?\n".encode())
    assert document.segments == ["오늘은 날씨가 좋네요. 산책하러 갈까요?"]
    negative = read_document("a.srt", "1\n00:00:01,000 --> 00:00:03,000\n내일 기온은\n-5도까지 떨어진다.\n".encode())
    assert negative.segments == ["내일 기온은 -5도까지 떨어진다."]  # a minus sign is no speaker's dash


def test_md_a_token_glued_after_a_number_or_around_nothing_never_shows():
    source = "삼성은 **2024**년에 [발표](http://a.com)했다."
    _, segment = one("a.md", source)
    bold, end_bold, link, end_link = tokens(segment)
    assert rendered("a.md", source, f"In 2024{bold} {end_bold}, Samsung {link} announced {end_link} it.") == (
        "In 2024, Samsung [announced](http://a.com) it.")
    assert rendered("a.md", source, "In 2024Xq" + "1" * 5000 + " it.").startswith("In 2024")  # no int() overflow


def test_docx_a_line_whose_main_run_is_a_link_keeps_its_english_in_the_link_and_short_phrases_are_not_matched():
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    word = docx.Document()
    paragraph = word.add_paragraph("자세한 ")
    link = OxmlElement("w:hyperlink")
    link.set(qn("w:anchor"), "top")
    linked = paragraph.add_run("삼성전자 공식 홈페이지 안내문")._r
    link.append(linked)  # moves the run into the link
    paragraph._p.append(link)
    paragraph.add_run(" 참고").bold = True
    short = word.add_paragraph("그는 ")
    short.add_run("새").bold = True
    short.add_run(" 공장을 뉴욕에 지었다.")
    out = io.BytesIO()
    word.save(out)
    document = read_document("a.docx", out.getvalue())
    assert document.segments == ["자세한 삼성전자 공식 홈페이지 안내문 참고", "그는 새 공장을 뉴욕에 지었다.", "새"]
    written = docx.Document(io.BytesIO(document.render(["For details, see the official Samsung site.",
                                                        "He built a new factory in New York.", "New"])))
    linked_text = written.paragraphs[0]._p.xpath("./w:hyperlink/w:r/w:t/text()")
    assert linked_text == ["For details, see the official Samsung site."]  # the English stays in the link
    assert [(r.text, r.bold) for r in written.paragraphs[1].runs if r.text] == [
        ("He built a new factory in New York.", None)]  # "New" alone is too short to be found for sure


@pytest.mark.parametrize("english, korean, line, found", [
    ("Banks", "은행", "Farm loans from a bank rose.", "bank"),
    ("Our workers", "노동자", "The workers went on strike.", "workers"),
    ("Factories", "공장", "The factory was closed.", "factory"),
    ("The capital of Korea", "한국의 수도", "Seoul is the capital of Korea.", "the capital of Korea"),
    ("NSW", "NSW", "He led the NSW government.", "NSW"),  # short, but written so in the Korean
    ("Important:", "중요:", "Important: read this.", "Important:"),
    ("New", "새", "He built it in New York.", None),  # short, and a word of another phrase
    ("the bank", "은행", "The banker left.", None),  # whole words only
    ("Critical", "시소의", "The owner shows the work.", None),
    ("To Category", "카테고리에", "It applies to all state categories.", "categories"),  # by stems, past "to"
    ("Supported", "지원이", "They need political support.", "support"),
    ("Markets and", "시장과", "He noted that the market is small.", "market"),
    ("Care", "자동차", "Germany's largest car makers.", None),  # under 5 letters: no stems
])
def test_a_stretchs_english_is_found_in_the_lines_as_whole_words_with_plural_or_singular(english, korean, line, found):
    span = find_phrase(english, korean, line)
    assert (line[span[0]:span[1]] if span else None) == found


def test_a_phrase_is_not_found_where_another_was_placed():
    line = "The bank and the bank."
    first = find_phrase("bank", "은행", line)
    assert find_phrase("bank", "은행", line, [first]) == (17, 21)


def test_docx_formatted_phrases_are_found_in_either_order():
    document = read_document("a.docx", docx_with([("", None), ("삼성", True), ("은 ", None), ("공장", False),
                                                  ("을 지었다.", None)]))
    assert document.segments[1:] == ["삼성"]
    document = read_document("a.docx", docx_with([("삼성", True), ("은 새 공장을 ", None), ("서울", True),
                                                  ("에 지었다.", None)]))
    assert document.segments == ["삼성은 새 공장을 서울에 지었다.", "삼성", "서울"]
    out = docx.Document(io.BytesIO(document.render(["In Seoul, Samsung built a new factory.", "Samsung", "Seoul"])))
    assert [(r.text, r.bold) for r in out.paragraphs[0].runs if r.text] == [
        ("In ", None), ("Seoul", True), (", ", None), ("Samsung", True), (" built a new factory.", None)]


def docx_with_link(before: str, linked: str, after: str, url: str = "", anchor: str = "") -> bytes:
    """A .docx of one paragraph: `before`, a link holding `linked` (to `url`, or to a bookmark), `after`."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    word = docx.Document()
    paragraph = word.add_paragraph(before)
    link = OxmlElement("w:hyperlink")
    if url:
        link.set(qn("r:id"), paragraph.part.relate_to(url, docx.opc.constants.RELATIONSHIP_TYPE.HYPERLINK,
                                                      is_external=True))
    else:
        link.set(qn("w:anchor"), anchor)
    link.append(paragraph.add_run(linked)._r)  # moves the run into the link
    paragraph._p.append(link)
    paragraph.add_run(after)
    out = io.BytesIO()
    word.save(out)
    return out.getvalue()


def test_docx_a_link_keeps_its_english_as_its_text_at_its_phrase_or_after_the_line():
    document = read_document("a.docx", docx_with_link("자세한 내용은 ", "공식 홈페이지", "에서 확인할 수 있다.",
                                                      url="http://example.com/detail"))
    assert document.segments == ["자세한 내용은 공식 홈페이지에서 확인할 수 있다.", "공식 홈페이지"]

    def written(*english):
        result = docx.Document(io.BytesIO(document.render(list(english)))).paragraphs[0]
        linked = "".join(result._p.xpath("./w:hyperlink//w:t/text()"))
        return result.text, linked

    assert written("Details can be found on the official homepage.", "The official homepage") == (
        "Details can be found on the official homepage.", "the official homepage")
    assert written("Details can be confirmed there.", "Official homepage") == (
        "Details can be confirmed there. Official homepage", "Official homepage")  # still a link, after the line


def test_docx_a_link_across_a_line_break_or_with_a_tab_is_not_moved():
    from docx.oxml import OxmlElement

    word = docx.Document()
    paragraph = word.add_paragraph("첫 줄의 긴 문장과 ")
    link = OxmlElement("w:hyperlink")
    inside = paragraph.add_run("링크 시작")
    inside.add_break()
    inside.add_text("링크 끝")
    link.append(inside._r)
    paragraph._p.append(link)
    paragraph.add_run(" 둘째 줄의 긴 문장")
    out = io.BytesIO()
    word.save(out)
    document = read_document("a.docx", out.getvalue())
    assert not any(document.stretches)  # its text goes to the main runs, its break stays where it was


def test_docx_a_link_without_letters_keeps_its_text_where_the_english_has_it_or_after_the_line():
    document = read_document("a.docx", docx_with_link("이 연구는 이미 발표되었다", "[1]", ".", anchor="note1"))
    assert document.segments == ["이 연구는 이미 발표되었다[1].", "[1]"]

    def written(english):
        result = docx.Document(io.BytesIO(document.render([english, "[1]"]))).paragraphs[0]
        return result.text, result._p.xpath("./w:hyperlink//w:t/text()")

    assert written("This study has already been published[1].") == (
        "This study has already been published[1].", ["[1]"])  # the link at its place, not doubled
    assert written("This study has already been published.") == (
        "This study has already been published. [1]", ["[1]"])  # dropped by the model: still a link, after the line


@pytest.mark.parametrize("english, line, found", [
    ("[1]", "Published[1] in 2021.", "[1]"),
    ("1", "Published in 2021.", None),  # not a digit inside a number
    ("(2)", "See (2) below.", "(2)"),
])
def test_a_stretch_without_letters_is_found_as_written(english, line, found):
    span = find_phrase(english, english, line)
    assert (line[span[0]:span[1]] if span else None) == found


def test_html_korean_alt_title_and_placeholder_texts_are_translated_wherever_their_tag_goes():
    source = ("<p>사진: <img src='cat.png' alt=\"고양이 &amp; 개\" width=3> 귀엽다.</p>\n"
              "<img src=a.png alt=로고 data-title='제목=아님'>\n<input placeholder='검색어' value='검색어'>"
              "<INPUT TYPE=Submit value='검색어'>"
              '<img alt="Logo" title="로고">')
    document = read_document("a.html", source.encode())
    assert document.segments == ["사진:  Xq51  귀엽다.", "고양이 & 개", "로고", "검색어"]  # each text once
    english = {"사진:  Xq51  귀엽다.": "Photo:  Xq51  cute.", "고양이 & 개": 'Cats & "dogs"', "로고": "Logo",
               "검색어": "Search terms"}
    out = document.render([english[s] for s in document.segments]).decode()
    assert out == ("<p>Photo: <img src='cat.png' alt=\"Cats &amp; &quot;dogs&quot;\" width=3> cute.</p>\n"
                   "<img src=a.png alt=\"Logo\" data-title='제목=아님'>\n"
                   "<input placeholder=\"Search terms\" value='검색어'>"  # a text box's value is the user's
                   "<INPUT TYPE=Submit value=\"Search terms\">"  # a button's is its label
                   '<img alt="Logo" title="Logo">')
    only_labels = read_document("a.html", '<html lang="ko"><img alt="지도"></html>'.encode())
    assert only_labels.render(["Map"]).decode() == '<html lang="en"><img alt="Map"></html>'


def test_a_link_the_model_stretched_over_other_markup_keeps_its_text_and_goes_after_the_block():
    source = '<p>회사의 <a href="https://a.kr/n">발표</a>에 따르면 <em>3.5%</em> 인상된다.</p>'
    _, segment = one("a.html", source)
    link, end_link, em, end_em = tokens(segment)
    stretched = f"{link} announcement returns {em} 3.5% {end_em}, according to {end_link}."
    assert rendered("a.html", source, stretched) == (
        '<p>announcement returns <em>3.5%</em>, according to. <a href="https://a.kr/n">https://a.kr/n</a></p>')
    in_place = f"According to the {link} announcement {end_link}, it rises {em} 3.5% {end_em}."
    assert rendered("a.html", source, in_place) == (
        '<p>According to the <a href="https://a.kr/n">announcement</a>, it rises <em>3.5%</em>.</p>')


@pytest.mark.parametrize("name, source", [
    ("a.md", "삼성은 **새 공장**을 지었다.\n"),
    ("a.html", "<p>삼성은 <b>새 공장</b>을 지었다.</p>"),
    ("a.docx", None),
])
def test_a_formatted_phrase_not_found_in_the_english_is_named_after_rendering(name, source):
    data = docx_with([("삼성은 ", None), ("새 공장", True), ("을 지었다.", None)]) if source is None else source.encode()
    document = read_document(name, data)
    assert document.segments[1:] == ["새 공장"]
    document.render(["Samsung built a new factory.", "New factory"])
    assert document.unformatted == []
    document.render(["Samsung built a plant.", "New factory"])
    assert document.unformatted == ["새 공장"]
    document.render(document.segments)  # nothing translated: nothing lost
    assert document.unformatted == []


@pytest.mark.parametrize("english, korean, line, found", [
    ("1", "1", "Growth was 1.5%.1", (16, 17)),  # a footnote after the full stop, not the 1 of 1.5%
    ("1", "1", "It rose 1% in 1-2 weeks.", None),
    ("Policy", "정책", "The police left.", None),  # stems, not shared letters
    ("International", "국제", "The internal report is about international trade.", (29, 42)),
    ("In US", "미국에서", "He told us so.", None),  # under 4 letters without the preposition
    ("Of the", "그", "The plan.", None),
])
def test_loose_matches_stop_where_they_would_be_wrong(english, korean, line, found):
    assert find_phrase(english, korean, line) == found


def test_an_exact_match_later_in_a_paragraph_beats_a_stem_match_before_a_link():
    source = '<p>내부 보고서는 <a href="x">링크</a> 참조, <b>국제</b> 무역에 관한 것이다.</p>'
    document = read_document("a.html", source.encode())
    link, end_link = tokens(document.segments[0])
    out = document.render([f"The internal report, see {link} link {end_link}, is about international trade.",
                           "International"]).decode()
    assert out == ('<p>The internal report, see <a href="x">link</a>, is about <b>international</b> trade.</p>')


def test_html_labels_are_translated_where_their_tags_are_not_where_the_same_text_is_written_elsewhere():
    source = ('<p>사진 <img src="cat.png"\r\n alt="고양이 > 개"> 귀엽다.</p>\r\n'
              '<script>var s = "<img src=\'c.png\' alt=\'고양이 > 개\'>";</script>\r\n'
              '<textarea><img alt="고양이 > 개"></textarea>')
    document = read_document("a.html", source.encode())
    assert document.segments == ["사진  Xq51  귀엽다.", "고양이 > 개"]
    out = document.render(["Photo  Xq51  cute.", "Cat > dog"]).decode()
    assert out == ('<p>Photo <img src="cat.png"  alt="Cat &gt; dog"> cute.</p>\r\n'  # a translated block: one line
                   '<script>var s = "<img src=\'c.png\' alt=\'고양이 > 개\'>";</script>\r\n'
                   '<textarea><img alt="고양이 > 개"></textarea>')
    assert document.render(["Photo  Xq51  cute.", ""]).decode().startswith(
        '<p>Photo <img src="cat.png"  alt="고양이 > 개"> cute.')  # no English: the Korean, not an empty alt


def test_formatting_whose_markup_the_model_dropped_is_named_and_a_dropped_link_is_not():
    source = "삼성은 **2024**년에 [발표](http://a.com)했다."
    document, segment = one("a.md", source)
    bold, end_bold, link, end_link = tokens(segment)
    document.render([f"In {bold} 2024 {end_bold}, Samsung {link} announced {end_link} it."])
    assert document.unformatted == []
    document.render(["In 2024, Samsung announced it."])  # both pairs dropped: the link is written after it
    assert document.unformatted == ["2024"]
