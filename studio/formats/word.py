"""Word documents (.docx), opened with `python-docx`, after the zip is checked: a file that is not a zip,
a member count or declared uncompressed size over the limits, a member that inflates suspiciously (a zip
bomb), an encrypted member, or an XML part that is not well-formed is refused before python-docx parses it.

Segments: every line with letters of every paragraph in the body (tables and nested tables, text boxes
and content controls included, in document order), then in each header and footer; a paragraph's line
breaks (`w:br`, `w:cr`) end its lines, so they stay where they were. A line's text is its runs' `w:t`
text (hyperlinks and tracked insertions included, deleted text and field codes not), tabs read as
spaces. On render a translated line's text goes into its run with the most characters, keeping that
run's formatting (the line's main formatting), and the other runs' text in the line is emptied. A stretch
of the line in another visible formatting (bold, italic, underline, colour, highlight, size...) is also
translated on its own, and where that English appears in the line's English, as a phrase,
it is given the stretch's formatting ("삼성은 **새 공장**을 지었다." -> "Samsung built a **new factory**.";
`studio.formats.phrases`, as .md and .html do). The line itself is translated as plain text. A link's text
is translated alone too and the link moved to its phrase, or, not found so, written after the line with that
English as its text: it stays a link. What is lost: the formatting of a stretch whose English is not found, a
link's place where that is, the text of a link across a line break or holding a tab, or beside a main run in a
tracked insertion (its text goes to the main run), and the place of tabs inside a line.
Styles, images, tables, numbering, untranslated lines and every other part are kept.
Not translated: footnotes, endnotes, comments, charts and SmartArt text."""

from __future__ import annotations

import copy
import io
import zipfile
import zlib

from lxml import etree

from studio.errors import DataError
from studio.formats.base import Document, FormatLimits, check_segments, has_words, normalize_space, one_line
from studio.formats.phrases import find_phrase

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_P, _R, _T = f"{{{_W}}}p", f"{{{_W}}}r", f"{{{_W}}}t"
_TAB = f"{{{_W}}}tab"
_BREAKS = {f"{{{_W}}}br", f"{{{_W}}}cr"}
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_HEADER = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header"
_FOOTER = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer"
_RATIO_FROM = 1_000_000  # members smaller than this are never called bombs, whatever their ratio
_RPR = f"{{{_W}}}rPr"
# what a reader sees of a run's formatting (not its language, fonts or proofing marks, which split Korean text
# into runs that look the same)
_VISIBLE = {f"{{{_W}}}{name}" for name in ("rStyle", "b", "i", "u", "strike", "dstrike", "color", "highlight",
                                             "shd", "sz", "vertAlign", "caps", "smallCaps")}
_HYPERLINK = f"{{{_W}}}hyperlink"
_VAL = f"{{{_W}}}val"
_OFF = ("0", "false", "off", "none")


def _check_zip(name: str, data: bytes, limits: FormatLimits) -> None:
    """Refuse what must not be unpacked, from the zip's directory alone; then check the XML parts."""
    if not data:
        raise DataError(name, "is empty: there is no text to translate")
    if not data.startswith(b"PK"):
        hint = (" (it looks like an old .doc file, or a password-protected document: save it as .docx "
                "without a password)" if data.startswith(b"\xd0\xcf\x11\xe0")
                else " (it looks like text: save it as .txt?)" if _looks_like_text(data) else "")
        raise DataError(name, f"is not a .docx file: a .docx is a zip archive{hint}")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as error:
        raise DataError(name, f"is not a readable .docx (zip) file: {error}") from None
    with archive:
        if len(members) > limits.max_members:
            raise DataError(name, f"has {len(members):,} zip members; the limit is {limits.max_members:,}")
        total = sum(member.file_size for member in members)
        if total > limits.max_unpacked_bytes:
            raise DataError(name, f"unpacks to {total:,} bytes; the limit is {limits.max_unpacked_bytes:,} "
                                  f"(is it a zip bomb?)")
        for member in members:
            where = f"{name}!{member.filename}"
            if member.flag_bits & 0x1:
                raise DataError(where, "is encrypted; remove the document's password first")
            if member.file_size > _RATIO_FROM and member.file_size > limits.max_ratio * max(member.compress_size, 1):
                raise DataError(where, f"inflates from {member.compress_size:,} to {member.file_size:,} bytes, "
                                       f"over {limits.max_ratio}x: refused as a possible zip bomb")
        names = {member.filename for member in members}
        if "[Content_Types].xml" not in names or "word/document.xml" not in names:
            raise DataError(name, "is a zip archive but not a Word document (no word/document.xml)")
        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False)
        for member in members:
            if member.filename.endswith((".xml", ".rels")):
                where = f"{name}!{member.filename}"
                try:
                    etree.fromstring(archive.read(member), parser)
                except etree.XMLSyntaxError as error:
                    raise DataError(where, f"is not well-formed XML: {error.msg}", error.lineno) from None
                except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, NotImplementedError, EOFError,
                        OSError, ValueError) as error:
                    raise DataError(where, f"cannot be unpacked: {error}") from None


