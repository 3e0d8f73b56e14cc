"""HTML (.html, .htm), scanned with the standard library's `html.parser` (forgiving: unclosed elements
are fine). A segment is the text between two tags that are not inline (`<p>`, `<li>`, `<td>`, `<br>`...):
inline elements (`<b>`, `<em>`, `<a>`, `<span>`...) stay inside it (`studio.formats.inline`), so a sentence
with a bold word is translated whole: the word is translated alone too, and its tags go around its English
where the sentence's English has it as a phrase; a link's tags are placeholders put back around its English.
White space runs as single spaces, entities decoded; text inside `<script>`, `<style>`, `<code>`, `<pre>`
and `<textarea>` is never translated (an inline `<code>` element is kept whole where the model puts it).
The Korean of the attributes a reader sees (`alt`, `title`, `aria-label`, `placeholder`, a button's `value`) is
translated too, after the page's text, and written double-quoted and escaped in its tag, where that tag is (not in
a tag written inside `<pre>`, `<code>` or `<textarea>`). Other tags and attributes, comments, the doctype and white
space around text are given back byte for byte; a translation is escaped (`&`, `<`, `>`) and written on one line.
What is lost on a translated segment: its own line breaks, named entities (written as plain characters), the tags of formatting
whose English is not found, and those of a link the model did not keep in order (its text stays; its `<a href>`
is then written after the segment with its address as its text, so the link is not lost).

A tag or comment cut short (`<div class="a` at the end of the file) is an error naming its line."""

from __future__ import annotations

import bisect
import html
import re
from html.parser import HTMLParser

from studio.errors import DataError
from studio.formats.base import (LINE_BREAK, Document, FormatLimits, Span, check_segments, normalize_space, one_line,
                                 spliced)
from studio.formats.inline import Piece, Placeholders, trim
from studio.text.encoding import decode_text
from studio.text.script import has_hangul

SKIPPED = frozenset({"script", "style", "code", "pre", "textarea"})
# tags that sit inside a sentence: a pair of them (<b>…</b>) wraps part of a segment; any other tag, and <br>,
# ends the segment
INLINE = frozenset({"a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "data", "del", "dfn", "em", "font",
                    "i", "ins", "kbd", "label", "mark", "nobr", "q", "s", "samp", "small", "span", "strike",
                    "strong", "sub", "sup", "time", "tt", "u", "var"})
