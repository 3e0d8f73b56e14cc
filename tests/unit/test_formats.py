"""studio.formats: every format gives its input back byte for byte when each segment is its own
translation, changes only text when the translation differs, and refuses bad files with a DataError
naming the file and the place. All files are tiny and made here."""

import io
import random
import re
import struct
import zipfile
import zlib

import docx
import pytest
from markdown_it import MarkdownIt

from studio.data.readers import read_text_lines
from studio.errors import DataError
from studio.formats import FORMATS, Document, FormatLimits, output_name, read_document
from studio.formats.subtitles import wrap_cue


def marked(document: Document) -> bytes:
    """Render with a translator whose output is easy to find: upper case between « » (formatted stretches, translated
    alone, without « », so that their lines have them)."""
    stretches = document.stretches or [False] * len(document.segments)
    return document.render([s.upper() if stretch else f"«{s.upper()}»" for s, stretch in zip(document.segments, stretches)])


def refused(name: str, data: bytes, *fragments: str, limits: FormatLimits | None = None) -> str:
    with pytest.raises(DataError) as caught:
        read_document(name, data, limits)
    message = str(caught.value)
    assert message.startswith(name), message
    for fragment in fragments:
        assert fragment in message, message
    return message


# ---------------------------------------------------------------- the table and the shared rules

def test_formats_table_lists_the_accepted_types():
    assert set(FORMATS) == {".txt", ".srt", ".md", ".html", ".htm", ".docx"}


@pytest.mark.parametrize("name,expected", [("report.docx", "report.en.docx"), ("notes.ko.md", "notes.en.md"),
                                           ("dir/sub.title.srt", "dir/sub.title.en.srt"), ("plain", "plain.en")])
def test_output_name(name, expected):
    assert output_name(name) == expected


@pytest.mark.parametrize("name", ["slides.pdf", "README", "archive.txt.gz"])
def test_unsupported_type_is_refused_with_the_accepted_list(name):
    refused(name, b"text", "not supported", ".txt", ".docx")


def test_suffix_is_case_insensitive():
    assert read_document("SHOUT.TXT", "안녕\n".encode()).segments == ["안녕"]


@pytest.mark.parametrize("name", ["a.txt", "a.srt", "a.md", "a.html", "a.docx"])
def test_file_over_the_byte_limit_is_refused_before_reading(name):
    refused(name, b"x" * 101, "101 bytes", "limit is 100", limits=FormatLimits(max_bytes=100))


@pytest.mark.parametrize("name", ["a.txt", "a.srt", "a.md", "a.html", "a.docx"])
def test_empty_file_is_refused(name):
    refused(name, b"", "empty")


@pytest.mark.parametrize("name", ["a.txt", "a.srt", "a.md", "a.html"])
def test_undecodable_text_names_the_line(name):
    refused(name, "1\n00:00:01,000 --> 00:00:02,000\n안녕\n".encode() + b"\xff\xfe\n", f"{name}:4:", "UTF-8")


@pytest.mark.parametrize("name", ["a.txt", "a.srt", "a.md", "a.html"])
def test_korean_in_the_legacy_cp949_encoding_is_read_and_written_back_as_utf8(name):
    body = "1\n00:00:01,000 --> 00:00:02,000\n안녕하세요. 똠방각하\n" if name.endswith(".srt") else "안녕하세요. 똠방각하\n"
    if name.endswith(".html"):
        body = ('<html><head><meta charset="EUC-KR"></head><body><p>안녕하세요. 똠방각하</p>'
                "<pre>charset=euc-kr</pre></body></html>\n")
    document = read_document(name, body.encode("cp949"))  # 똠 is in CP949 only, not in EUC-KR
    assert document.segments == ["안녕하세요. 똠방각하"]
    assert any("read as CP949" in warning and "written as UTF-8" in warning for warning in document.warnings)
    written = document.render(["Hello. Your Excellency"]).decode("utf-8")
    assert "Hello. Your Excellency" in written
    if name.endswith(".html"):  # the page's declaration follows; the same words in its text do not
        assert '<meta charset="utf-8">' in written and "<pre>charset=euc-kr</pre>" in written
    # Latin-1 bytes can decode as CP949 too, into Hanja: not taken for Korean
    refused(name, "café crème brûlée\n".encode("latin-1") * 3, "nor Korean in CP949")  # not CP949 at all
    refused(name, "Ärger Ärmel Äpfel\n".encode("latin-1") * 3, "nor Korean in CP949")  # CP949: 훣ger 훣mel 훡fel
    refused(name, b"\xef\xbb\xbf" + "안녕\n".encode("cp949"), "not valid UTF-8 (byte")  # a UTF-8 BOM: UTF-8 only


