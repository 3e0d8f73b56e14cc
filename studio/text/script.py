"""Which script an input is mostly written in: the models read Korean, so an input that is mostly another
script (English, Japanese, Chinese, code...) gets a hint next to its output instead of silent nonsense."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

# Unicode character-name prefixes -> what to call text mostly written in them
_SCRIPTS = {"HANGUL": "Korean", "LATIN": "English or another language in Latin letters", "CJK": "Chinese (Han characters)",
            "HIRAGANA": "Japanese (kana)", "KATAKANA": "Japanese (kana)", "CYRILLIC": "Russian or another Cyrillic language",
            "ARABIC": "Arabic", "HEBREW": "Hebrew", "GREEK": "Greek", "THAI": "Thai", "DEVANAGARI": "Hindi or another Devanagari language"}
MIN_LETTERS = 3  # shorter inputs ("OK", "BTS") are too short to judge
KOREAN_SHARE = 0.3  # below this share of Hangul among the letters, the input "looks like" something else


def script_of(char: str) -> str:
    if not char.isalpha():
        return ""
    name = unicodedata.name(char, "")
    for prefix in _SCRIPTS:
        if name.startswith(prefix):
            return prefix
    return "OTHER"


def looks_like(text: str) -> str | None:
    """What the input looks like when it is mostly not Korean ("English or another language in Latin
    letters", ...), or None when it is Korean enough, or too short to tell."""
    counts = Counter(s for s in map(script_of, text) if s)
    letters = sum(counts.values())
    if letters < MIN_LETTERS or counts["HANGUL"] >= KOREAN_SHARE * letters:
        return None
    script, _ = max(((s, n) for s, n in counts.items() if s != "HANGUL"), key=lambda item: item[1])
    return _SCRIPTS.get(script, "another language")


# the letters Unicode names "HANGUL …" (syllables, compatibility and conjoining jamo: decomposed Korean, NFD, too);
# web/src/protect.js's HANGUL_LETTERS are the same ranges
_HANGUL_LETTER = re.compile("[\u1100-\u11ff\u3131-\u318e\ua960-\ua97c\uac00-\ud7a3\ud7b0-\ud7c6\ud7cb-\ud7fb]")


def has_hangul(text: str) -> bool:
    """Whether `text` has a Korean letter: a line without one is no input for a Korean-to-English model."""
    return bool(_HANGUL_LETTER.search(text))
