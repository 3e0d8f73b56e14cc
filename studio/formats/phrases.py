"""Finding a formatted stretch's English in its line's English, so that formatting (bold, italic, a colour...) is
kept without placeholder tokens in the line: two tokens around a bold word cost this model 1.9 chrF on the
sentences that have one (docs/translator-training.md). The line is translated plain, the stretch alone, and
where the line's English has the stretch's English as a phrase, that phrase gets the formatting
("삼성은 **새 공장**을 지었다." -> "Samsung built a **new factory**.").

The phrase is matched as whole words, case-insensitively, without a leading article or possessive ("the",
"our"...; taken in where the line has the same one) and with a noun's plural or singular ("Banks" finds "bank
loans"); a phrase under 4 characters only when its letters are written so in the Korean too ("NSW", "EU"): "New"
alone would be found in "New York". Failing those, by its words' stems, without a preposition or conjunction
at its edges ("To Category" finds "category", "Supported" "support", "Markets and" "market"): a Korean word
alone often comes out as another form of the sentence's word. A stretch without letters (a link such as "[1]")
is found as written."""

from __future__ import annotations

import re

from studio.formats.base import has_words, one_line

EDGES = " \"'“”‘’.,;:!?()"
_LEADING = re.compile(r"^(?:the|a|an|our|their|his|her|its|my|your|this|these|those) ", re.IGNORECASE)
_SHORTEST = 4
# what a Korean word's ending often becomes around its English when translated alone ("기술에" -> "To Tech")
_FUNCTION_EDGES = re.compile(r"^(?:to|for|of|in|on|at|from|by|with|into) |(?: (?:and|or|of|to|in))$", re.IGNORECASE)
_STEM = 6  # letters two forms of a word share ("Discussing", "discussions")
_MOST_STEMMED_WORDS = 3


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
    core = _FUNCTION_EDGES.sub("", phrase).split(" ")
    stemmed = re.compile(r"(?<!\w)" + r"\s+".join(map(_stemmed, core)) + r"(?!\w)", re.IGNORECASE) if (
        has_words(phrase) and len(core) <= _MOST_STEMMED_WORDS) else None
    # as written first: "News" is a word of its own before it is the plural of "new"
    for found in [*exact.finditer(text), *inflected.finditer(text), *(stemmed.finditer(text) if stemmed else ())]:
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


def _stemmed(word: str) -> str:
    """A regular expression for the words that start like `word` ("Settle": "settlements"; its first 6 letters of
    a longer word); a word under 5 letters only as `_inflected` takes it ("Care" is not "car")."""
    if not word.isalpha() or len(word) < _SHORTEST + 1:
        return _inflected(word)
    stem = word[:_STEM] if len(word) > _STEM else word[:-1] if word[-1] in "seySEY" and len(word) > 5 else word
    return re.escape(stem) + r"\w*"


def _inflected(word: str) -> str:
    """A regular expression for `word` and its plural or singular (for words of letters; others as written)."""
    if not word.isalpha() or len(word) < _SHORTEST:
        return re.escape(word)
    lower = word.casefold()
    if lower.endswith("ies") or lower.endswith("y") and lower[-2] not in "aeiou":  # "factories", "factory", "movie"
        return re.escape(word[:-3] if lower.endswith("ies") else word[:-1]) + "(?:y|ies|ie)"
    stem = word[:-1] if word[-1] in "sS" and word[-2:-1] not in "sS" else word
    return re.escape(stem) + "(?:e?s)?"
