"""Plain text (.txt): one segment per line, as `studio.data.readers.read_text_lines` reads it (only real
line breaks split; empty lines are segments too, so the line count and order are kept). Each line's
break (CRLF, CR or LF), its indentation, a final line break or its absence, and a UTF-8 BOM are given back
as they were."""

from __future__ import annotations

from studio.formats.base import Document, FormatLimits, Span, check_segments, one_line, spliced
from studio.formats.base import split_lines
from studio.text.encoding import decode_text


def read_text(name: str, data: bytes, limits: FormatLimits) -> Document:
    text, bom, note = decode_text(name, data, "a .txt file")
    spans = [Span(start, end, text[start:end], _indented(_indentation(text[start:end])))
             for start, end in split_lines(text)]
    check_segments(name, [s.segment for s in spans], limits, "lines", empty=not text.strip(), text=text)
    return spliced(name, ".txt", text, bom, spans, [note] if note else [])


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _indented(indent: str):
    return lambda translation, _: indent + one_line(translation)
