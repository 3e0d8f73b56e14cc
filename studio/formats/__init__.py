"""Documents translated whole, their structure kept: `read_document(name, data)` picks the reader by the
file's suffix and gives a `Document` whose `segments` are the texts to translate, in order;
`document.render(translations)` gives the same format back, each segment replaced by its translation.

    document = read_document("report.docx", data)
    outputs, _ = translate_lines(generator, document.segments)
    Path(output_name("report.docx")).write_bytes(document.render(outputs))

`FORMATS` (suffix -> reader) is the one table of accepted types. Every problem with a file (unknown type,
content that does not match its suffix, undecodable text, broken markup, a zip bomb, a limit passed) is
a `studio.errors.DataError` naming the file and the place (line, cue, zip member). Each module's
docstring says what its segments are and what a translated document loses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath

from studio.errors import DataError
from studio.formats.base import Document, FormatLimits
from studio.formats.markdown import read_markdown
from studio.formats.subtitles import read_subtitles
from studio.formats.text import read_text
from studio.formats.webpage import read_html
from studio.formats.word import read_docx

Reader = Callable[[str, bytes, FormatLimits], Document]

FORMATS: dict[str, Reader] = {
    ".txt": read_text,
    ".srt": read_subtitles,
    ".md": read_markdown,
    ".html": read_html,
    ".htm": read_html,
    ".docx": read_docx,
}

DESCRIPTIONS = {
    ".txt": "plain text, one paragraph per line",
    ".srt": "SubRip subtitles",
    ".md": "Markdown",
    ".html": "HTML page",
    ".htm": "HTML page",
    ".docx": "Word document",
}

__all__ = ["Document", "FormatLimits", "FORMATS", "DESCRIPTIONS", "read_document", "output_name", "suffix_of"]


def suffix_of(name: str) -> str:
    """The lower-cased suffix `read_document` goes by ("" if none)."""
    return PurePath(str(name)).suffix.lower()


def read_document(name: str, data: bytes, limits: FormatLimits | None = None) -> Document:
    """The document in `data`, read as its `name`'s suffix says; DataError for anything wrong with it."""
    name = str(name)
    limits = limits or FormatLimits()
    suffix = suffix_of(name)
    reader = FORMATS.get(suffix)
    if reader is None:
        found = f"'{suffix}' files are" if suffix else "a file without a suffix is"
        raise DataError(name, f"{found} not supported; accepted: {', '.join(FORMATS)}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be bytes")
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise DataError(name, f"is {len(data):,} bytes; the limit is {limits.max_bytes:,}")
    try:
        return reader(name, data, limits)
    except DataError:
        raise
    except Exception as error:  # a parser's own exception must never reach the user as a traceback
        raise DataError(name, f"could not be read as {DESCRIPTIONS[suffix]} "
                              f"({type(error).__name__}: {error})") from None


def output_name(name: str, language: str = "en") -> str:
    """Where a translation goes: "report.docx" -> "report.en.docx"; a ".ko" tag is replaced
    ("notes.ko.md" -> "notes.en.md")."""
    path = PurePath(str(name))
    stem, suffix = path.stem, path.suffix
    if stem.lower().endswith(".ko"):
        stem = stem[:-3]
    return str(path.with_name(f"{stem}.{language}{suffix}"))
