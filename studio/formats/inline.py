"""Inline markup inside one translated block (a paragraph, list item, heading, table cell, HTML text run).

A block is translated whole, so a sentence is never cut at a bold word or a link. Formatting around plain text
(bold, italic, strikethrough, `<b>`, `<span>`...) is left out of the block's segment: the stretch is translated
alone too and the formatting goes around its English where the block's English has it as a phrase
(`studio.formats.phrases`; tokens in the sentence cost the model 1.9 chrF). Every other piece of inline markup
(links, images, inline code, formatting around other markup or around no letters) becomes a placeholder token the
model copies through (`Xq51`, a Latin-looking token, the kind `studio.text.protect` relies on), and the
translation gets the markup back in the tokens' places.

- An opening and its closing (`**`…`**`, `[`…`](url)`, `<b>`…`</b>`) that come back in order, not
  crossing another pair and not around markup that was outside them, wrap the English between them; a pair the
  model dropped, wrote out of order, crossed or stretched over other markup is removed, its text kept.
- Atoms (inline code, URLs, HTML images and other tags kept whole) are written back verbatim where the model
  put them, or at the end of the block if it dropped them: they are never lost. A link or image is a pair
  (its text is translated): dropped, its text stays in place and a link with an address (a URL, a path; a
  Markdown reference link's from its definition) is written at the end of the block as a link of its own
  (`<https://…>`, `<a href="…">…</a>`); an anchor in the page is lost with its markup.
- A token is written only once (a second copy is removed), and no token of ours ever shows through.

Tokens are numbered from 51, skipping any `Xq<n>` the block itself contains: the term protector numbers its
own placeholders from 1 in each sentence and leaves `Xq<n>` tokens written in its source as they are, so the
two never meet. Each token has two spaces on each side: with the real model, spaced tokens kept their place
better than tokens glued to the Korean. Markup that encloses the whole block (a paragraph that is one link, a
leading image) is left outside the segment (`trim`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from studio.formats.base import has_words
from studio.formats.phrases import WAYS, find_phrase
from studio.text.protect import PLACEHOLDER_PREFIX

FIRST_TOKEN = 51
_TOKEN = re.compile(rf"(?<![0-9]){PLACEHOLDER_PREFIX}(\d{{1,6}})(?![0-9])", re.IGNORECASE)
# also one glued after a number ("2024Xq51")
_TOKEN_START = re.compile(rf"{PLACEHOLDER_PREFIX}(\d{{1,6}})", re.IGNORECASE)
_REMOVED = "\0"  # where a token was removed: no space of its own, none before punctuation
_SPACE = re.compile(r"[ \t\n\r\f]+")
_EDGE = " \t\n\r\f"
_NO_SPACE_BEFORE = ".,;:!?)]}%'’\"”"


@dataclass
class Piece:
    start: int
    end: int
    kind: str  # "text", "atom", "open" or "close"
    raw: str  # as written in the file
    pair: int = -1  # shared by an opening and its closing
    tag: str = ""  # what pairs it, where the format needs that (an HTML tag's name)
    fallback: str = ""  # an opening's: what to write at the end if its pair is dropped (a link's destination)
    phrase: bool = False  # a formatting pair (bold, italic...), not a link: may be placed by `studio.formats.phrases`


def trim(pieces: list[Piece]) -> list[Piece]:
    """The pieces to translate: white space at the edges and markup enclosing all the rest left out."""
    pieces = list(pieces)
    while pieces:
        first, last = pieces[0], pieces[-1]
        if first.kind == "text" and not first.raw.strip(_EDGE):
            pieces.pop(0)
        elif last.kind == "text" and not last.raw.strip(_EDGE):
            pieces.pop()
        elif first.kind == "atom":
            pieces.pop(0)
        elif last.kind == "atom":
            pieces.pop()
        elif first.kind == "open" and last.kind == "close" and first.pair == last.pair:
            pieces = pieces[1:-1]
        else:
            break
    if pieces and pieces[0].kind == "text":
        p = pieces[0]
        cut = len(p.raw) - len(p.raw.lstrip(_EDGE))
        pieces[0] = Piece(p.start + cut, p.end, "text", p.raw[cut:])
    if pieces and pieces[-1].kind == "text":
        p = pieces[-1]
        cut = len(p.raw) - len(p.raw.rstrip(_EDGE))
        pieces[-1] = Piece(p.start, p.end - cut, "text", p.raw[:len(p.raw) - cut])
    return pieces


class Placeholders:
    """One block's pieces as a segment with tokens, and the way back from its translation. `decode` turns a
    text piece into the text the model reads (entities, escapes); `markup` a markup piece into what is
    written back (e.g. line breaks as spaces, where the block is written on one line)."""

    def __init__(self, pieces: list[Piece], decode: Callable[[str], str],
                 markup: Callable[[str], str] = lambda raw: raw):
        texts = [_SPACE.sub(" ", decode(p.raw)) for p in pieces if p.kind == "text"]
        self.words = has_words("".join(texts))
        taken = {int(m.group(1)) for t in texts for m in _TOKEN.finditer(t)}
        self._written = {m.group(0).casefold() for t in texts for m in _TOKEN_START.finditer(t)}
        numbers = (n for n in range(FIRST_TOKEN, 1_000_000) if n not in taken)
        self.marks: dict[int, Piece] = {}  # token number -> its markup piece
        self._markup = markup
        self._inside = _texts_inside(pieces, decode)  # pair -> the text it encloses (as the model reads it)
        self._phrases = _phrase_pairs(pieces, self._inside)  # (opening, closing, text) placed without tokens
        self.stretches = [text for _, _, text in self._phrases]  # translated alone too
        self.unplaced: list[str] = []  # after `restore`: the stretches whose English it did not find
        plain = {id(piece) for opening, closing, _ in self._phrases for piece in (opening, closing)}
        parts = []
        for piece in pieces:
            if piece.kind == "text":
                parts.append(_SPACE.sub(" ", decode(piece.raw)))
            elif id(piece) in plain:
                continue
            else:
                number = next(numbers)
                self.marks[number] = piece
                parts.append(f"  {PLACEHOLDER_PREFIX}{number}  ")
        self.segment = re.sub(" {3,}", "  ", "".join(parts)).strip(" ")

    def restore(self, translation: str, escape: Callable[[str, bool], str], stretch_english: list[str]) -> str:
        """The translation with the markup back; `escape(text, at_start)` makes a text piece safe to write
        (`at_start`: it begins the block); `stretch_english`: the English of each of `stretches`, translated
        alone (a formatting pair is written around it where the translation has it as a phrase)."""
        found = self._find(translation)
        first: dict[int, tuple[int, int, int]] = {}
        for number, start, end in found:
            first.setdefault(number, (number, start, end))
        kept = _placeable(self.marks, [number for number, _, _ in first.values()])
        for number in list(kept):  # a pair around nothing ("2024 ****") is dropped
            piece = self.marks[number]
            if piece.kind == "open":
                close = next(n for n, p in self.marks.items() if p.kind == "close" and p.pair == piece.pair)
                if not translation[first[number][2]:first[close][1]].strip():
                    kept -= {number, close}
        items: list[tuple[str, str]] = []  # (kind, value): "text" or a markup kind
        position = 0
        for number, start, end in found:
            items.append(("text", translation[position:start]))
            position = end
            if first[number][1] == start and number in kept:
                piece = self.marks[number]
                items.append((piece.kind, self._markup(piece.raw)))
            else:
                items.append(("text", _REMOVED))
        items.append(("text", translation[position:]))
        lost = []  # the text of formatting pairs removed (a link keeps its address after the block)
        for number, piece in self.marks.items():
            if piece.kind == "atom" and number not in first:  # dropped by the model: kept at the end
                items += [("text", " "), ("atom", self._markup(piece.raw))]
            elif piece.kind == "open" and piece.fallback and number not in kept:  # a link whose pair was dropped
                items += [("text", " "), ("atom", self._markup(piece.fallback))]
            elif piece.kind == "open" and piece.phrase and number not in kept:
                lost.append(self._inside.get(piece.pair, ""))
        items, unplaced = self._with_phrases(items, stretch_english)
        self.unplaced = unplaced + [text for text in lost if text]
        return _join(items, escape)

    def _with_phrases(self, items: list[tuple[str, str]],
                      stretch_english: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
        """`items` with each formatting pair placed without tokens around its stretch's English, where a text
        item has it as a phrase outside the phrases already placed; and the stretches not placed so."""
        marked = [(kind, value, kind == "text") for kind, value in _merged(items)]  # third: may still take a phrase
        unplaced = []
        for (opening, closing, korean), english in zip(self._phrases, stretch_english):
            # each way of matching in every text item before a looser one (links and code split the block)
            found = next(((i, span) for way in WAYS for i, (_, value, free) in enumerate(marked)
                          if free and (span := find_phrase(english, korean, value, ways=(way,)))), None)
            if found is None:
                if english != korean:  # (one left untranslated by a stop is not the English's fault)
                    unplaced.append(korean)
                continue
            i, (start, end) = found
            value = marked[i][1]
            marked[i:i + 1] = [("text", value[:start], True), ("open", self._markup(opening.raw), False),
                               ("text", value[start:end], False), ("close", self._markup(closing.raw), False),
                               ("text", value[end:], True)]
        return [(kind, value) for kind, value, _ in marked], unplaced

    def _find(self, translation: str) -> list[tuple[int, int, int]]:
        """(number, start, end) of our tokens in order, also one the model glued to a number ("Xq539.5" for
        "Xq53 9.5"): the longest of our numbers its digits start with, unless the block has it as written."""
        found = []
        for match in _TOKEN_START.finditer(translation):
            digits = match.group(1)
            if int(digits) not in self.marks and match.group(0).casefold() in self._written:
                continue
            length = next((n for n in range(len(digits), 0, -1) if int(digits[:n]) in self.marks), 0)
            if length:
                found.append((int(digits[:length]), match.start(), match.start(1) + length))
        return found


def _phrase_pairs(pieces: list[Piece], texts: dict[int, str]) -> list[tuple[Piece, Piece, str]]:
    """The formatting pairs around nothing but text with letters, each with that text (`texts`: `_texts_inside`)."""
    found = []
    for i, opening in enumerate(pieces):
        if opening.kind != "open" or not opening.phrase:
            continue
        j = next((j for j in range(i + 1, len(pieces))
                  if pieces[j].kind == "close" and pieces[j].pair == opening.pair), i)
        inside = pieces[i + 1:j]
        if inside and all(p.kind == "text" for p in inside) and has_words(texts.get(opening.pair, "")):
            found.append((opening, pieces[j], texts[opening.pair]))
    return found


def _texts_inside(pieces: list[Piece], decode: Callable[[str], str]) -> dict[int, str]:
    """Each pair's enclosed text, as the model reads it (its markup left out)."""
    open_: dict[int, list[str]] = {}
    inside: dict[int, str] = {}
    for piece in pieces:
        if piece.kind == "text":
            for texts in open_.values():
                texts.append(piece.raw)
        elif piece.kind == "open":
            open_[piece.pair] = []
        elif piece.kind == "close" and piece.pair in open_:
            inside[piece.pair] = _SPACE.sub(" ", decode("".join(open_.pop(piece.pair)))).strip(" ")
    return inside


