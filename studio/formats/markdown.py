"""Markdown (.md). `markdown-it-py` (CommonMark, plus GFM tables and strikethrough) finds the blocks whose
text is translated: paragraphs (in block quotes and list items too), headings and table cells. Never
touched: fenced and indented code, HTML blocks, link reference definitions, front matter (`---` or `+++`
at the top), and all block markup (heading and list markers, `>`, indentation, table pipes).

Inside a block, the translated segments are the runs of text between inline markup: inline code, raw
HTML tags, autolinks and bare http(s) URLs, link and image destinations (`](...)`, `][ref]`), brackets
and emphasis markers are kept as they are and split the text; so link text and image alt text are
translated, but a sentence with **bold** words becomes several segments. Runs without letters are kept.

Bytes outside translated text are given back exactly. What is lost on a translated run: its soft line
breaks (a run over several lines is written on its first line; the lines' `>` or indentation with it;
hard breaks split runs, so they stay),
and markdown in the translation is escaped so it stays text."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from studio.formats.base import Document, FormatLimits, Span, check_segments, decode_text, has_words
from studio.formats.base import normalize_space, one_line, split_lines, spliced

_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}
_TAG = re.compile(r"<!--.*?-->|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>|<[^\s@<>\\]+@[^\s@<>\\]+>"
                  r"|</?[A-Za-z][A-Za-z0-9\-]*(?:\s[^<>]*)?/?>|<![A-Z][^>]*>|<\?.*?\?>", re.DOTALL)
_URL = re.compile(r"https?://[^\s<>]*[^\s<>.,;:!?'\")\]*_]")
_REF = re.compile(r"\]\[[^\[\]]*\]")
_TASK = re.compile(r"\[[ xX]\](?=[ \t])")
_ESCAPABLE = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_ESCAPE_OR_ENTITY = re.compile(r"\\(.)|" + _ENTITY.pattern, re.DOTALL)
_ESCAPE_INLINE = re.compile(r"([\\`*_\[\]<>|])")
_BLOCK_START = re.compile(r"^(?:[#>+\-=~]|\d{1,9}[.)])")
_ONLY_MARKUP = re.compile(r"[\s>#*+\-\d.)|]*")


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _front_matter_lines(text: str, lines: list[tuple[int, int]]) -> int:
    """How many lines at the top are front matter (YAML `---`, TOML `+++`), 0 if none."""
    if not lines:
        return 0
    opening = text[lines[0][0]:lines[0][1]].rstrip()
    if opening not in _FRONT_MATTER:
        return 0
    for number, (start, end) in enumerate(lines[1:], start=1):
        if text[start:end].rstrip() in _FRONT_MATTER[opening]:
            return number + 1
    return 0


def read_markdown(name: str, data: bytes, limits: FormatLimits) -> Document:
    text, bom = decode_text(name, data, "a Markdown file")
    lines = split_lines(text)
    front = _front_matter_lines(text, lines)
    # front matter blanked (not removed), so the parser's line numbers are the file's
    source = "\n".join("" if number < front else text[start:end] for number, (start, end) in enumerate(lines))
    spans: list[Span] = []
    warnings: list[str] = []
    tokens = _parser().parse(source)
    row, cursor = None, 0
    for position, token in enumerate(tokens):
        if token.type != "inline" or not token.map:
            continue
        in_table = position > 0 and tokens[position - 1].type in ("th_open", "td_open")
        if in_table:
            if token.map[0] != row:
                row, cursor = token.map[0], lines[token.map[0]][0]
            located = _locate_cell(text, lines[row], cursor, token.content, first=cursor == lines[row][0])
            if located:
                cursor = located[-1][1]
        else:
            located = _locate_block(text, lines, token.map, token.content)
        if located is None:
            warnings.append(f"{name}:{token.map[0] + 1}: kept untranslated (its text could not be matched "
                            f"to the file)")
            if in_table:
                row = None  # the rest of the row cannot be placed either
            continue
        spans += _text_runs(text, located)
    check_segments(name, [s.segment for s in spans], limits, "text runs", empty=not text.strip())
    return spliced(name, ".md", text, bom, spans, warnings)


def _locate_block(text: str, lines, line_range, content: str) -> list[tuple[int, int]] | None:
    """The source span of each line of a paragraph's or heading's inline content, or None."""
    parts = content.split("\n")
    first, last = line_range
    if not content or len(parts) > last - first:
        return None
    located = []
    # the content is the block's last lines (link reference definitions may come first), each line's end
    for part, (start, end) in zip(parts, lines[last - len(parts):last]):
        at = text.rfind(part, start, end)
        if at < 0:
            return None
        located.append((at, at + len(part)))
    return located


def _locate_cell(text: str, line: tuple[int, int], cursor: int, content: str, first: bool):
    """The source span of a table cell's content (the parser unescapes `\\|`), from `cursor` on."""
    pattern = r"\\?\|".join(re.escape(piece) for piece in content.split("|"))
    lead = r"[ \t>]*\|?[ \t]*" if first else r"[ \t]*\|[ \t]*"
    match = re.compile(f"{lead}({pattern})(?=[ \t]*(?:\\||$))").match(text, cursor, line[1])
    if not match:
        return None
    return [match.span(1)] if content else [(match.end(), match.end())]