def _looks_like_text(data: bytes) -> bool:
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start > 4090  # a character cut at the end of the sample
    return b"\x00" not in data[:4096]


def _runs(paragraph) -> list:
    """The paragraph's own runs: those whose nearest paragraph is this one (a text box in a run holds
    paragraphs of its own)."""
    runs = []
    for run in paragraph.iter(_R):
        parent = run.getparent()
        while parent is not None and parent.tag != _P:
            parent = parent.getparent()
        if parent is paragraph:
            runs.append(run)
    return runs


def _lines(runs) -> list[list]:
    """The paragraph's text cut at its line breaks (`w:br`, `w:cr`): per line, its (run, w:t or w:tab)."""
    lines: list[list] = [[]]
    for run in runs:
        for child in run:
            if child.tag in _BREAKS:
                lines.append([])
            elif child.tag in (_T, _TAB):
                lines[-1].append((run, child))
    return lines


def _text(line) -> str:
    return "".join((child.text or "") if child.tag == _T else " " for _, child in line)


def _main_run(line):
    """The line's run with the most characters (the paragraph's main formatting, not a bold "Note: " before
    it): the first of the longest, dict order being the line's order."""
    length: dict = {}
    for run, t in line:
        if t.tag == _T:
            length[run] = length.get(run, 0) + len(t.text or "")
    return max(length, key=length.get)


def _write(line, translation: str):
    """The translation goes into the line's main run; the other runs' text in the line is emptied. Returns
    the w:t written."""
    main = _main_run(line)
    texts = [(run, t) for run, t in line if t.tag == _T]
    for _, t in texts:
        t.text = ""
    target = next(t for run, t in texts if run is main)
    target.text = one_line(translation)
    target.set(_XML_SPACE, "preserve")
    return target


def _linked(run) -> bool:
    return run.getparent() is not None and run.getparent().tag == _HYPERLINK


def _movable(link) -> bool:
    """Whether a link can be moved to its English whole: no line break or tab in it (it would take them along)."""
    return not any(child.tag in _BREAKS or child.tag == _TAB for run in link.iter(_R) for child in run)


def _looks(run) -> tuple | None:
    """What a reader sees of a run's formatting (a switch turned off, `<w:b w:val="0"/>`, is no formatting);
    None for a run in a link (its text is not re-formatted)."""
    if _linked(run):
        return None
    properties = run.find(_RPR)
    return tuple(sorted((child.tag, tuple(sorted(child.attrib.items()))) for child in properties
                        if child.tag in _VISIBLE and child.get(_VAL) not in _OFF)) if properties is not None else ()