def _placeable(marks: dict[int, Piece], order: list[int]) -> set[int]:
    """Of the tokens found (in order), those to write back: atoms, and the pairs whose opening comes first,
    that nest properly and that enclose no markup the source has outside them (a link the model stretched over
    the next bold number: its text is kept, the link written after the block)."""
    present = set(order)
    by_pair: dict[int, dict[str, int]] = {}
    for number, piece in marks.items():
        if piece.kind in ("open", "close"):
            by_pair.setdefault(piece.pair, {})[piece.kind] = number
    kept = {n for n in order if marks[n].kind == "atom"}
    stack: list[int] = []
    for number in order:
        piece = marks[number]
        ends = by_pair.get(piece.pair, {})
        if piece.kind == "open" and ends.get("close") in present:
            stack.append(piece.pair)
        elif piece.kind == "close" and piece.pair in stack:
            if stack[-1] == piece.pair:
                kept.update(ends.values())
            stack.remove(piece.pair)  # crossing another pair (A B A B): the inner-closed one is dropped
    at = {number: i for i, number in enumerate(order)}
    for ends in by_pair.values():
        opening, closing = ends.get("open"), ends.get("close")
        if opening in kept and closing in kept and any(
                not opening < number < closing for number in order[at[opening] + 1:at[closing]]):
            kept -= {opening, closing}  # (tokens are numbered in the source's order)
    return kept