def _text_runs(text: str, located: list[tuple[int, int]]) -> list[Span]:
    """The translatable runs of one block's inline content, as spans of `text`."""
    raw = "\n".join(text[start:end] for start, end in located)
    offsets = []  # raw offset of each located line -> its source offset
    position = 0
    for start, end in located:
        offsets.append((position, start))
        position += end - start + 1

    def source(raw_offset: int) -> int:
        base, start = max(o for o in offsets if o[0] <= raw_offset)
        return start + raw_offset - base

    spans = []
    for start, end in _inline_text(raw):
        piece = raw[start:end]
        stripped = piece.strip(" \t\n")
        if not stripped:
            continue
        start += len(piece) - len(piece.lstrip(" \t\n"))
        end = start + len(stripped)
        segment = normalize_space(_unescape(stripped))
        if not has_words(segment):
            continue
        at, until = source(start), source(end - 1) + 1
        line_start = text.rfind("\n", 0, at) + 1
        at_line_start = bool(_ONLY_MARKUP.fullmatch(text[max(line_start, text.rfind("\r", 0, at) + 1):at]))
        spans.append(Span(at, until, segment, lambda t, s=at_line_start: _escape(t, s)))
    return spans


def _inline_text(raw: str) -> list[tuple[int, int]]:
    """(start, end) of the runs of `raw` that are text, not inline markup."""
    runs, start, i, n = [], 0, 0, len(raw)

    def keep(a: int, b: int) -> int:
        nonlocal start
        if start < a:
            runs.append((start, a))
        start = b
        return b

    if task := _TASK.match(raw):  # a task list item's check box
        i = keep(0, task.end())
    while i < n:
        c = raw[i]
        if c == "\\":
            i = keep(i, i + 1) if raw.startswith("\\\n", i) else i + 2  # hard break / escaped character
        elif c == "`":
            run = len(raw) - len(raw[i:].lstrip("`")) - i
            close = re.compile(rf"(?<!`){'`' * run}(?!`)").search(raw, i + run)
            i = keep(i, close.end() if close else i + run)
        elif c == "<" and (match := _TAG.match(raw, i)):
            i = keep(i, match.end())
        elif c == "h" and (i == 0 or not raw[i - 1].isalnum()) and (match := _URL.match(raw, i)):
            i = keep(i, match.end())
        elif c == "]":
            if raw.startswith("]:", i):  # e.g. a footnote definition `[^1]: text`
                i = keep(i, i + 2)
            elif raw.startswith("](", i):
                i = keep(i, _destination_end(raw, i + 2))
            elif match := _REF.match(raw, i):
                i = keep(i, match.end())
            else:
                i = keep(i, i + 1)
        elif c == "[":
            i = keep(i, i + 1)
        elif c == "\n" and raw.endswith("  ", 0, i):  # hard break: two or more spaces at the end of a line
            i = keep(len(raw[:i].rstrip(" ")), i + 1)
        elif c == "!" and raw.startswith("![", i):
            i = keep(i, i + 2)
        elif c in "*~":
            end = len(raw) - len(raw[i:].lstrip(c))
            i = keep(i, end) if c == "*" or end - i >= 2 else end
        elif c == "_":
            end = len(raw) - len(raw[i:].lstrip("_"))
            intraword = i > 0 and raw[i - 1].isalnum() and end < n and raw[end].isalnum()
            i = end if intraword else keep(i, end)
        else:
            i += 1
    if start < n:
        runs.append((start, n))
    return runs


def _destination_end(raw: str, i: int) -> int:
    """End of a link destination and title started after `](`: the matching `)`, or `i` if none."""
    depth, j = 0, i
    while j < len(raw):
        c = raw[j]
        if c == "\\":
            j += 2
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return j + 1
            depth -= 1
        j += 1
    return i


def _unescape(text: str) -> str:
    """Backslash escapes and entities, in one pass (`\\&amp;` is the text `&amp;`)."""
    def one(match: re.Match) -> str:
        escaped = match.group(1)
        if escaped is None:
            return html.unescape(match.group(0))
        return escaped if escaped in _ESCAPABLE else match.group(0)

    return _ESCAPE_OR_ENTITY.sub(one, text)


def _escape(translation: str, at_line_start: bool) -> str:
    """A translation as Markdown text: characters that would start markup are escaped."""
    out = _ESCAPE_INLINE.sub(r"\\\1", one_line(translation))
    out = _ENTITY.sub(lambda m: "&amp;" + m.group(0)[1:], out)
    if at_line_start and (match := _BLOCK_START.match(out)):
        out = out[:match.end() - 1] + "\\" + out[match.end() - 1:]
    return out