@pytest.mark.parametrize("name", ["a.txt", "a.srt", "a.md", "a.html"])
def test_binary_content_in_a_text_format_is_refused(name):
    refused(name, b"hello\x00\x01\x02", "binary")
    refused(name, make_docx(["안녕"]), "ZIP archive")


def test_render_wants_one_translation_per_segment():
    document = read_document("a.txt", "하나\n둘\n".encode())
    with pytest.raises(ValueError):
        document.render(["one"])


@pytest.mark.parametrize("name,unit,data", [
    ("a.txt", "lines", "가\n나\n다\n라\n"),
    ("a.srt", "cues", "".join(f"{i}\n00:00:0{i},000 --> 00:00:0{i},500\n자막 {i}\n\n" for i in range(1, 5))),
    ("a.md", "text runs", "# 가\n\n나\n\n- 다\n- 라\n"),
    ("a.html", "text nodes", "<p>가</p><p>나</p><p>다</p><p>라</p>"),
])
def test_too_many_segments_is_refused(name, unit, data):
    refused(name, data.encode(), f"4 {unit}", "limit is 3", limits=FormatLimits(max_segments=3))


SAMPLES = {}  # filled below: one valid file per format, for the fuzz test


@pytest.mark.parametrize("name", ["a.txt", "a.srt", "a.md", "a.html", "a.docx"])
def test_damaged_files_give_a_data_error_or_a_document_never_a_library_exception(name):
    rng = random.Random(name)
    sample = SAMPLES[name]() if callable(SAMPLES[name]) else SAMPLES[name]
    for _ in range(25):
        data = bytearray(sample)
        for _ in range(rng.randint(1, 6)):
            if not data:
                break
            position = rng.randrange(len(data))
            if rng.random() < 0.5:
                data[position] = rng.randrange(256)
            else:
                del data[position: position + rng.randint(1, 40)]
        try:
            document = read_document(name, bytes(data))
        except DataError:
            continue
        document.render(document.segments)
        document.render([s.upper() for s in document.segments])


# ---------------------------------------------------------------- .txt

TXT = "\ufeff첫 줄\r\n\r\n  들여쓴 줄  \r\n셋째\r넷째\n마지막".encode()
SAMPLES["a.txt"] = TXT


def test_txt_round_trip_is_exact_and_lines_match_todays_reader(tmp_path):
    document = read_document("a.txt", TXT)
    path = tmp_path / "a.txt"
    path.write_bytes(TXT)
    assert document.segments == read_text_lines(path)
    assert document.segments == ["첫 줄", "", "  들여쓴 줄  ", "셋째", "넷째", "마지막"]
    assert document.render(document.segments) == TXT


def test_txt_translation_keeps_line_count_breaks_and_bom():
    document = read_document("a.txt", TXT)
    out = document.render(["one", "", "two\nlines", "three", "four", "last"])
    assert out == "\ufeffone\r\n\r\n  two lines\r\nthree\rfour\nlast".encode()  # indentation kept


def test_txt_with_only_blank_lines_has_nothing_to_translate():
    refused("a.txt", b"\n  \n\n", "no text to translate")


# ---------------------------------------------------------------- .srt

SRT = ("\ufeff1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>안녕하세요, 오늘은</i>\r\n<i>날씨가 좋네요</i>\r\n\r\n"
       "2\r\n00:00:03,000 --> 00:00:04,000\r\n♪\r\n\r\n"
       "7\r\n00:00:05.000 --> 00:00:06,000  X1:0\r\n{\\an8}짧은 줄\r\n").encode()