def _merged(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`items` with adjacent texts (where a token was removed) as one."""
    merged: list[tuple[str, str]] = []
    for kind, value in items:
        if kind == "text" and merged and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + value)
        else:
            merged.append((kind, value))
    return merged


def _join(items: list[tuple[str, str]], escape: Callable[[str, bool], str]) -> str:
    merged = [list(item) for item in _merged(items)]
    for i, (kind, value) in enumerate(merged):
        if kind != "text":
            continue
        value = re.sub(f"{_REMOVED}(?: *{_REMOVED})+", _REMOVED, _SPACE.sub(" ", value))  # two removed: one
        value = re.sub(f" *{_REMOVED} *(?=[{re.escape(_NO_SPACE_BEFORE)}]|$)", "", value)
        value = re.sub(f" *{_REMOVED} *", " ", value).replace(_REMOVED, "")
        before = merged[i - 1][0] if i else None
        after = merged[i + 1][0] if i + 1 < len(merged) else None
        if before is None or before == "open":
            value = value.lstrip(" ")
        elif before == "close" and value[:1].isalnum():
            value = " " + value  # "**capital**and" reads as one word
        elif before == "close" and value[1:2] and value[1] in _NO_SPACE_BEFORE:
            value = value.lstrip(" ")
        if after is None or after == "close":
            value = value.rstrip(" ")
        elif after == "open" and value[-1:].isalnum():
            value += " "
        merged[i][1] = value
    out = []
    for i, (kind, value) in enumerate(merged):
        if kind == "text":
            core = value.strip(" ")
            lead, trail = value[:len(value) - len(value.lstrip(" "))], value[len(value.rstrip(" ")):]
            value = lead + escape(core, i == 0) + trail if core else value
        out.append(value)
    return "".join(out).strip(" ")
