"""Markdown (.md). `markdown-it-py` (CommonMark, plus GFM tables and strikethrough) finds the blocks whose
text is translated: paragraphs (in block quotes and list items too), headings and table cells. Never
touched: fenced and indented code, HTML blocks, link reference definitions, front matter (`---` or `+++`
at the top), and all block markup (heading and list markers, `>`, indentation, table pipes).

A block (a paragraph, heading, list item or table cell; hard breaks end one) is one segment, its inline
markup handled by `studio.formats.inline`: emphasis and strikethrough go around their stretch's English where
the block's English has it as a phrase; a link's or image's brackets and destination (as placeholders) are put
back around the English they enclosed; inline code, raw HTML tags, autolinks, bare URLs and footnote references
are kept whole; so link text and image alt text are translated with their sentence. Blocks without letters are
kept.

Bytes outside translated text are given back exactly. What is lost on a translated block: its soft line
breaks (a block over several lines is written on its first line; the lines' `>` or indentation with it;
hard breaks split blocks, so they stay), emphasis whose English is not found so, the markup of a link the
model did not keep in order (its text stays, its destination is written after the block), and markdown in the
translation is escaped so it stays text."""

from __future__ import annotations

import html
import re

import mdurl
from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference

from studio.formats.base import Document, FormatLimits, Span, check_segments
from studio.formats.base import one_line, split_lines, spliced
from studio.formats.inline import Piece, Placeholders, trim
from studio.text.encoding import decode_text

_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}
_TAG = re.compile(r"<!--.*?-->|<[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>|<[^\s@<>\\]+@[^\s@<>\\]+>"
                  r"|</?[A-Za-z][A-Za-z0-9\-]*(?:\s[^<>]*)?/?>|<![A-Z][^>]*>|<\?.*?\?>", re.DOTALL)
_URL = re.compile(r"https?://[^\s<>]*[^\s<>.,;:!?'\")\]*_]")
_REF = re.compile(r"\]\[[^\[\]]*\]")
_TASK = re.compile(r"\[[ xX]\](?=[ \t])")
_HTML_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9\-]*)(?:\s[^<>]*[^/<>])?>")  # an opening or closing tag, not <br/>
_LINK_TAG = re.compile(r"<a[\s>]", re.IGNORECASE)
_FOOTNOTE = re.compile(r"\[\^[^\]\s]+\]:?")
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
    text, bom, note = decode_text(name, data, "a Markdown file")
    lines = split_lines(text)
    front = _front_matter_lines(text, lines)
    # front matter blanked (not removed), so the parser's line numbers are the file's
    source = "\n".join("" if number < front else text[start:end] for number, (start, end) in enumerate(lines))
    spans: list[Span] = []
    warnings: list[str] = []
    env: dict = {}
    tokens = _parser().parse(source, env)
    references = {label: _readable(found["href"]) for label, found in env.get("references", {}).items()}
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
        spans += _text_runs(text, located, references)
    check_segments(name, [s.segment for s in spans] + [t for s in spans for t in s.stretches], limits,
                   "text runs and formatted phrases", empty=not text.strip(), text=text)
    return spliced(name, ".md", text, bom, spans, ([note] if note else []) + warnings)


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


def _text_runs(text: str, located: list[tuple[int, int]], references: dict[str, str]) -> list[Span]:
    """The translated spans of one block's inline content: one per stretch between hard breaks. `references`: the
    file's link reference definitions, normalized label -> destination."""
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
    for pieces in _blocks(raw, references):
        pieces = trim(pieces)
        block = Placeholders(pieces, lambda piece: _unescape(piece), lambda markup: markup.replace("\n", " "))
        if not pieces or not block.words:
            continue
        at, until = source(pieces[0].start), source(pieces[-1].end - 1) + 1
        line_start = text.rfind("\n", 0, at) + 1
        at_line_start = bool(_ONLY_MARKUP.fullmatch(text[max(line_start, text.rfind("\r", 0, at) + 1):at]))
        escape = (lambda x, first, s=at_line_start: _escape(x, s and first))
        spans.append(Span(at, until, block.segment, lambda t, own, b=block, e=escape: b.restore(t, e, own),
                          block.stretches, lambda b=block: b.unplaced))
    return spans


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*$")
_SCRIPT = re.compile(r"(?:javascript|vbscript|data):", re.IGNORECASE)


def _blocks(raw: str, references: dict[str, str]) -> list[list[Piece]]:
    """The pieces of `raw` (text, atoms, pairs), cut at hard breaks: each list is translated as one."""
    blocks: list[list[Piece]] = [[]]
    openers: list[Piece] = []  # emphasis runs and brackets waiting for their closing
    position = 0
    for start, end, kind in _inline_markup(raw):
        if position < start:
            blocks[-1].append(Piece(position, start, "text", raw[position:start]))
        position = end
        markup = raw[start:end]
        if kind == "break":
            blocks.append([])
            openers.clear()
            continue
        piece = Piece(start, end, "atom", markup)
        blocks[-1].append(piece)
        if kind in ("delimiter", "bracket", "tag"):
            if kind == "delimiter":  # CommonMark's flanking rule, simplified: `2 * 3 * 4` is no emphasis
                closes, opens = start > 0 and not raw[start - 1].isspace(), end < len(raw) and not raw[end].isspace()
            else:
                opens = markup in ("[", "![") or kind == "tag" and not markup.startswith("</")
                closes = not opens
            opener = next((o for o in reversed(openers) if _matches(o.raw, markup)), None) if closes else None
            if opener is not None:
                del openers[openers.index(opener):]  # openers inside it stay atoms
                opener.kind, piece.kind, opener.pair = "open", "close", start
                piece.pair = start
                opener.fallback = _link_fallback(opener.raw, markup, raw[opener.end:start], references)
                opener.phrase = piece.phrase = opener.raw not in ("[", "![") and not _LINK_TAG.match(opener.raw)
            elif opens:
                openers.append(piece)
    if position < len(raw):
        blocks[-1].append(Piece(position, len(raw), "text", raw[position:]))
    return blocks


