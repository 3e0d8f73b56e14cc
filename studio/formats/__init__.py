"""Documents translated whole, their structure kept: `read_document(name, data)` picks the reader by the
file's suffix and gives a `Document` whose `segments` are the texts to translate, in order;
`document.render(translations)` gives the same format back, each segment replaced by its translation.

    document = read_document("report.docx", data)
    english = translate(generator, document.segments).lines  # studio.translation.translate_document does this
    Path(output_name("report.docx")).write_bytes(document.render(english))

A document format is one `DocumentFormat` row of `DOCUMENT_FORMATS`: its suffix and aliases, its reader, what
messages call it, whether it is binary, how help texts describe it. `FORMATS` (every accepted suffix, aliases
included -> its row) is the one table of accepted types: the CLI's checks, the app's upload types and the help
texts (`listed`) are made from it. A new format is one row and one reader module, imported only when a file of
its type is read (importing this package stays cheap: the CLI's help reads it).

Every problem with a file (unknown type, content that does not match its suffix, undecodable text, broken markup,
a zip bomb, a limit passed) is a `studio.errors.DataError` naming the file and the place (line, cue, zip member).
Each module's docstring says what its segments are and what a translated document loses."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from studio.errors import DataError
from studio.formats.base import Document, FormatLimits

Reader = Callable[[str, bytes, FormatLimits], Document]


@dataclass(frozen=True)
class DocumentFormat:
    """One accepted type of document."""
    suffix: str  # ".html"; a translation is written with the suffix of the file it translates
    reader: str  # "module:function", (name, data: bytes, limits: FormatLimits) -> Document; imported when used
    description: str  # what messages call it: "could not be read as HTML page (...)"
    aliases: tuple[str, ...] = ()  # other suffixes read as this format (".htm"): the same type for `--out`
    binary: bool = False  # not text: `studio translate --out -` does not write it into a terminal
    layout: str = ""  # how a file of this type is laid out, where help texts say so
    line_by_line: bool = False  # translated line by line, not with its structure kept

    @property
    def suffixes(self) -> tuple[str, ...]:
        return (self.suffix, *self.aliases)

    def load_reader(self) -> Reader:
        module, _, function = self.reader.partition(":")
        return getattr(importlib.import_module(module), function)


DOCUMENT_FORMATS: tuple[DocumentFormat, ...] = (
    DocumentFormat(".txt", "studio.formats.text:read_text", "plain text, one paragraph per line",
                   layout="one paragraph per line", line_by_line=True),
    DocumentFormat(".srt", "studio.formats.subtitles:read_subtitles", "SubRip subtitles"),
    DocumentFormat(".md", "studio.formats.markdown:read_markdown", "Markdown"),
    DocumentFormat(".html", "studio.formats.webpage:read_html", "HTML page", aliases=(".htm",)),
    DocumentFormat(".docx", "studio.formats.word:read_docx", "Word document", binary=True),
)

# every accepted suffix (aliases after their format's own) -> its format: `', '.join(FORMATS)` lists them all
FORMATS: dict[str, DocumentFormat] = {suffix: f for f in DOCUMENT_FORMATS for suffix in f.suffixes}

__all__ = ["Document", "FormatLimits", "DocumentFormat", "DOCUMENT_FORMATS", "FORMATS", "read_document",
           "output_name", "suffix_of", "same_format", "listed"]


def same_format(suffix: str) -> str:
    """`suffix`'s format's own suffix (".htm" -> ".html"); a suffix no format has, lower-cased."""
    found = FORMATS.get(suffix.lower())
    return found.suffix if found else suffix.lower()


def listed(layout: bool = False, how: bool = False, last: str = ", ") -> str:
    """The formats' suffixes for help texts, aliases left out: ".txt, .srt, .md, .html, .docx". `layout`: with
    how a file is laid out where that matters (".txt (one paragraph per line)"); `how`: each run of formats
    translated alike followed by how (".txt (line by line), .srt, .md, .html, .docx (structure kept)"); `last`:
    what goes before the last one (" or ")."""
    items = []
    for i, f in enumerate(DOCUMENT_FORMATS):
        item = f.suffix + (f" ({f.layout})" if layout and f.layout else "")
        following = DOCUMENT_FORMATS[i + 1] if i + 1 < len(DOCUMENT_FORMATS) else None
        if how and (following is None or following.line_by_line != f.line_by_line):
            item += " (line by line)" if f.line_by_line else " (structure kept)"
        items.append(item)
    return last.join([", ".join(items[:-1]), items[-1]]) if len(items) > 1 else items[0]


def suffix_of(name: str) -> str:
    """The lower-cased suffix `read_document` goes by ("" if none)."""
    return PurePath(str(name)).suffix.lower()


def read_document(name: str, data: bytes, limits: FormatLimits | None = None, format: str | None = None) -> Document:
    """The document in `data`, read as its `name`'s suffix says (or as `format`, a suffix such as ".txt" or
    "txt", whatever the name says); DataError for anything wrong with it."""
    name = str(name)
    limits = limits or FormatLimits()
    suffix = suffix_of(name)
    if format is not None:
        wanted = "." + str(format).lower().lstrip(".")
        if wanted not in FORMATS:
            raise DataError(name, f"--format {str(format)[:20]}: not a document format; choose one of "
                                  f"{', '.join(f.suffix.lstrip('.') for f in DOCUMENT_FORMATS)}")
        suffix = wanted
    document_format = FORMATS.get(suffix)
    if document_format is None:
        found = f"'{suffix}' files are" if suffix else "a file without a suffix is"
        raise DataError(name, f"{found} not supported; accepted: {', '.join(FORMATS)}")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be bytes")
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise DataError(name, f"is {len(data):,} bytes; the limit is {limits.max_bytes:,}")
    try:
        return document_format.load_reader()(name, data, limits)
    except DataError:
        raise
    except Exception as error:  # a parser's own exception must never reach the user as a traceback
        raise DataError(name, f"could not be read as {document_format.description} "
                              f"({type(error).__name__}: {error})") from None


def output_name(name: str, language: str = "en") -> str:
    """Where a translation goes: "report.docx" -> "report.en.docx"; a ".ko" tag is replaced
    ("notes.ko.md" -> "notes.en.md")."""
    path = PurePath(str(name))
    stem, suffix = path.stem, path.suffix
    if suffix.lower() == ".ko":  # a corpus's line file ("test.ko"): its translation is "test.en"
        return str(path.with_name(f"{stem}.{language}"))
    if stem.lower().endswith(".ko"):
        stem = stem[:-3]
    return str(path.with_name(f"{stem}.{language}{suffix}"))
