"""HTML (.html, .htm), scanned with the standard library's `html.parser` (forgiving: unclosed elements
are fine). Each text node with letters is one segment, its white space runs as single spaces and its
entities decoded; text inside `<script>`, `<style>`, `<code>`, `<pre>` and `<textarea>` never is. Tags,
attributes (`alt` and `title` too), comments, the doctype and white space around text are given back
byte for byte; a translation is escaped (`&`, `<`, `>`) and written on one line. What is lost on a
translated node: its own line breaks, and named entities (written as plain characters). A text node
that has inline tags in it (`<b>`, `<a>`) is several segments, split at the tags.

A tag or comment cut short (`<div class="a` at the end of the file) is an error naming its line."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from studio.errors import DataError
from studio.formats.base import Document, FormatLimits, Span, check_segments, decode_text, has_words
from studio.formats.base import normalize_space, one_line, spliced

SKIPPED = frozenset({"script", "style", "code", "pre", "textarea"})
_BROKEN = re.compile(r"<[A-Za-z/!?]")


class _Scanner(HTMLParser):
    """Records where each piece of markup and text starts, and whether text is inside a skipped element."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.events: list[tuple[int, str]] = []  # (offset, "markup" | "text" | "skipped")
        self.open: dict[str, int] = {}

    def _at(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _markup(self, *_):
        self.events.append((self._at(), "markup"))

    def handle_starttag(self, tag, attrs):
        self._markup()
        if tag in SKIPPED:
            self.open[tag] = self.open.get(tag, 0) + 1

    def handle_endtag(self, tag):
        self._markup()
        if self.open.get(tag):
            self.open[tag] -= 1

    def handle_data(self, data):
        self.events.append((self._at(), "skipped" if any(self.open.values()) else "text"))

    handle_startendtag = handle_comment = handle_decl = handle_pi = unknown_decl = _markup


def read_html(name: str, data: bytes, limits: FormatLimits) -> Document:
    text, bom = decode_text(name, data, "an HTML file")
    scanner = _Scanner(text)
    scanner.feed(text)
    scanner.close()
    # a text run goes from a text event to the next event that is not text
    runs, start = [], None
    for offset, kind in scanner.events + [(len(text), "end")]:
        if kind == "text":
            start = offset if start is None else start
        elif start is not None:
            runs.append((start, offset))
            start = None
    spans = []
    for start, end in runs:
        raw = text[start:end]
        if broken := _BROKEN.search(raw):
            at = start + broken.start()
            cut = raw[broken.start():].split("\n")[0][:40]
            raise DataError(name, f"broken markup: {cut!r} is not a complete tag or comment "
                                  f"(is the file cut short?)", text.count("\n", 0, at) + 1)
        stripped = raw.strip(" \t\n\r\f")
        if not stripped:
            continue
        start += len(raw) - len(raw.lstrip(" \t\n\r\f"))
        segment = normalize_space(html.unescape(stripped))
        if has_words(segment):
            spans.append(Span(start, start + len(stripped), segment,
                              lambda t: html.escape(one_line(t), quote=False)))
    check_segments(name, [s.segment for s in spans], limits, "text nodes", empty=not text.strip())
    return spliced(name, ".html", text, bom, spans)