SAMPLES["a.srt"] = SRT


def test_srt_round_trip_is_exact():
    document = read_document("a.srt", SRT)
    assert document.segments == ["안녕하세요, 오늘은 날씨가 좋네요", "짧은 줄"]  # the music cue has no words
    assert document.render(document.segments) == SRT


def test_srt_keeps_numbers_and_timecodes_and_rewraps_a_multiline_cue():
    document = read_document("a.srt", SRT)
    long = "Hello, today the weather is really very nice and it keeps going"
    out = document.render([long, "Short line"]).decode("utf-8-sig")
    cues = out.split("\r\n\r\n")
    first = cues[0].split("\r\n")
    assert first[:2] == ["1", "00:00:01,000 --> 00:00:02,500"]
    text_lines = first[2:]
    assert len(text_lines) == 2 and all(len(re.sub("</?i>", "", line)) <= 42 for line in text_lines)
    assert " ".join(text_lines) == f"<i>{long}</i>"  # the tags that opened and closed the cue are kept
    assert cues[1] == "2\r\n00:00:03,000 --> 00:00:04,000\r\n♪"
    assert cues[2] == "7\r\n00:00:05.000 --> 00:00:06,000  X1:0\r\n{\\an8}Short line\r\n"


def test_wrap_cue_prefers_one_line_then_two_balanced_lines():
    assert wrap_cue("short") == ["short"]
    two = wrap_cue("one two three four five six seven eight nine ten eleven")
    assert len(two) == 2 and abs(len(two[0]) - len(two[1])) <= 6
    many = wrap_cue(" ".join(["word"] * 40))
    assert len(many) > 2 and all(len(line) <= 42 for line in many)


def test_truncated_srt_names_the_cue():
    start = "1\n00:00:01,000 --> 00:00:02,000\n안녕\n\n"
    refused("a.srt", (start + "2\n00:00:0").encode(), "cue 2", "line 5")
    refused("a.srt", (start + "2\n00:00:03,000 --> 00:00:0").encode(), "cue 2", "before it starts")


def test_srt_that_is_plain_text_is_refused():
    refused("a.srt", "그냥 글입니다\n두 번째 줄\n".encode(), "cue 1", "not a subtitle cue")


# ---------------------------------------------------------------- .md

MD = """---
title: 제목
tags: [a, b]
---
# 제목 *강조 표시* ##

> 인용 첫 줄
> 계속 `인라인 코드` 여기

- 항목 **굵은 글씨** [링크 글](http://a.b/c_d "제목") 그리고 <https://x.y/z>
  1. 중첩 항목

| 가 | 나 \\| 다 |
|---|:-:|
| 라 | ![대체 글](그림.png) |

    들여쓴 코드

```python
print("코드")
```

<div class="box">
원시 HTML
</div>

문단 <span class="q">안쪽 글</span> \\*별표\\* snake_case https://example.com/경로 끝.
[참조 링크][ref] 문단

2024

[ref]: http://ref.example "참조"
"""
SAMPLES["a.md"] = MD.encode()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_md_round_trip_is_exact(newline):
    data = ("\ufeff" + MD.replace("\n", newline)).encode()
    document = read_document("a.md", data)
    assert document.render(document.segments) == data
    assert not document.warnings


def test_md_segments_are_whole_blocks_with_links_and_code_as_placeholders_and_formatted_stretches_after():
    document = read_document("a.md", MD.encode())
    assert document.segments == [
        "제목 강조 표시", "강조 표시", "인용 첫 줄 계속  Xq51  여기", "항목 굵은 글씨  Xq51  링크 글  Xq52  그리고", "굵은 글씨",
        "중첩 항목", "가", "나 | 다", "라", "대체 글",
        "문단 안쪽 글 *별표* snake_case  Xq51  끝.  Xq52  참조 링크  Xq53  문단", "안쪽 글"]  # each stretch after its text
    assert [i for i, stretch in enumerate(document.stretches) if stretch] == [1, 4, 11]