class _Line:
    """One line of a paragraph (its runs' text between two line breaks): its segment, the stretches in another
    formatting than its main run's (each translated as a segment of its own), and how the English is written."""

    def __init__(self, line: list):
        self.line = line
        self.segment = normalize_space(_text(line))
        self.stretches: list[tuple[object, str]] = []  # (a run of the stretch, its text)
        main = _main_run(line) if any(t.tag == _T for _, t in line) else None
        if main is None or _looks(main) is None or any(child.tag in _BREAKS for child in main):
            return  # the text goes where it always went: a link's main run, a run across lines
        # a link is moved to its phrase (or after the line): only beside a main run that is the paragraph's own
        links = main.getparent() is not None and main.getparent().tag == _P
        groups: list[list] = []  # [first run, looks (a link: its element), text] of consecutive runs that look alike
        for run, child in line:
            looks = run.getparent() if _linked(run) else _looks(run)
            if not groups or groups[-1][1] != looks:  # (elements compare by identity)
                groups.append([run, looks, ""])
            groups[-1][2] += (child.text or "") if child.tag == _T else " "
        plain = _looks(main)
        # a link without letters ("[1]") too: its text is found as written, or it follows the line, never emptied
        self.stretches = [(run, normalize_space(text)) for run, looks, text in groups
                          if (links and _movable(run.getparent()) and text.strip() if _linked(run)
                              else looks != plain and has_words(text))]

    def write(self, translation: str, stretch_english: list[str]) -> list[str]:
        """The line's English in its main run; then each stretch's English, where the line's has it as a phrase
        (`studio.formats.phrases`), in a run of the stretch's formatting (the rest in runs of the main one). A link
        whose English is not found so follows the line with that English as its text: it stays a link. Returns
        the other stretches not found (their formatting is lost)."""
        target = _write(self.line, translation)
        main, text = target.getparent(), target.text
        placed: list[tuple[int, int, object]] = []  # (start, end, a run of the stretch)
        unplaced_links = []  # (a run of the link, its English)
        unformatted = []
        for (run, korean), english in zip(self.stretches, stretch_english):
            found = find_phrase(english, korean, text, [(start, end) for start, end, _ in placed])
            if found:
                placed.append((*found, run))
            elif _linked(run):
                unplaced_links.append((run, one_line(english)))
            elif english != korean:  # (one left untranslated by a stop is not the English's fault)
                unformatted.append(korean)
        placed.sort(key=lambda p: p[0])
        ends = [start for start, _, _ in placed[1:]] + [len(text)]
        target.text = text[:placed[0][0]] if placed else text
        after = main
        for (start, end, run), rest_end in zip(placed, ends):
            formatted, rest = self._formatted(run, text[start:end]), self._run_like(main, text[end:rest_end])
            after.addnext(formatted)  # beside the main run (in its tracked insertion, if any)
            formatted.addnext(rest)
            after = rest
        for run, english in unplaced_links:
            space, link = self._run_like(main, " "), self._formatted(run, english)
            after.addnext(space)
            space.addnext(link)
            after = link
        return unformatted

    def _formatted(self, run, text: str):
        """`text` in `run`'s formatting: a new run like it, or, for a run in a link, the link (moved) holding
        `text` in that run."""
        if not _linked(run):
            return self._run_like(run, text)
        t = next(run.getparent().iter(_T))  # the link's first text (it has one: its text is not blank)
        t.text = text
        t.set(_XML_SPACE, "preserve")
        return run.getparent()

    @staticmethod
    def _run_like(run, text: str):
        """A new run with `run`'s formatting and `text`."""
        made = etree.Element(_R)
        if run.find(_RPR) is not None:
            made.append(copy.deepcopy(run.find(_RPR)))
        t = etree.SubElement(made, _T)
        t.text = text
        t.set(_XML_SPACE, "preserve")
        return made


def _open(name: str, data: bytes):
    """(python-docx document, the `_Line`s of its paragraphs with letters, in order)."""
    import docx  # python-docx

    try:
        document = docx.Document(io.BytesIO(data))
        parts = [document.part] + [rel.target_part for rel in document.part.rels.values()
                                   if not rel.is_external and rel.reltype in (_HEADER, _FOOTER)]
        paragraphs = []
        for part in parts:
            for paragraph in part.element.iter(_P):
                for line in _lines(_runs(paragraph)):
                    line = _Line(line)
                    if has_words(line.segment):
                        paragraphs.append(line)
    except Exception as error:  # python-docx raises many kinds for a package that is not a Word file
        raise DataError(name, f"is not a Word document python-docx can open: {error}") from None
    return document, paragraphs


def read_docx(name: str, data: bytes, limits: FormatLimits) -> Document:
    _check_zip(name, data, limits)
    _, lines = _open(name, data)
    segments = [part for line in lines for part in (line.segment, *[text for _, text in line.stretches])]
    check_segments(name, segments, limits, "paragraphs and formatted phrases", empty=False)

    unformatted: list[str] = []

    def render(translations: list[str]) -> bytes:
        document, fresh = _open(name, data)  # a fresh copy each time: render can be called again
        english = iter(translations)
        unformatted.clear()
        for line in fresh:
            translation, own = next(english), [next(english) for _ in line.stretches]
            if translation != line.segment:
                unformatted.extend(line.write(translation, own))
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()

    return Document(name, ".docx", segments, render,
                    stretches=[s for line in lines for s in (False, *[True] * len(line.stretches))],
                    unformatted=unformatted)
