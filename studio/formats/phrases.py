"""Finding a formatted stretch's English in its line's English, so that formatting (bold, italic, a colour...) is
kept without placeholder tokens in the line: two tokens around a bold word cost this model 1.9 chrF on the
sentences that have one (docs/translator-training.md). The line is translated plain, the stretch alone, and
where the line's English has the stretch's English as a phrase, that phrase gets the formatting
("삼성은 **새 공장**을 지었다." -> "Samsung built a **new factory**.").

The phrase is matched as whole words, case-insensitively, without a leading article or possessive ("the",
"our"...; taken in where the line has the same one) and with a noun's plural or singular ("Banks" finds "bank
loans"); a phrase under 4 characters only when its letters are written so in the Korean too ("NSW", "EU"): "New"
alone would be found in "New York". Failing those, by its words' English stems (Snowball's), without a
preposition or conjunction at its edges ("To Category" finds "categories", "Supported" "support", "Markets and"
"market"): a Korean word alone often comes out as another form of the sentence's word. A stretch without letters
(a link such as "[1]") is found as written, not inside a number."""

from __future__ import annotations

import functools
import re

from studio.formats.base import has_words, one_line

EDGES = " \"'“”‘’.,;:!?()"
_LEADING = re.compile(r"^(?:the|a|an|our|their|his|her|its|my|your|this|these|those) ", re.IGNORECASE)
_SHORTEST = 4
# what a Korean word's ending often becomes around its English when translated alone ("기술에" -> "To Tech")
_FUNCTION_EDGES = re.compile(r"^(?:to|for|of|in|on|at|from|by|with|into) |(?: (?:and|or|of|to|in))$", re.IGNORECASE)
_MOST_STEMMED_WORDS = 3
_WORD = re.compile(r"[^\W\d_]+")
# how loosely a phrase is matched, in the order tried: a caller searching several texts tries each way in all
# of them before the next (an exact match later in a paragraph beats a stem match before it)
WAYS = ("exact", "inflected", "stem")


def _phrase_of(english: str) -> str:
    """The words of a stretch's English to look for: without edge punctuation or a leading article (a stretch
    without letters, "[1]" or "(2)", as written)."""
    if not has_words(english):
        return one_line(english)
    return _LEADING.sub("", one_line(english).strip(EDGES)).strip(EDGES)


def find_phrase(english: str, korean: str, text: str, taken: list[tuple[int, int]] = (),
                ways: tuple[str, ...] = WAYS) -> tuple[int, int] | None:
    """(start, end) in `text` (a line's English) of the stretch's English (`english`, the translation of
    `korean` alone), not overlapping the spans `taken` (phrases already placed), or None, matched in the first of
    `ways` that finds it. The end takes in the stretch's own final punctuation where the line has it there too
    ("중요:" -> "Important:"), and its leading article or possessive where the line has the same one before the
    phrase."""
    phrase = _phrase_of(english)
    article = _LEADING.match(one_line(english).strip(EDGES))
    written = re.sub(r"[^A-Za-z]", "", phrase) or not has_words(phrase)  # what would be written so in the Korean
    if not phrase or len(phrase) < _SHORTEST and not (written and phrase.casefold() in korean.casefold()):
        return None
    for way in ways:
        for start, end in _matches(way, phrase, text):
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


def _matches(way: str, phrase: str, text: str):
    """(start, end) of each place `text` has `phrase` in that way."""
    if way == "stem":
        yield from _stem_matches(phrase, text)
        return
    # whole words: no letter or digit just before or after (where the phrase starts or ends with one); a number
    # (a footnote's "1") not inside another ("1.5%", "1-2"), but after a full stop ("…grew.1")
    number = not has_words(phrase)
    opening = (r"(?<!\w)" + (r"(?<!\d[.,])" if number else "")) if re.match(r"\w", phrase) else ""
    closing = (r"(?!\w)" + (r"(?!%|[.,\-]\d)" if number else "")) if re.search(r"\w$", phrase) else ""
    form = re.escape if way == "exact" else _inflected
    pattern = re.compile(opening + r"\s+".join(map(form, phrase.split(" "))) + closing, re.IGNORECASE)
    yield from (found.span() for found in pattern.finditer(text))


def _stem_matches(phrase: str, text: str):
    """Where `text` has the phrase's words with the same English stems (Snowball's: "Supported" finds "support",
    "To Category" "categories", "Policy" not "police"), past a preposition or conjunction at its edges; not for a
    phrase of under 4 letters once those are gone ("In US", "Of the")."""
    core = _LEADING.sub("", _FUNCTION_EDGES.sub("", phrase)).split(" ")
    if (len(core) > _MOST_STEMMED_WORDS or len("".join(core)) < _SHORTEST
            or not all(_WORD.fullmatch(word) for word in core)):
        return
    words = list(_WORD.finditer(text))
    stems, wanted = _stems([w.group(0) for w in words]), _stems(core)
    for i in range(len(words) - len(wanted) + 1):
        run = words[i:i + len(wanted)]
        if stems[i:i + len(wanted)] == wanted and all(
                not text[a.end():b.start()].strip() for a, b in zip(run, run[1:])):  # one phrase: only spaces between
            yield run[0].start(), run[-1].end()


def _stems(words: list[str]) -> list[str]:
    return _stemmer().stemWords([word.casefold() for word in words])


@functools.lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer  # deferred: only for documents with formatted phrases

    return snowballstemmer.stemmer("english")


def _inflected(word: str) -> str:
    """A regular expression for `word` and its plural or singular (for words of letters; others as written)."""
    if not word.isalpha() or len(word) < _SHORTEST:
        return re.escape(word)
    lower = word.casefold()
    if lower.endswith("ies") or lower.endswith("y") and lower[-2] not in "aeiou":  # "factories", "factory", "movie"
        return re.escape(word[:-3] if lower.endswith("ies") else word[:-1]) + "(?:y|ies|ie)"
    stem = word[:-1] if word[-1] in "sS" and word[-2:-1] not in "sS" else word
    return re.escape(stem) + "(?:e?s)?"