def test_md_translation_changes_only_text():
    out = marked(read_document("a.md", MD.encode())).decode()
    for kept in ["---\ntitle: 제목\ntags: [a, b]\n---\n", "`인라인 코드`", "](http://a.b/c_d \"제목\")",
                 "<https://x.y/z>", "    들여쓴 코드\n", "```python\nprint(\"코드\")\n```\n",
                 "<div class=\"box\">\n원시 HTML\n</div>\n", "<span class=\"q\">", "https://example.com/경로",
                 "](그림.png)", "][ref]", "\n2024\n", "[ref]: http://ref.example \"참조\"\n", "|---|:-:|\n"]:
        assert kept in out
    assert out.startswith("---\ntitle: 제목\ntags: [a, b]\n---\n# «제목 *강조 표시*» ##\n")
    assert "- «항목 **굵은 글씨** [링크 글](http://a.b/c_d \"제목\") 그리고» <https://x.y/z>\n" in out
    assert "  1. «중첩 항목»\n" in out
    assert "| «가» | «나 \\| 다» |" in out  # the cell's pipe stays escaped
    assert "| «라» | ![«대체 글»](그림.png) |" in out  # markup around all of a cell stays outside the segment
    assert "«문단 <span class=\"q\">안쪽 글</span> \\*별표\\* SNAKE\\_CASE https://example.com/경로" in out


def test_md_translation_cannot_create_markup():
    data = "# 제목\n\n- 항목\n\n문단\n".encode()
    document = read_document("a.md", data)
    out = document.render(["# not a heading *", "1. not a list [x](y)", "> not a quote `x` | <b>"])
    parse = MarkdownIt("commonmark").enable(["table"]).parse
    assert [t.type for t in parse(out.decode())] == [t.type for t in parse(data.decode())]


def test_md_hard_breaks_split_segments_and_stay():
    document = read_document("a.md", "첫 줄  \n둘째 줄\\\n셋째\n넷째 줄\n".encode())
    assert document.segments == ["첫 줄", "둘째 줄", "셋째 넷째 줄"]
    assert marked(document) == "«첫 줄»  \n«둘째 줄»\\\n«셋째 넷째 줄»\n".encode()


def test_md_task_boxes_footnotes_and_link_destinations_with_parentheses_stay():
    data = ("- [x] 끝난 일\n- [ ] 남은 일\n\n각주[^1] [위키](http://x.org/a_(b)_c) 문장.\n\n"
            "[^1]: 각주 내용.\n").encode()
    document = read_document("a.md", data)
    assert document.segments == ["끝난 일", "남은 일", "각주  Xq51  Xq52  위키  Xq53  문장.", "각주 내용."]
    assert marked(document).decode() == ("- [x] «끝난 일»\n- [ ] «남은 일»\n\n"
                                         "«각주 [^1] [위키](http://x.org/a_(b)_c) 문장.»\n\n[^1]: «각주 내용.»\n")


def test_md_with_only_code_has_nothing_to_translate():
    refused("a.md", "```\n코드\n```\n\n    들여쓴 코드\n".encode(), "no text to translate")


# ---------------------------------------------------------------- .html

HTML = """<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>제목</title>
<style>p::before { content: "<스타일>"; }</style>
<script>var s = "<b>스크립트</b>"; if (a<b) {}</script></head>
<body>
  <!-- 주석 -->
  <p class="x" title="제목 속성">톰 &amp; 제리&nbsp;<b>굵은 글씨</b> 꼬리
    이어짐</p>
  <pre>미리  서식</pre> <code>코드</code> <textarea>입력</textarea>
  <img alt="대체 글" src="a.png"> &copy; 2024
  <p>닫히지 않은 <i>기울임
</body></html>
"""
SAMPLES["a.html"] = HTML.encode()


def test_html_round_trip_is_exact():
    data = ("\ufeff" + HTML.replace("\n", "\r\n")).encode()
    document = read_document("a.html", data)
    assert document.segments == ["제목", "톰 & 제리\xa0굵은 글씨 꼬리 이어짐", "굵은 글씨", "닫히지 않은  Xq51  기울임",
                                 "제목 속성", "대체 글"]  # the attributes a reader sees, last
    assert document.render(document.segments) == data


