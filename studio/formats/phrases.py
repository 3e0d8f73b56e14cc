"""Finding a formatted stretch's English in its line's English, so that formatting (bold, italic, a colour...) is
kept without placeholder tokens in the line: two tokens around a bold word cost this model 1.9 chrF on the
sentences that have one (docs/translator-training.md). The line is translated plain, the stretch alone, and
where the line's English has the stretch's English as a phrase, that phrase gets the formatting
("삼성은 **새 공장**을 지었다." -> "Samsung built a **new factory**.").

The phrase is matched as whole words, case-insensitively, without a leading article or possessive ("the",
"our"...; taken in where the line has the same one) and with a noun's plural or singular ("Banks" finds "bank
loans"); a phrase under 4 characters only when its letters are written so in the Korean too ("NSW", "EU"): "New"
alone would be found in "New York". A stretch without letters (a link such as "[1]") is found as written."""

from __future__ import annotations

import re

from studio.formats.base import has_words, one_line

EDGES = " \"'“”‘’.,;:!?()"
_LEADING = re.compile(r"^(?:the|a|an|our|their|his|her|its|my|your|this|these|those) ", re.IGNORECASE)
_SHORTEST = 4


def _phrase_of(english: str) -> str:
    """The words of a stretch's English to look for: without edge punctuation or a leading article (a stretch
    without letters, "[1]" or "(2)", as written)."""
    if not has_words(english):
        return one_line(english)
    return _LEADING.sub("", one_line(english).strip(EDGES)).strip(EDGES)


def find_phrase(english: str, korean: str, text: str, taken: list[tuple[int, int]] = ()) -> tuple[int, int] | None:
    """(start, end) in `text` (a line's English) of the stretch's English (`english`, the translation of
    `korean` alone), not overlapping the spans `taken` (phrases already placed), or None. The end takes in the
    stretch's own final punctuation where the line has it there too ("중요:" -> "Important:"), and its leading
    article or possessive where the line has the same one before the phrase."""
    phrase = _phrase_of(english)
    article = _LEADING.match(one_line(english).strip(EDGES))
    written = re.sub(r"[^A-Za-z]", "", phrase) or not has_words(phrase)  # what would be written so in the Korean
    if not phrase or len(phrase) < _SHORTEST and not (written and phrase.casefold() in korean.casefold()):
        return None
    words = phrase.split(" ")
    # whole words: no letter or digit just before or after (where the phrase starts or ends with one)
    opening, closing = r"(?<!\w)" if re.match(r"\w", phrase) else "", r"(?!\w)" if re.search(r"\w$", phrase) else ""
    exact, inflected = (re.compile(opening + r"\s+".join(map(form, words)) + closing, re.IGNORECASE)
                        for form in (re.escape, _inflected))
    # as written first: "News" is a word of its own before it is the plural of "new"
    for found in [*exact.finditer(text), *inflected.finditer(text)]:
        start, end = found.span()
        if any(start < until and at < end for at, until in taken):
            continue
        before = start - len(article.group(0)) if article else -1
        if before >= 0 and text[before:start].casefold() == article.group(0).casefold() and not (
                before and (text[before - 1].isalnum() or text[before - 1] == "_")):  # "the capital", not "ba|the"
            start = before
        last = korean.rstrip()[-1:]
        if last and last in EDGES and text[end:end + 1] == last:
            end += 1
        return start, end
    return None


def _inflected(word: str) -> str:
    """A regular expression for `word` and its plural or singular (for words of letters; others as written)."""
    if not word.isalpha() or len(word) < _SHORTEST:
        return re.escape(word)
    lower = word.casefold()
    if lower.endswith("ies") or lower.endswith("y") and lower[-2] not in "aeiou":  # "factories", "factory", "movie"
        return re.escape(word[:-3] if lower.endswith("ies") else word[:-1]) + "(?:y|ies|ie)"
    stem = word[:-1] if word[-1] in "sS" and word[-2:-1] not in "sS" else word
    return re.escape(stem) + "(?:e?s)?"
