"""No invented figure: a translation may write a number only where its source has it.

chrF barely notices a changed year, so a translator that writes "1818" for `2018년` scores almost as well as one
that does not; users notice at once (issue 41). Every strategy masks, at every step, the pieces that would write
a digit sequence the source does not contain: a number in progress must be the beginning of one of the source's
numbers, and it may only end (a piece that is not a digit, or </s>) once it is one of them. The model then writes
the source's digits or words ("three" for `세`), never other digits. Numbers are compared without their
thousands commas ("1,000" = "1000"), so the model may write one where Korean has none; a decimal is written as the
source writes it, and a number the source has in parts ("3.5", "1,2,3") may be written in its parts.
Beam search also prefers, among its finished translations, one that writes every year of its source
(`keeps_years`): a year dropped is a fact lost as surely as one changed. Term protection's English (amounts, names)
is put back after decoding, so its digits never pass through here;
its placeholders ("Xq1") are in the source the model reads, so their digits are allowed.

`FigureGuard(pieces)` is built once per target vocabulary; `source_numbers(text)` (`studio.text.facts`) once per
source; the mask of one (number in progress, source numbers) is computed once and kept (at most `CACHED` of them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from studio.text.facts import NUMBER_RUN, SEPARATORS

CACHED = 1024  # masks kept per vocabulary (one per source's numbers and number in progress)
_DIGIT = re.compile(r"\d")  # a decimal digit of any script (Unicode Nd), as the web page's \p{Nd}
_BYTE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_OPEN = re.compile(NUMBER_RUN.pattern + "$")  # the number an output ends in (a separator after it: perhaps "1,000")


def with_commas(digits: str) -> str:
    """"1234567" -> "1,234,567", in one pass (a lookahead regex rescans the rest of the run at each digit:
    quadratic on a long one)."""
    head = len(digits) % 3 or 3
    return ",".join([digits[:head], *(digits[i:i + 3] for i in range(head, len(digits), 3))])


def written_forms(numbers: frozenset[str]) -> frozenset[str]:
    """How English may write each number: as it is, with thousands commas ("1500", "1,500"), without leading zeros
    ("09" -> "9")."""
    forms = set()
    for number in numbers:
        whole, dot, fraction = number.partition(".")
        for digits in {whole, whole.lstrip("0") or "0"}:
            forms.add(digits + dot + fraction)
            if len(digits) > 3:
                forms.add(with_commas(digits) + dot + fraction)
    return frozenset(forms)


def _closes(run: str, forms: frozenset[str]) -> bool:
    """Whether a number written as `run` may end here: one of the source's as English writes it (a period or comma
    after it is punctuation: "in 2018.")."""
    return run.rstrip(SEPARATORS) in forms


def _goes_on(run: str, forms: frozenset[str], prefixes: set[str]) -> bool:
    """Whether a number written as `run` may still be growing into one of the source's: every such beginning can
    be finished, so the guard never leaves the model without a token to write."""
    return run in prefixes or (run != run.rstrip(SEPARATORS) and _closes(run, forms))


def _fits(text: str, forms: frozenset[str], prefixes: set[str]) -> bool:
    """Whether every number `text` writes is one of `forms`, the one it ends in at least the start of one."""
    return all(_goes_on(run.group(0), forms, prefixes) if run.end() == len(text) else _closes(run.group(0), forms)
               for run in NUMBER_RUN.finditer(text))


def _piece_text(piece: str) -> str:
    byte = _BYTE.fullmatch(piece)
    if byte:
        value = int(byte.group(1), 16)
        return chr(value) if value < 0x80 else ""
    return piece.replace("\u2581", " ")


class FigureGuard:
    """The pieces of one target vocabulary that write digits, and which of them a source allows."""

    def __init__(self, pieces: Sequence[str], eos: int):
        self.texts = [_piece_text(p) for p in pieces]
        self.eos = eos
        # pieces that write a digit or only separators ("," "."): checked against the source's numbers
        self.number_ids = [i for i, t in enumerate(self.texts) if _DIGIT.search(t) or (t and set(t) <= set(SEPARATORS))]
        writes = np.zeros(len(pieces), bool)
        writes[self.number_ids] = True
        self.closing_ids = np.flatnonzero(~writes)  # pieces (and </s>) that end a number in progress
        self._banned: dict[tuple[frozenset[str], str], np.ndarray] = {}

    @classmethod
    def for_tokenizer(cls, tokenizer, eos: int) -> "FigureGuard":
        return cls([tokenizer.id_to_piece(i) for i in range(tokenizer.vocab_size)], eos)

    def open_number(self, history: Sequence[int]) -> str:
        """The number the output ends in ("" when it ends in something else), read from its last pieces."""
        tail = ""
        for token in reversed(history):
            text = self.texts[token] if 0 <= token < len(self.texts) else ""
            tail = text + tail
            if not text or not all(_DIGIT.match(c) or c in SEPARATORS for c in text):
                break
        match = _OPEN.search(tail)
        return match.group(0) if match else ""

    def wrote_all(self, history: Sequence[int], years: frozenset[str]) -> bool:
        """Whether the output so far has each of `years` (a source's years, `studio.text.facts.source_years`)."""
        text = "".join(self.texts[t] for t in history if 0 <= t < len(self.texts))
        return all(year in text for year in years)

    def banned(self, history: Sequence[int], numbers: frozenset[str]) -> np.ndarray:
        """The token ids that would write a number the source (`numbers`) does not have, after `history`."""
        key = (numbers, self.open_number(history))
        found = self._banned.get(key)
        if found is None:
            if len(self._banned) >= CACHED:  # a server sees ever new sources: start again rather than grow
                self._banned.clear()
            found = self._banned[key] = self._compute(*key)
        return found

    def _compute(self, numbers: frozenset[str], open_run: str) -> np.ndarray:
        forms = written_forms(numbers)
        prefixes = {form[:k] for form in forms for k in range(1, len(form) + 1)}
        banned = [i for i in self.number_ids if not _fits(open_run + self.texts[i], forms, prefixes)]
        if open_run and not _closes(open_run, forms):  # the number must go on: nothing may end it yet
            banned += self.closing_ids.tolist()
        return np.array(sorted(banned), np.int64)


def keep_figures(logits: np.ndarray, spec, row_sources: Sequence[int], histories: Sequence[Sequence[int]]
                 ) -> np.ndarray:
    """`logits` with every row's invented-figure tokens at -inf (a copy; as given when the spec has no guard)."""
    if spec.figures is None:
        return logits
    changed = None
    for row, (source, history) in enumerate(zip(row_sources, histories)):
        banned = spec.figures.banned(history, spec.numbers[source])
        if banned.size:
            if changed is None:
                changed = np.array(logits, copy=True)
            changed[row, banned] = -np.inf
            if not np.isfinite(changed[row]).any():  # other constraints left only these: the guard gives way
                changed[row] = logits[row]
    return logits if changed is None else changed


def keeps_years(spec, source: int, ids: Sequence[int]) -> bool:
    """Whether `ids` write every year of the source (`spec.years`; True when the spec has no guard)."""
    if spec.figures is None or not spec.years:
        return True
    return spec.figures.wrote_all(ids, spec.years[source])