def test_html_translation_changes_only_text_and_is_escaped():
    document = read_document("a.htm", HTML.encode())
    out = document.render([s if stretch else f"{s} <&>" for s, stretch in zip(document.segments, document.stretches)]
                          ).decode()
    for kept in ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', "<!-- 주석 -->",  # English now
                 '<style>p::before { content: "<스타일>"; }</style>',
                 '<script>var s = "<b>스크립트</b>"; if (a<b) {}</script>',
                 '<p class="x" title="제목 속성 &lt;&amp;&gt;">',  # attributes a reader sees are translated
                 "<pre>미리  서식</pre> <code>코드</code> <textarea>입력</textarea>",
                 '<img alt="대체 글 &lt;&amp;&gt;" src="a.png"> &copy; 2024', "\n</body></html>\n"]:
        assert kept in out
    assert "<title>제목 &lt;&amp;&gt;</title>" in out
    assert "<b>굵은 글씨</b> 꼬리 이어짐 &lt;&amp;&gt;</p>" in out


def test_html_without_closing_tags_works():
    document = read_document("a.html", "<p>하나<p>둘<ul><li>셋".encode())
    assert document.segments == ["하나", "둘", "셋"]
    assert marked(document) == "<p>«하나»<p>«둘»<ul><li>«셋»".encode()


@pytest.mark.parametrize("tail", ["<div class='a", "<!-- 주석", "</p"])
def test_html_cut_short_inside_a_tag_names_the_line(tail):
    refused("a.html", f"<p>하나</p>\n<p>둘</p>\n{tail}".encode(), "a.html:3:", "broken markup")


def test_html_with_only_markup_has_nothing_to_translate():
    refused("a.html", b"<html><body> \n <script>x()</script></body></html>", "no text to translate")


# ---------------------------------------------------------------- .docx

def tiny_png() -> bytes:
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


def make_docx(paragraphs=("첫 문단",), rich=False) -> bytes:
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if rich:
        paragraph = document.add_paragraph("굵은 ")
        paragraph.runs[0].bold = True
        paragraph.add_run("보통").italic = True
        paragraph.add_run(" 끝")
        document.add_paragraph("")
        document.add_paragraph("2024")
        table = document.add_table(rows=1, cols=2)
        table.cell(0, 0).text = "셀 하나"
        table.cell(0, 1).add_table(rows=1, cols=1).cell(0, 0).text = "중첩 셀"
        document.add_picture(io.BytesIO(tiny_png()))
        document.sections[0].header.paragraphs[0].text = "머리글"
        document.sections[0].footer.paragraphs[0].text = "바닥글"
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


SAMPLES["a.docx"] = lambda: make_docx(["첫 문단", "둘째 문단"], rich=True)