def _readable(href: str) -> str:
    """A destination as the parser gives it (percent-encoded: `서울` as `%EC%84%9C…`), decoded where that is
    still one destination (reserved characters stay encoded: `%2F` is not `/`)."""
    decoded = mdurl.decode(href)
    return href if re.search(r"[\s<>()]", decoded) else decoded


def _link_fallback(opener: str, closer: str, label: str, references: dict[str, str]) -> str:
    """What keeps a link or image whose text the model lost the brackets of: the image, or a link with its
    destination as its text (`<https://…>`, `[page.md](page.md)`). A reference link (`[text][ref]`, `[text][]`,
    `[text]`; `label`: its text) takes its destination from the file's definition."""
    if opener not in ("[", "!["):
        return ""
    if closer.startswith("]("):
        inside = closer[2:-1].strip()
        destination = (inside[1:inside.find(">")] if inside.startswith("<") and ">" in inside
                       else inside.split()[0] if inside else "")
    else:
        reference = closer[2:-1] if closer.startswith("][") and len(closer) > 3 else label
        destination = inside = references.get(normalizeReference(reference), "")
    if not destination or destination.startswith("#") or _SCRIPT.match(destination):
        return ""  # none, an anchor in the page (its name is the Korean heading), a script: nothing to keep
    if opener == "![":
        return f"![]({inside})"
    if _SCHEME.match(destination):
        return f"<{destination}>"
    return "" if any(not c.isascii() for c in destination) else f"[{destination}]({inside})"


def _matches(opener: str, closer: str) -> bool:
    if opener in ("[", "!["):
        return closer.startswith("]")
    if opener.startswith("<"):  # <span class="q"> ... </span>
        return closer.startswith("</") and _HTML_TAG.match(opener).group(1) == _HTML_TAG.match(closer).group(1)
    return opener == closer


def _inline_markup(raw: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of the inline markup of `raw`; kind: "break" (a hard break), "delimiter" (an
    emphasis or strikethrough run), "bracket" (a link's or image's `[`, `![`, `]`, `](…)`, `][ref]`), "tag" (an
    HTML opening or closing tag) or "atom" (kept whole: inline code, tags, autolinks, URLs, footnote references, a task box)."""
    found, i, n = [], 0, len(raw)

    def mark(a: int, b: int, kind: str) -> int:
        found.append((a, b, kind))
        return b

    if task := _TASK.match(raw):  # a task list item's check box
        i = mark(0, task.end(), "atom")
    while i < n:
        c = raw[i]
        if c == "\\":
            i = mark(i, i + 1, "break") if raw.startswith("\\\n", i) else i + 2  # hard break / escape
        elif c == "`":
            run = len(raw) - len(raw[i:].lstrip("`")) - i
            close = re.compile(rf"(?<!`){'`' * run}(?!`)").search(raw, i + run)
            i = mark(i, close.end() if close else i + run, "atom")
        elif c == "<" and (match := _TAG.match(raw, i)):
            i = mark(i, match.end(), "tag" if _HTML_TAG.fullmatch(match.group(0)) else "atom")
        elif c == "h" and (i == 0 or not raw[i - 1].isalnum()) and (match := _URL.match(raw, i)):
            i = mark(i, match.end(), "atom")
        elif c == "[" and (match := _FOOTNOTE.match(raw, i)):
            i = mark(i, match.end(), "atom")
        elif c == "]":
            if raw.startswith("](", i) and (end := _destination_end(raw, i + 2)) > i + 2:
                i = mark(i, end, "bracket")
            elif match := _REF.match(raw, i):
                i = mark(i, match.end(), "bracket")
            else:
                i = mark(i, i + 1, "bracket")
        elif c == "[":
            i = mark(i, i + 1, "bracket")
        elif c == "\n" and raw.endswith("  ", 0, i):  # hard break: two or more spaces at the end of a line
            i = mark(len(raw[:i].rstrip(" ")), i + 1, "break")
        elif c == "!" and raw.startswith("![", i):
            i = mark(i, i + 2, "bracket")
        elif c in "*~":
            end = len(raw) - len(raw[i:].lstrip(c))
            i = mark(i, end, "delimiter") if c == "*" or end - i >= 2 else end
        elif c == "_":
            end = len(raw) - len(raw[i:].lstrip("_"))
            intraword = i > 0 and raw[i - 1].isalnum() and end < n and raw[end].isalnum()
            i = end if intraword else mark(i, end, "delimiter")
        else:
            i += 1
    return found


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
