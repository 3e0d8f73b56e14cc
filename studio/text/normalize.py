"""The tutorials' text normalization, plus the cleaning a parallel corpus needs.

Tutorial rules: put spaces around `? . ! ,`, collapse runs of spaces, keep only Hangul, Latin letters,
digits and that punctuation, lower-case English. We also apply Unicode NFC first (decomposed Hangul
from macOS or some IMEs would otherwise be dropped as "not Hangul"), keep Hangul jamo (ㅋㅋ, ㅠㅠ are
common in chat), and keep apostrophes/hyphens inside words so English contractions survive.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_PUNCT = re.compile(r"([?.!,])")
_DISALLOWED = re.compile(r"[^가-힣ㄱ-ㅎㅏ-ㅣa-zA-Z0-9?.!,'\-% ]+")
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r" ([?.!,])")


def normalize(text: str, lowercase: bool = False) -> str:
    """Normalize one sentence the way the tutorials do (see the module docstring)."""
    text = unicodedata.normalize("NFC", text)
    if lowercase:
        text = text.lower()
    text = _PUNCT.sub(r" \1 ", text)
    text = _DISALLOWED.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def tidy(text: str) -> str:
    """Undo the spacing around punctuation for display: `하루가 또 가네요 .` -> `하루가 또 가네요.`"""
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text).strip()


def dedupe_pairs(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Drop repeated (source, target) pairs, keeping the first occurrence and the original order."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for pair in pairs:
        if pair not in seen:
            seen.add(pair)
            kept.append(pair)
    return kept


def keep_pair(src_len: int, tgt_len: int, max_len_src: int, max_len_tgt: int, max_ratio: float | None = None) -> bool:
    """Length filter for tokenized pairs: both sides non-empty and within limits, and (optionally) a
    length ratio below `max_ratio`, which drops misaligned pairs in noisy parallel corpora."""
    if src_len == 0 or tgt_len == 0 or src_len > max_len_src or tgt_len > max_len_tgt:
        return False
    if max_ratio is not None:
        longer, shorter = max(src_len, tgt_len), min(src_len, tgt_len)
        if longer > 3 and longer / shorter > max_ratio:
            return False
    return True