def part_texts(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: "|".join(re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", archive.read(name).decode()))
                for name in archive.namelist() if re.fullmatch(r"word/(document|header\d*|footer\d*)\.xml", name)}


def members(data: bytes) -> set[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return set(archive.namelist())


def test_docx_segments_are_paragraphs_with_words_in_body_tables_headers_footers():
    document = read_document("a.docx", make_docx(["첫 문단"], rich=True))
    # each line's stretches in another formatting than its main run (the bold "굵은 ") right after it
    assert document.segments == ["첫 문단", "굵은 보통 끝", "보통", "끝", "셀 하나", "중첩 셀", "머리글", "바닥글"]


def test_docx_round_trip_keeps_parts_and_text():
    data = make_docx(["첫 문단"], rich=True)
    document = read_document("a.docx", data)
    out = document.render(document.segments)
    assert members(out) == members(data)
    assert part_texts(out) == part_texts(data)
    assert any(name.startswith("word/media/") for name in members(out))


def test_docx_translation_goes_into_the_first_run_and_keeps_the_rest():
    data = make_docx(["첫 문단"], rich=True)
    out = marked(read_document("a.docx", data))
    assert members(out) == members(data)  # the image, styles, header and footer parts are all there
    result = docx.Document(io.BytesIO(out))
    assert [p.text for p in result.paragraphs[:4]] == ["«첫 문단»", "«굵은 보통 끝»", "", "2024"]
    runs = result.paragraphs[1].runs
    assert [(r.text, r.bold, r.italic) for r in runs] == [("«굵은 보통 끝»", True, None), ("", None, True),
                                                          ("", None, None)]
    assert result.tables[0].cell(0, 0).text == "«셀 하나»"
    assert result.tables[0].cell(0, 1).tables[0].cell(0, 0).text == "«중첩 셀»"
    assert result.sections[0].header.paragraphs[0].text == "«머리글»"
    assert result.sections[0].footer.paragraphs[0].text == "«바닥글»"
    assert len(result.inline_shapes) == 1


def test_docx_that_is_plain_text_is_refused():
    refused("a.docx", "이건 그냥 글입니다\n".encode(), "not a .docx", "looks like text")


def test_old_doc_file_is_refused_with_a_hint():
    refused("a.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "old .doc file")


def test_docx_render_can_be_called_again():
    document = read_document("a.docx", make_docx(["첫 문단", "둘째 문단"]))
    marked(document)
    again = docx.Document(io.BytesIO(document.render(["one", "둘째 문단"])))
    assert [p.text for p in again.paragraphs] == ["one", "둘째 문단"]


def test_docx_that_is_a_broken_zip_is_refused():
    refused("a.docx", b"PK\x03\x04" + b"\x00" * 60, "not a readable .docx")
    refused("a.docx", make_docx()[:-200], "not a readable .docx")


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


def docx_files() -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(make_docx())) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_zip_bomb_member_is_refused_by_its_ratio():
    files = docx_files() | {"word/media/zeros.bin": b"\x00" * 2_000_000}
    refused("a.docx", zip_of(files), "a.docx!word/media/zeros.bin", "zip bomb")


def test_huge_declared_size_is_refused_before_unpacking():
    data = bytearray(zip_of(docx_files() | {"word/media/small.bin": b"tiny"}))
    target = b"word/media/small.bin"
    for match in re.finditer(re.escape(b"PK\x01\x02"), bytes(data)):  # central directory entries
        at = match.start()
        length = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46: at + 46 + length]) == target:
            struct.pack_into("<I", data, at + 24, 0x7FFF_FFFF)  # declared uncompressed size: 2 GiB
    refused("a.docx", bytes(data), "unpacks to", "zip bomb")


def test_too_many_zip_members_is_refused():
    refused("a.docx", make_docx(), "zip members", limits=FormatLimits(max_members=3))


def test_zip_that_is_not_a_word_document_is_refused():
    refused("a.docx", zip_of({"hello.txt": b"hi"}), "not a Word document")


def test_malformed_xml_part_is_named():
    files = docx_files()
    files["word/document.xml"] = files["word/document.xml"].replace(b"</w:body>", b"")
    refused("a.docx", zip_of(files), "a.docx!word/document.xml", "not well-formed XML")


def test_docx_without_words_has_nothing_to_translate():
    refused("a.docx", make_docx(["", "2024", "  "]), "no text to translate")


def test_docx_over_the_segment_limit_is_refused():
    refused("a.docx", make_docx(["가", "나", "다", "라"]), "4 paragraphs", limits=FormatLimits(max_segments=3))


@pytest.mark.parametrize("name", ["a.txt", "a.md", "a.srt", "a.html"])
def test_a_file_of_control_characters_is_called_so_not_empty(name):
    refused(name, b"\x1c\x1d\x1e\x1f" * 100, "has no text to translate, only control characters")
    refused(name, b"  \r\n\n", "is empty")


def test_a_translated_page_declares_english_in_lang_and_xml_lang_of_html_only():
    document = read_document("a.html", '<html xml:lang="ko" lang="ko-KR"><p lang="ko">안녕</p></html>'.encode())
    assert document.render(["Hello"]) == b'<html xml:lang="en" lang="en"><p lang="ko">Hello</p></html>'
    assert document.render(document.segments) == '<html xml:lang="ko" lang="ko-KR"><p lang="ko">안녕</p></html>'.encode()


def test_a_file_of_wide_or_no_break_spaces_is_empty_not_control_characters():
    refused("a.txt", "\u3000\u3000\n\xa0 \n".encode(), "is empty")