ATOMS = frozenset({"code", "img", "wbr"})  # inline too, kept whole (a <code> element with its content)
_BROKEN = re.compile(r"<[A-Za-z/!?]")
LABELS = frozenset({"alt", "title", "aria-label", "placeholder"})  # attributes whose text a reader sees
_BUTTON_TYPES = frozenset({"submit", "button", "reset"})  # an <input> of these shows its `value`
_TAG_NAME = re.compile(r"<([A-Za-z][^\s/>]*)")
# one attribute with a value, from where the last one ended (so nothing inside a quoted value is taken for one)
_ATTRIBUTE = re.compile(r"""(\s+([^\s"'>/=]+)\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_FIRST_TAG = re.compile(r"""<[A-Za-z][^\s/>]*(?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*\s*/?>""")
_LEGACY_CHARSET = re.compile(r"""(<meta\b[^>]*?charset\s*=\s*["']?|<\?xml\b[^>]*?encoding\s*=\s*["'])"""
                             r"(?:euc-kr|cp949|(?:x-)?windows-949|ks_c_5601-1987|ks_c_5601|ksc5601|korean)(?![\w-])",
                             re.IGNORECASE)


_HTML_TAG_OPEN = re.compile(r"<html\b[^>]*>", re.IGNORECASE)
_KOREAN_LANG = re.compile(r"""((?<![\w-])(?:xml:)?lang\s*=\s*["']?)ko(?:-KR)?(?=["'\s/>])""", re.IGNORECASE)


class _Scanner(HTMLParser):
    """Records where each piece of markup and text starts, what it is, and whether text is inside a skipped
    element."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        # (offset, kind, tag): kind "open" | "close" (inline tags), "atom", "text", "boundary"
        self.events: list[tuple[int, str, str]] = []
        self.open: dict[str, int] = {}
        self.labelled: list[tuple[int, int]] = []  # (start, end) of the start tags with Korean a reader sees (`_seen`)

    def _at(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def _markup(self, tag: str, opening: bool):
        kind = "atom" if tag in ATOMS or self.open.get("code") else (
            ("open" if opening else "close") if tag in INLINE else "boundary")
        self.events.append((self._at(), kind, tag))

    def _label(self, tag, attrs):
        """Records a start tag with Korean to translate in its attributes, unless it is in an element whose
        content is never translated (a tag written in a <textarea>, or in <pre> or <code>)."""
        seen = _seen(tag, {name: value or "" for name, value in attrs})
        if not any(self.open.values()) and any(name in seen and value and has_hangul(value) for name, value in attrs):
            start = self._at()
            self.labelled.append((start, start + len(self.get_starttag_text())))

    def handle_starttag(self, tag, attrs):
        self._label(tag, attrs)
        self._markup(tag, True)
        if tag in SKIPPED:
            self.open[tag] = self.open.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if self.open.get(tag):
            self.open[tag] -= 1
        self._markup(tag, False)

    def handle_startendtag(self, tag, attrs):
        self._label(tag, attrs)
        self.events.append((self._at(), "atom" if tag in ATOMS else "boundary", tag))

    def handle_data(self, data):
        inside = {tag for tag, count in self.open.items() if count}
        kind = "text" if not inside else "atom" if inside == {"code"} else "boundary"  # <code> is part of a sentence
        self.events.append((self._at(), kind, ""))

    def handle_comment(self, data):
        self.events.append((self._at(), "atom", ""))

    def _boundary(self, *_):
        self.events.append((self._at(), "boundary", ""))

    handle_decl = handle_pi = unknown_decl = _boundary


def read_html(name: str, data: bytes, limits: FormatLimits) -> Document:
    text, bom, note = decode_text(name, data, "an HTML file")
    scanner = _Scanner(text)
    scanner.feed(text)
    scanner.close()
    events = scanner.events + [(len(text), "boundary", "")]
    runs: list[list[Piece]] = [[]]  # the pieces between two boundaries
    for (offset, kind, tag), (end, _, _) in zip(events, events[1:]):
        raw = text[offset:end]
        if kind == "boundary":
            runs.append([])
            continue
        run = runs[-1]
        if run and run[-1].kind == kind and kind in ("text", "atom") and run[-1].end == offset:
            run[-1] = Piece(run[-1].start, end, kind, run[-1].raw + raw)  # text given in two calls, <code>…</code>
        else:
            run.append(Piece(offset, end, kind, raw, tag=tag))
    spans = []
    translated: dict[str, str] = {}  # each label's English, for this render (`hear`)
    for run in runs:
        for piece in run:
            if piece.kind == "text" and (broken := _BROKEN.search(piece.raw)):
                at = piece.start + broken.start()
                cut = piece.raw[broken.start():].split("\n")[0][:40]
                raise DataError(name, f"broken markup: {cut!r} is not a complete tag or comment "
                                      f"(is the file cut short?)", text.count("\n", 0, at) + 1)
        pieces = trim(_paired(run))
        block = Placeholders(pieces, html.unescape, lambda markup: LINE_BREAK.sub(" ", _labelled(markup, translated)))
        if pieces and block.words:
            spans.append(Span(pieces[0].start, pieces[-1].end, block.segment,
                              lambda t, own, b=block: b.restore(t, _escape, own),
                              block.stretches, lambda b=block: b.unplaced))
    labels = list(dict.fromkeys(label for start, end in scanner.labelled for label in _labels(text[start:end])))
    check_segments(name, [s.segment for s in spans] + [t for s in spans for t in s.stretches] + labels, limits,
                   "text nodes, formatted phrases and labels", empty=not text.strip(), text=text)
    # a labelled tag inside a translated block is written by the block (its markup, above); the others in place
    starts = [s.start for s in spans]  # (in order)
    spans += [Span(start, end, None, lambda _, __, tag=text[start:end]: _labelled(tag, translated))
              for start, end in scanner.labelled if not _within(spans, starts, start)]

    def hear(english: list[str]) -> None:
        translated.clear()  # an English left empty keeps the Korean (an empty alt says "decorative")
        translated.update({korean: one_line(e) for korean, e in zip(labels, english) if e != korean and e.strip()})

    def finish(body: str) -> str:
        if body != text:  # something was translated: the page is English now
            body = _HTML_TAG_OPEN.sub(lambda tag: _KOREAN_LANG.sub(r"\1en", tag.group(0)), body, count=1)
        # written as UTF-8: a page that declared its legacy encoding now declares UTF-8
        return _LEGACY_CHARSET.sub(r"\1utf-8", body) if note else body

    return spliced(name, ".html", text, bom, spans, [note] if note else [], labels, hear, finish)


def _seen(tag: str, attributes: dict[str, str]) -> frozenset[str]:
    """The attributes of a start tag (`tag`: its lower-cased name) whose text a reader sees: `LABELS`, and the
    `value` of a button (`<input type="submit" value="검색">`)."""
    if tag == "input" and attributes.get("type", "").strip().lower() in _BUTTON_TYPES:
        return LABELS | {"value"}
    return LABELS


def _within(spans: list[Span], starts: list[int], at: int) -> bool:
    """Whether offset `at` is inside one of `spans` (sorted, not overlapping; `starts` their starts)."""
    i = bisect.bisect_right(starts, at) - 1
    return i >= 0 and at < spans[i].end


def _attributes(tag: str) -> dict[str, str]:
    """A start tag's attributes with a value: lower-cased name -> the value as written (entities not decoded)."""
    return {match.group(2).lower(): _value(match) for match in _ATTRIBUTE.finditer(tag)}


def _seen_in(tag: str) -> frozenset[str]:
    """`_seen` of a start tag as written."""
    return _seen(_TAG_NAME.match(tag).group(1).lower(), _attributes(tag))


def _labels(tag: str) -> list[str]:
    """The Korean texts of a start tag's attributes a reader sees (`_seen`), as a reader sees them."""
    seen = _seen_in(tag)
    return [label for name, value in _attributes(tag).items()
            if name in seen and has_hangul(label := _value_text(value))]


def _value(match: re.Match) -> str:
    return next(v for v in match.groups()[2:] if v is not None)


def _value_text(value: str) -> str:
    return normalize_space(html.unescape(value))


def _labelled(markup: str, translated: dict[str, str]) -> str:
    """`markup` with the English of its first tag's labels' Korean (`_seen`; what an element kept whole,
    `<code>…</code>`, holds after its tag is not touched)."""
    tag = _FIRST_TAG.match(markup) if translated else None
    return _labelled_tag(tag.group(0), translated) + markup[tag.end():] if tag else markup


def _labelled_tag(tag: str, translated: dict[str, str]) -> str:
    seen = _seen_in(tag)

    def english(match: re.Match) -> str:
        label = _value_text(_value(match))
        if match.group(2).lower() not in seen or label not in translated:
            return match.group(0)
        return f'{match.group(1)}"{html.escape(translated[label], quote=True)}"'

    return _ATTRIBUTE.sub(english, tag)


def _escape(text: str, at_start: bool) -> str:
    return html.escape(text, quote=False)


def _paired(run: list[Piece]) -> list[Piece]:
    """Each inline opening tag matched with its closing tag; one without its other half is an atom."""
    stack: list[Piece] = []
    for piece in run:
        if piece.kind == "open":
            stack.append(piece)
        elif piece.kind == "close":
            opener = next((o for o in reversed(stack) if o.tag == piece.tag), None)
            if opener is None:
                piece.kind = "atom"
                continue
            for inner in stack[stack.index(opener) + 1:]:
                inner.kind = "atom"
            del stack[stack.index(opener):]
            opener.pair = piece.pair = piece.start
            opener.phrase = piece.phrase = opener.tag != "a"
            if opener.tag == "a" and (destination := _attributes(opener.raw).get("href")):
                opener.fallback = f"{opener.raw}{destination}</a>"  # the link, with its address as its text
    for opener in stack:
        opener.kind = "atom"
    return run
