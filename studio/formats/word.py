"""Word documents (.docx), opened with `python-docx`, after the zip is checked: a file that is not a zip,
a member count or declared uncompressed size over the limits, a member that inflates suspiciously (a zip
bomb), an encrypted member, or an XML part that is not well-formed is refused before python-docx parses it.

Segments: every line with letters of every paragraph in the body (tables and nested tables, text boxes
and content controls included, in document order), then in each header and footer; a paragraph's line
breaks (`w:br`, `w:cr`) end its lines, so they stay where they were. A line's text is its runs' `w:t`
text (hyperlinks and tracked insertions included, deleted text and field codes not), tabs read as
spaces. On render a translated line's text goes into its run with the most characters, keeping that
run's formatting (the line's main formatting: a bold "Note: " before it stays bold and empty), and the
other runs' text in the line is emptied. What is lost: formatting that differed between the runs of one
translated line (a bold word, a link's text: the link target is kept, its text moves to the main run),
and the place of tabs inside it. Styles, images, tables, numbering, untranslated lines and every other
part are kept.
Not translated: footnotes, endnotes, comments, charts and SmartArt text."""

from __future__ import annotations

import io
import zipfile
import zlib

from lxml import etree

from studio.errors import DataError
from studio.formats.base import Document, FormatLimits, check_segments, has_words, normalize_space, one_line

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_P, _R, _T = f"{{{_W}}}p", f"{{{_W}}}r", f"{{{_W}}}t"
_TAB = f"{{{_W}}}tab"
_BREAKS = {f"{{{_W}}}br", f"{{{_W}}}cr"}
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_HEADER = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header"
_FOOTER = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer"
_RATIO_FROM = 1_000_000  # members smaller than this are never called bombs, whatever their ratio


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


def _write(line, translation: str) -> None:
    """The translation goes into the line's run with the most characters (the paragraph's main formatting,
    not a bold "Note: " before it); the other runs' text in the line is emptied."""
    texts = [(run, t) for run, t in line if t.tag == _T]
    length: dict = {}
    for run, t in texts:
        length[run] = length.get(run, 0) + len(t.text or "")
    main = max(length, key=length.get)  # the first of the longest, dict order being the line's order
    for _, t in texts:
        t.text = ""
    target = next(t for run, t in texts if run is main)
    target.text = one_line(translation)
    target.set(_XML_SPACE, "preserve")


def _open(name: str, data: bytes):
    """(python-docx document, [(line, segment)] of its paragraphs' lines with letters, in order)."""
    import docx  # python-docx

    try:
        document = docx.Document(io.BytesIO(data))
        parts = [document.part] + [rel.target_part for rel in document.part.rels.values()
                                   if not rel.is_external and rel.reltype in (_HEADER, _FOOTER)]
        paragraphs = []
        for part in parts:
            for paragraph in part.element.iter(_P):
                for line in _lines(_runs(paragraph)):
                    segment = normalize_space(_text(line))
                    if has_words(segment):
                        paragraphs.append((line, segment))
    except Exception as error:  # python-docx raises many kinds for a package that is not a Word file
        raise DataError(name, f"is not a Word document python-docx can open: {error}") from None
    return document, paragraphs


def read_docx(name: str, data: bytes, limits: FormatLimits) -> Document:
    _check_zip(name, data, limits)
    _, paragraphs = _open(name, data)
    segments = [segment for _, segment in paragraphs]
    check_segments(name, segments, limits, "paragraphs", empty=False)

    def render(translations: list[str]) -> bytes:
        document, fresh = _open(name, data)  # a fresh copy each time: render can be called again
        for (line, segment), translation in zip(fresh, translations):
            if translation != segment:
                _write(line, translation)
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()

    return Document(name, ".docx", segments, render)
