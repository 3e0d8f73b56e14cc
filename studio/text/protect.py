"""Terms the translator must not mangle: a user's glossary (Korean term -> the English to use) and, when
`auto` is on, URLs, e-mail addresses, numbers with units, decimals and dotted numbers, Korean amounts and prices
("30억 달러", "127.95달러", given in English as "$3 billion", "$127.95": `studio.text.numbers`), ranges ("3~4%" ->
"3-4%"), times of day ("오후 2:00" -> "2:00 p.m.", "오후 2시 30분" -> "2:30 p.m."), emoji and other symbols the tokenizer spells byte by byte, runs
of Latin script ("Zoran Zaev", "iPhone 15") and a Korean name followed by its original in brackets, the way Korean
news writes foreign names ("도이체반(Deutsche Bahn)": the output gets "Deutsche Bahn" once, where the model wrote
"Doyvan (Deutsche Bahn)"); such a name is remembered through a document (`Protector.remembering`) and given in
English where it is written alone later ("도이체반은 …").

Each matched span is replaced by a placeholder the model copies through ("Xq1", "Xq2": a Latin-looking
token, which this model passes through far more often than brackets or '#1'), and the output gets the
span's English back in its place. A placeholder the model dropped (or a number's it wrote twice) is reported;
the caller may decode that sentence again with the English written into the source (`Protected.inline`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from studio.errors import DataError
from studio.tasks import KOREAN_ENGLISH, LanguagePair
from studio.text.encoding import decode_text
from studio.text.facts import LATIN_LETTER, LATIN_NAME, NUMERAL, TILDES, YEAR_RANGE
from studio.text.numbers import AMOUNT, amount_in_english
from studio.text.script import looks_like
from studio.text.transliteration import sounds_like

MAX_GLOSSARY_ENTRIES = 5000
MAX_TERM_CHARS = 200

_URL = r"(?:https?://|www\.)[^\s<>\"'()\[\]{}가-힣]+[^\s<>\"'()\[\]{}가-힣.,;:!?]"
# the lookbehind: a match starts where a run of these characters does (else a long word is scanned from each
# of its letters in turn, quadratic: 10 s for a 100,000-letter word)
_EMAIL = r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
# "km²" before "km": the square would be left behind the placeholder, where the tokenizer reads "Xq1²" as "Xq12"
_UNIT = r"(?:%|‰|℃|°[CF]?|[A-Za-z]{1,3}[²³]|[A-Za-z]{1,3}(?:/[A-Za-z]{1,2})?)(?![A-Za-z²³])"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2})?(?!\d)"
_NUMBER = rf"(?:[$€£¥₩]\s?{NUMERAL}|{NUMERAL}\s?{_UNIT}|{_CLOCK})"
# a decimal without a unit, which the model rewrote more often than not ("규모 6.8의 강진" -> "4.8", "124.44달러" ->
# "$44.44"), and dotted runs (an IP address, a version, "2024.03.15"); other bare numbers it keeps or writes as words
# ("2개" -> "two"), and protecting them measured worse
_FIGURE = r"(?<![\w.,])\d+(?:\.\d+)+(?![\w.,]?\d)"
# a Korean range, "3~4%", "1.5~2.5", "10:30~11:45", "$10~$20": both ends and the tilde as one span, given with a
# hyphen as English writes it (protecting only the ends left "Xq1~Xq2", which the model wrote as "3 --4%")
_RANGE_END = rf"(?:[$€£¥₩]\s?)?(?:{_CLOCK}|{NUMERAL}(?:\s?{_UNIT})?)"
_RANGE = rf"(?<![\w.,])(?:{YEAR_RANGE}|{_RANGE_END}\s?[{TILDES}]\s?{_RANGE_END})"  # "1995~2005년": years
_TILDE = re.compile(rf"\s?[{TILDES}]\s?")
# a clock time after 오전/오후 (a.m./p.m.), which protecting only the time lost ("오전 10:30" -> "10:30"); also the
# Korean way, hours and minutes ("오후 2시 30분" -> "2:30 p.m."; the model wrote "오후 2시" as "224 p.m."), not a
# number of hours ("2시간"); a range may leave 시 to its end ("오후 6~8시" -> "6-8 p.m.")
_KOREAN_CLOCK = r"\d{1,2}시(?!간)(?:\s?\d{1,2}분)?"
_HOUR_UNTIL = r"\d{1,2}(?=\s?[~∼〜]\s?\d{1,2}시(?!간))"
_TIME = (rf"(?:오전|오후)\s?(?:{_CLOCK}|{_KOREAN_CLOCK}|{_HOUR_UNTIL})"
         rf"(?:\s?[~∼〜]\s?(?:{_CLOCK}|{_KOREAN_CLOCK}))?")
_KOREAN_HOUR = re.compile(r"(?<![\d:])(\d{1,2})(?:시(?:\s?(\d{1,2})분)?|(?=\s?[~∼〜]))")
_HALF_DAY = {"오전": "a.m.", "오후": "p.m."}
# pictographs, arrows, shapes and math signs (emoji, "▲", "※", "→", "±"), and a middle dot that is no word's
# neighbour (a bullet; between words the pipeline makes it a comma): read byte by byte by the tokenizer, they came out
# as other characters ("😊" -> "😜")
_SYMBOL = (r"[\U0001F000-\U0001FAFF\u2600-\u27BF\u2190-\u21FF\u25A0-\u25FF"
           r"\u203B\u00B1\u00D7\u00F7\u2264\u2265\uFE0F\u200D]+|(?<!\w)[·・∙‧](?!\w)")
NUMERIC_KINDS = ("time", "range", "amount", "number", "figure")
AUTO_KINDS = {"url": _URL, "email": _EMAIL, "time": _TIME, "range": _RANGE, "amount": AMOUNT, "number": _NUMBER,
              "figure": _FIGURE, "latin": LATIN_NAME, "symbol": _SYMBOL}


@functools.lru_cache(maxsize=8)
def _auto_pattern(kinds: tuple[str, ...]) -> re.Pattern:
    """One regex for the automatic protection of `kinds` (of AUTO_KINDS, in its order: an earlier kind wins a match
    starting where a later one's does)."""
    return re.compile("|".join(f"(?P<{kind}>{AUTO_KINDS[kind]})" for kind in kinds))


_ADDRESSES = re.compile(f"{_URL}|{_EMAIL}")  # not words of any language
PLACEHOLDER_PREFIX = "Xq"  # a Latin-looking token the model copies through; document formats' markup tokens too
_PLACEHOLDER = PLACEHOLDER_PREFIX + "{}"
# also where the model glued one to a word ("IXq1)"): left there, it would show through
ANY_PLACEHOLDER = re.compile(r"(?<![0-9])Xq\d+(?![0-9])", re.IGNORECASE)
# or written wrongly ("Seq1", "ETq4", "X Q4", "X-q7"; "X1q1", "X23" in capitals): the span's English where the
# placeholder itself is missing
_RESTORED = re.compile(r"(?P<exact>(?<![0-9])Xq\d+(?![0-9]))"
                       r"|(?<![A-Za-z0-9])(?:X[ -]|[A-WYZ](?:[A-Z]?[A-WYZ])?-?)q(?P<number>\d{1,5})(?![0-9])"
                       r"|(?<![A-Za-z0-9])(?-i:X(?:\dq)?)(?P<bare>\d{1,5})(?![0-9A-Za-z])", re.IGNORECASE)
_LEAKED = re.compile(r"Xq\d+", re.IGNORECASE)
# one written twice in a row, only spaces, quotes or a comma between ("'Xq1 'Xq1'"): the English once (see `_once`)
_TWICE_IN_A_ROW = re.compile(r"(?<![0-9])(Xq\d+)([\s'\"“”‘’,]{0,3})\1(?![0-9])", re.IGNORECASE)
_QUOTES = "'\"“”‘’"
_GONE = "\0"  # where a placeholder was removed
_GONE_BEFORE_MARK = re.compile(r"\s*\0\s*(?=[.,;:!?)\]])")
_GONE_IN_BRACKETS = re.compile(r"\s*\(\s*\0\s*\)")  # "the franc (X23)" -> "the franc", not "the franc ()"
_GLUES = re.compile(rf"[{LATIN_LETTER}0-9]")
# "a", "an", "A" or "An", a word of its own, one space before a restored span: the model chose it for the placeholder
# ("an Xq1", read "ex-cue one"), made to agree with the English put there (`article_for`)
_ARTICLE_BEFORE = re.compile(r"(?<!\w)(an?|An?) $")
# how a text starts when read aloud: a number (after a currency sign, read after it: "$5" is "five dollars") or a word
_SPOKEN_START = re.compile(r"(?:[$€£¥₩] ?)?(?:(?P<number>[0-9]+(?:,[0-9]{3})*)|(?P<word>[A-Za-z]+))")
_LETTER_NAMES_AN = "AEFHILMNORSX"  # letters whose name starts with a vowel sound: "an F", "an S"
_HANGUL = re.compile(r"[가-힣ㄱ-ㅎㅏ-ㅣ]")
# what may follow a Korean glossary term inside its word: particles, one after another ("삼성은", "삼성에서는",
# "서울이라는", "삼성과의"), and the copula ("삼성이다"); anything else is a longer word ("삼성전자" is not "삼성")
_PARTICLES = ("은", "는", "이", "가", "을", "를", "의", "에", "엔", "에서", "서", "에게", "한테", "께", "께서", "와", "과",
              "도", "만", "로", "으로", "부터", "로부터", "으로부터", "랑", "이랑", "하고", "까지", "보다", "처럼", "조차",
              "마저", "밖에", "뿐", "이나", "나", "이며", "며", "이란", "란", "이라는", "라는", "이라고", "라고", "이다",
              "다", "였다", "이었다", "입니다", "이에요", "예요", "들", "측")
_KOREAN_TAIL = "(?:" + "|".join(sorted(map(re.escape, _PARTICLES), key=len, reverse=True)) + "){0,3}(?![가-힣])"
# "도이체반(Deutsche Bahn)", "녹색 일자리 펀드 (Green Jobs Fund)": Latin in brackets right after a Korean word. An acronym
# ("국민 보건 서비스(NHS)") is not the name's original but its short form, which English writes beside the name too: left
# to the model, with the acronym protected as Latin.
_NAMED = re.compile(rf"(?<=[가-힣]) ?\(\s*(?P<latin>{LATIN_NAME})\s*\)")
_BRACKET_AFTER = re.compile(rf" ?\(\s*{LATIN_NAME}\s*\)")
_BRACKET_END = re.compile(rf"{_BRACKET_AFTER.pattern}$")
_ACRONYM = re.compile(r"[A-Z0-9][A-Z0-9&.\-]*[A-Z0-9]s?")
_HANGUL_WORD_BEFORE = re.compile(r"(?:^|(?<=[\s\"'“‘(\[「『《〈]))[가-힣]+ ?$")  # a word, or one after an opening mark
# a word ending like these is not part of the name before it ("국영 철도 회사인 도이체반(Deutsche Bahn)")
_NOT_IN_NAME = ("인", "의", "은", "는", "을", "를", "에", "에서", "와", "과", "한", "된", "및", "등", "로", "으로", "이자")
MAX_PROTECTED_CHARS = 2000  # longer pieces (one enormous "word") are decoded unprotected: regexes stay cheap
_LONGEST_WORD = 100  # characters of a Hangul word in a name
_MOST_NAME_WORDS = 8  # a longer bracket is no name to remember (and comparing its sounds would cost its square)
_TYPED_SEPARATOR = re.compile(r"=>|->|=|→")  # a glossary line without a tab: `삼성 = Samsung`


@dataclass(frozen=True)
class Glossary:
    """(Korean term, English) pairs, in the order they were written (a term's matching tries the longest first,
    so "삼성전자" wins over "삼성")."""

    entries: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str, name: str = "glossary") -> "Glossary":
        """`korean<TAB>english` per line (TSV), or `korean = english` (also `→`, `->`, `=>`): a browser's text box
        cannot type a tab. Blank lines and lines starting with # are skipped."""
        entries: dict[str, str] = {}
        written_on: dict[str, int] = {}  # each term's line
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = line.split("\t") if "\t" in line else _TYPED_SEPARATOR.split(line)
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                raise DataError(f"{name}:{number}", "expected the Korean term and its English separated by a tab, "
                                                    f"= or →, got {line[:60]!r}")
            term, english = parts[0].strip(), " ".join(parts[1].split())
            if len(term) > MAX_TERM_CHARS or len(english) > MAX_TERM_CHARS:
                raise DataError(f"{name}:{number}", f"a glossary entry is limited to {MAX_TERM_CHARS} characters")
            if entries.get(term, english) != english:
                raise DataError(f"{name}:{number}", f"{term} is given twice, as {entries[term]!r} on line "
                                                    f"{written_on[term]} and as {english!r} here; keep one")
            entries[term], written_on[term] = english, number
            if len(entries) > MAX_GLOSSARY_ENTRIES:
                raise DataError(name, f"more than {MAX_GLOSSARY_ENTRIES:,} entries")
        return cls.of(entries)

    @classmethod
    def of(cls, entries: dict[str, str]) -> "Glossary":
        return cls(tuple(entries.items()))

    def as_text(self) -> str:
        """The entries as a glossary box shows them, `korean = english` a line (a tab between the two where
        either holds one of the separators), for `parse` to read back."""
        return "\n".join(f"{term}\t{english}" if _TYPED_SEPARATOR.search(term + english) else f"{term} = {english}"
                         for term, english in self.entries)

    def extended(self, other: "Glossary") -> "Glossary":
        """Both glossaries' entries; `other`'s English wins for a term in both."""
        return Glossary.of({**dict(self.entries), **dict(other.entries)})

    @classmethod
    def read(cls, path: str | Path) -> "Glossary":
        """A TSV file (UTF-8, or Korean in CP949); errors name its path."""
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise DataError(str(path), f"cannot read the glossary ({error.strerror or error})") from None
        return cls.from_bytes(data, str(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str) -> "Glossary":
        """A glossary file's bytes (UTF-8, BOM allowed, or Korean in CP949); errors name it as `name`."""
        return cls.parse(decode_text(name, data, "a glossary (.tsv)")[0], name)

    def __bool__(self) -> bool:
        return bool(self.entries)


def protector_for(glossary: Glossary, auto: bool = True) -> "Protector | None":
    """The protection a request asks for: `glossary`, and with `auto` the automatic protection of URLs,
    numbers and Latin names (those the model's language pair calls for: `studio.translation.translate` gives it
    the pair, `Protector.for_pair`); None when there is nothing to do (the plain decoding path)."""
    return Protector(glossary, auto=auto) or None


@dataclass(frozen=True)
class Span:
    placeholder: str
    original: str  # as written in the source
    english: str  # what the output gets
    kind: str  # "glossary", "named", or one of AUTO_KINDS


@dataclass
class Protected:
    """A source with its protected spans replaced by placeholders."""

    text: str
    spans: list[Span] = field(default_factory=list)
    written: frozenset[str] = frozenset()  # "Xq…" tokens the user's own text has (casefolded): never removed

    def restore(self, output: str) -> tuple[str, list[Span], list[Span]]:
        """(the output with every placeholder replaced by its English, spans applied, spans the model dropped).
        One pass over the output, so an English that looks like a placeholder is never replaced again; a
        placeholder the model made up (one this source does not have), or a number's written more often than the
        source has it ("1 million won faces below 1 million won"), is removed, misspelt or not."""
        if not self.spans and not ANY_PLACEHOLDER.search(output):
            return output, [], []
        by_placeholder = {span.placeholder.casefold(): span for span in self.spans}
        written_right = {m.group(0).casefold() for m in ANY_PLACEHOLDER.finditer(output)}
        left = self._counts()
        seen: set[str] = set()

        def english(match: re.Match) -> tuple[str, bool]:  # (what replaces it, whether a span's English)
            if match.group("exact"):
                found = match.group(0).casefold()
                if found not in by_placeholder:
                    return (_GONE if found not in self.written else match.group(0)), False
                if not left[found] and by_placeholder[found].kind in NUMERIC_KINDS:
                    return _GONE, False
            else:  # a misspelt placeholder stands for its span only where the right one is missing
                found = _PLACEHOLDER.format(int(match.group("number") or match.group("bare"))).casefold()
                if found not in by_placeholder or found in written_right or found in seen:
                    return (match.group(0) if match.group(0).casefold() in self.text.casefold() else _GONE), False
            seen.add(found)
            left[found] -= 1
            glued = match.start() and match.string[match.start() - 1].isalpha()
            return (" " if glued else "") + by_placeholder[found].english, True

        output = _put_back(self._once(output), english)
        # one glued between digits ("1Xq124") is no placeholder the rules above can read: it never shows through
        output = _LEAKED.sub(lambda m: m.group(0) if m.group(0).casefold() in self.written else _GONE, output)
        # where one was removed, no space is left before punctuation ("the cell line of ." -> "of.")
        output = " ".join(_GONE_BEFORE_MARK.sub("", _GONE_IN_BRACKETS.sub("", output)).replace(_GONE, " ").split())
        applied = [s for s in self.spans if s.placeholder.casefold() in seen]
        for span in applied:
            if span.english.endswith("."):  # "at 2:00 p.m.." -> "at 2:00 p.m."
                output = output.replace(f"{span.english}.", span.english)
            if span.english.endswith("s") and span.english[-2:-1].isalpha():  # "Brewster Brothers's" -> "…Brothers'"
                output = output.replace(f"{span.english}'s", f"{span.english}'").replace(f"{span.english}’s",
                                                                                          f"{span.english}’")
        return output, applied, [s for s in self.spans if s.placeholder.casefold() not in seen]

    def _once(self, output: str) -> str:
        """`output` with a span's placeholder written twice in a row given once, where the output has it more
        often than the source: "'Xq1 'Xq1'" -> "'Xq1'", "the drama Xq2 “Xq2”" -> "the drama “Xq2”" (a quote between
        them is kept unless one comes before the first)."""
        spans = {span.placeholder.casefold() for span in self.spans} - self.written
        written = [m.group(0).casefold() for m in ANY_PLACEHOLDER.finditer(output)]
        counts = self._counts()

        def once(match: re.Match) -> str:
            found = match.group(1).casefold()
            if found not in spans or written.count(found) <= counts[found]:
                return match.group(0)
            before = match.string[match.start() - 1:match.start()]
            quotes = "" if before and before in _QUOTES else "".join(c for c in match.group(2) if c in _QUOTES)
            return quotes + match.group(1)

        return _TWICE_IN_A_ROW.sub(once, output)

    def repeated(self, output: str) -> list[Span]:
        """The numbers (amounts, figures, ranges, times) whose placeholder `output` has more often than the source:
        a number written twice is a wrong number; a name written twice is English ("Smith ... Mr Smith")."""
        written = [m.group(0).casefold() for m in ANY_PLACEHOLDER.finditer(output)]
        counts = self._counts()
        return [s for s in self.spans if s.kind in NUMERIC_KINDS
                and written.count(s.placeholder.casefold()) > counts[s.placeholder.casefold()]]

    def _counts(self) -> dict[str, int]:
        """How often the source has each span's placeholder (a term written twice shares one)."""
        written = [m.group(0).casefold() for m in ANY_PLACEHOLDER.finditer(self.text)]
        return {s.placeholder.casefold(): written.count(s.placeholder.casefold()) for s in self.spans}

    def inline(self, spans: list[Span]) -> str:
        """The source with `spans` written as their English instead of placeholders (the fallback for a
        sentence whose placeholders the model dropped: it copies Latin text more often than not)."""
        chosen = {span.placeholder.casefold(): span.english for span in spans}
        return ANY_PLACEHOLDER.sub(lambda m: chosen.get(m.group(0).casefold(), m.group(0)), self.text)


@dataclass(frozen=True)
class Protector:
    glossary: Glossary = Glossary()
    auto: bool = True
    names: Glossary = Glossary()  # foreign names a document introduced with their original: see `remembering`
    # the model's languages: which kinds of span automatic protection passes through (`LanguagePair.protects`)
    pair: LanguagePair = KOREAN_ENGLISH

    def __bool__(self) -> bool:
        return bool(self.glossary) or self.auto

    def for_pair(self, pair: LanguagePair) -> "Protector":
        """This protector for a model that translates `pair`: its automatic protection only of the kinds the pair
        calls for (and without the remembered names where it calls for none)."""
        if pair == self.pair:
            return self
        return replace(self, pair=pair, names=self.names if pair.protects("named") else Glossary())

    def remembering(self, text: str) -> "Protector":
        """This protector, also giving each foreign name that `text` (a whole document) introduces with its original
        in brackets ("도이체반(Deutsche Bahn)") that original wherever the name is written alone ("도이체반은 …"):
        Korean news brackets a name's original once, and the model garbles the name alone ("Doyvan"). Only with
        automatic protection; the user's glossary wins for a term in both."""
        if not (self.auto and self.pair.protects("named")):
            return self
        return replace(self, names=introduced_names(text).extended(self.names))  # the first introduction wins

    def protect(self, source: str) -> Protected:
        if len(source) > MAX_PROTECTED_CHARS:
            return Protected(source)
        if self.auto and self.pair.korean_source and looks_like(language_sample(source)):
            return self._protect(source, auto=False)  # not Korean: the language hint needs to see it as written
        return self._protect(source, self.auto)

    def _protect(self, source: str, auto: bool) -> Protected:
        found: list[tuple[int, int, str, str]] = []  # (start, end, kind, english), not overlapping
        # "Xq…" tokens already in the source (the user's, or a document format's markup) pass through as they are
        tokens = [match.span() for match in ANY_PLACEHOLDER.finditer(source)]

        def free(start: int, end: int) -> bool:
            return all(end <= s or start >= e for s, e in [*tokens, *((s, e) for s, e, _, _ in found)])

        if self.glossary:
            english_of = dict(self.glossary.entries)
            for match in _glossary_pattern(self.glossary.entries).finditer(source):
                term = match.group("term")
                end = match.start() + len(term)
                bracket = _BRACKET_AFTER.match(source, end)  # "삼성전자(Samsung Electronics)": the term's English once
                if free(match.start(), bracket.end() if bracket else end):  # not a term inside that bracket
                    found.append((match.start(), bracket.end() if bracket else end, "glossary", english_of[term]))
        if auto and self.pair.protects("named"):
            own = introduced_names(source) if "(" in source else Glossary()
            # the document's names when they have this sentence's already: one compiled pattern for all its sentences
            names = own.extended(self.names) if own and not set(dict(own.entries)) <= set(dict(self.names.entries)) \
                else self.names
            original_of = dict(names.entries)
            for match in _glossary_pattern(names.entries).finditer(source) if names else ():
                term = match.group("term")
                end = match.start() + len(term)
                # its bracket too when it holds this original ("도이체반(Deutsche Bahn)"); another ("(HRW)") stays
                bracket = _BRACKET_AFTER.match(source, end)
                if bracket and bracket.group(0).strip(" ()").casefold() == original_of[term].casefold() and free(
                        match.start(), bracket.end()):
                    end = bracket.end()
                if free(match.start(), end):
                    found.append((match.start(), end, "named", original_of[term]))
            for start, end, english in _named(source):
                if free(start, end):
                    found.append((start, end, "named", english))
        if auto:
            kinds = tuple(kind for kind in AUTO_KINDS if self.pair.protects(kind))
            for match in _auto_pattern(kinds).finditer(source) if kinds else ():
                english = _english(match.lastgroup, match.group(0))
                if english and free(*match.span()):
                    found.append((*match.span(), match.lastgroup, english))
        taken = frozenset(m.group(0).casefold() for m in ANY_PLACEHOLDER.finditer(source))
        numbers = (n for n in range(1, 100_000) if _PLACEHOLDER.format(n).casefold() not in taken)
        spans: dict[tuple[str, str], Span] = {}  # the same term twice in a sentence shares one placeholder
        pieces, position = [], 0
        for start, end, kind, english in sorted(found):
            original = source[start:end]
            if kind in ("glossary", "named"):  # the term, with or without its bracket, is one span with one placeholder
                original = _BRACKET_END.sub("", original)
            if (original, kind) not in spans:
                spans[original, kind] = Span(_PLACEHOLDER.format(next(numbers)), original, english, kind)
            # a placeholder touching a Latin letter, a digit or another placeholder ("▲3.5%", "±5") would be read
            # as another one ("Xq15")
            pieces.append(source[position:start])
            if _GLUES.match(next((piece[-1] for piece in reversed(pieces) if piece), "")):
                pieces.append(" ")
            pieces.append(spans[original, kind].placeholder)
            if _GLUES.match(source[end:end + 1]):
                pieces.append(" ")
            position = end
        return Protected("".join(pieces) + source[position:], list(spans.values()), taken)


def _put_back(output: str, english: Callable[[re.Match], tuple[str, bool]]) -> str:
    """`_RESTORED.sub` with `english(match)` giving (what replaces the match, whether that is a span's English), and an
    article the model wrote right before a span's English made to agree with it ("an Xq1" -> "a 3.5 trillion won")."""
    pieces, position = [], 0
    for match in _RESTORED.finditer(output):
        replacement, restored = english(match)
        article = restored and _ARTICLE_BEFORE.search(output, max(0, match.start() - 3), match.start())
        if article:
            pieces += [output[position:article.start()], _agreeing(article.group(1), replacement), " "]
        else:
            pieces.append(output[position:match.start()])
        pieces.append(replacement)
        position = match.end()
    return "".join(pieces) + output[position:]


def _agreeing(article: str, english: str) -> str:
    """`article` ("a", "an", "A", "An") as `english` wants it, its capital kept; as it is where that is unknown."""
    wanted = article_for(english)
    if wanted is None:
        return article
    return wanted.capitalize() if article[0] == "A" else wanted


def article_for(text: str) -> str | None:
    """"an" where `text` read aloud starts with a vowel sound, else "a"; None where its start is neither an ASCII digit
    nor an ASCII letter (a symbol, a quote, "É": left as the model wrote it). A number is read in groups of three
    digits ("1,100" and "1100": "one thousand one hundred", "18,000": "eighteen thousand"), a currency sign after it
    ("$8": "eight dollars"). An all-capital word of up to four letters is read letter by letter ("an FBI", "a US"; so
    also "an NASA", a miss); other words by their first letter ("an iPhone"; "an University", "a hour" are misses)."""
    start = _SPOKEN_START.match(text)
    if start is None:
        return None
    if start.group("number"):
        digits = start.group("number").replace(",", "")
        first = int(digits[:len(digits) % 3 or 3])  # the group read first: "eighteen" (thousand), "eight hundred"
        return "an" if first in (8, 11, 18) or 80 <= first <= 89 or 800 <= first <= 899 else "a"
    word = start.group("word")
    if word.isupper() and len(word) <= 4:
        return "an" if word[0] in _LETTER_NAMES_AN else "a"
    return "an" if word[0] in "aeiouAEIOU" else "a"


def _english(kind: str, text: str) -> str | None:
    """What the output gets for an automatically protected span: mostly the span as written."""
    if kind == "amount":
        return amount_in_english(text)
    if kind == "time":
        half = _HALF_DAY[text[:2]]
        return f"{_TILDE.sub('-', _KOREAN_HOUR.sub(_clock, text[2:].strip()))} {half}"
    return _TILDE.sub("-", text.removesuffix("년")) if kind == "range" else text


def _clock(hour_and_minutes: re.Match) -> str:
    """"2시 5분" as English writes it: "2:05" (hour 0 is 12: "오전 0시" is 12 a.m., "오후 0시 30분" 12:30 p.m.)."""
    hour, minutes = hour_and_minutes.groups()
    hour = int(hour) or 12
    return f"{hour}:{int(minutes):02d}" if minutes else str(hour)


def language_sample(text: str) -> str:
    """The text a language guess should read: without URLs and e-mail addresses (no language's words) and without
    placeholders ("Xq1": term protection's, or a document format's markup tokens)."""
    return _ADDRESSES.sub(" ", ANY_PLACEHOLDER.sub(" ", text))


def introduced_names(text: str) -> Glossary:
    """The foreign names `text` writes in Hangul with their original in brackets, Hangul -> original, where the
    Hangul sounds like the original (`studio.text.transliteration`): not a translated name ("녹색 일자리 펀드(Green
    Jobs Fund)"), a word before an original that is not its transliteration, or an original in lower case (a term,
    not a name). A one-word name needs three syllables: two-syllable words are too often Korean words as well ("나라
    (Nara)" is also "country", "우리(Uri)" "we"), left to the bracket they stand before. The first introduction of a
    name wins."""
    names: dict[str, str] = {}
    for start, end, latin in _named(text):
        if (len(names) >= MAX_GLOSSARY_ENTRIES or not latin[:1].isupper() or len(latin.split()) > _MOST_NAME_WORDS
                or len(latin) > MAX_TERM_CHARS):
            continue
        words = _BRACKET_END.sub("", text[start:end]).split()
        # the longest run of the words before the bracket that sounds like it: "국제 인권단체 휴먼라이츠워치(Human
        # Rights Watch)" introduces "휴먼라이츠워치"
        for korean in (" ".join(words[first:]) for first in range(len(words))):
            if (len(korean) >= 3 or " " in korean) and sounds_like(korean, latin):
                names.setdefault(korean, latin)  # the first introduction wins
                break
    return Glossary.of(names)


def _named(source: str) -> list[tuple[int, int, str]]:
    """(start, end, the Latin) for each Korean name written with its original in brackets. The Korean taken is
    as many words as the Latin has, walking back over whole Hangul words and stopping at one that ends like a
    particle or a modifier: "비센테 시소(Vicente Siso)" whole, only "도이체반" of "회사인 도이체반(Deutsche Bahn)"."""
    spans = []
    for match in _NAMED.finditer(source):
        latin = match.group("latin")
        if _ACRONYM.fullmatch(latin) or _ADDRESSES.fullmatch(latin):
            continue
        start = match.start()
        for taken in range(len(latin.split())):
            word = _HANGUL_WORD_BEFORE.search(source, max(0, start - _LONGEST_WORD), start)  # linear in all
            if word is None or (taken and word.group(0).rstrip().endswith(_NOT_IN_NAME)):
                break
            start = word.start()
        if start < match.start():
            spans.append((start, match.end(), latin))
    return spans


@functools.lru_cache(maxsize=16)
def _glossary_pattern(entries: tuple[tuple[str, str], ...]) -> re.Pattern:
    """One regex for every term, longest first (so "삼성전자" wins over "삼성"), compiled once per glossary.
    A term starts a word; a Korean term may be followed by a particle, a Latin one ends its word."""
    terms = sorted((term for term, _ in entries), key=len, reverse=True)
    korean = [t for t in terms if _HANGUL.search(t[-1])]
    other = [t for t in terms if not _HANGUL.search(t[-1])]
    parts = []
    if korean:
        parts.append("(?:" + "|".join(map(re.escape, korean)) + ")" + f"(?={_KOREAN_TAIL})")
    if other:
        parts.append("(?:" + "|".join(map(re.escape, other)) + r")(?![A-Za-z0-9])")
    return re.compile(r"(?<!\w)(?P<term>" + "|".join(parts) + ")")


_HANGUL_RUN, _HANGUL_RUN_END = re.compile("[가-힣]*"), re.compile("[가-힣]*$")
MAX_NAMED = 10  # dropped spans named in the report; more are counted


def inside_longer_words(glossary: Glossary, text: str) -> dict[str, str]:
    """Korean glossary terms that `text` has inside a longer word, where they are not applied ("삼성" in
    "삼성전자는": another word; also before an ending that is no particle `_PARTICLES` knows, "삼성이지만"), each with
    the first such word. One pass over the text, whatever the glossary's size."""
    anywhere = _korean_terms_anywhere(glossary.entries)
    if anywhere is None or not text:
        return {}
    applied = {(m.start(), m.group("term")) for m in _glossary_pattern(glossary.entries).finditer(text)}
    found: dict[str, str] = {}
    for match in anywhere.finditer(text):
        term = match.group(0)
        if (match.start(), term) not in applied and term not in found:
            before = _HANGUL_RUN_END.search(text, max(0, match.start() - _LONGEST_WORD), match.start()).group(0)
            word = before + term + _HANGUL_RUN.match(text, match.end()).group(0)  # the word it is in
            if word != term:  # (after a Latin letter or a digit: not a longer Korean word)
                found[term] = word
    return found


@functools.lru_cache(maxsize=16)
def _korean_terms_anywhere(entries: tuple[tuple[str, str], ...]) -> re.Pattern | None:
    """The Korean terms wherever they are written, longest first; None without any."""
    korean = sorted((term for term, _ in entries if _HANGUL.search(term)), key=len, reverse=True)
    return re.compile("|".join(map(re.escape, korean))) if korean else None


def describe(report: list[tuple[Span, bool]], glossary: Glossary | None = None, text: str = "") -> str:
    """One line on what protection did: each glossary entry applied or not, and each automatically protected
    span (number, name, URL) the model dropped, named ("127.95", "30억 달러 → $3 billion"); given the `glossary`
    and the translated `text`, also the terms found only inside longer words. Empty when there is nothing to
    say."""
    entries: dict[tuple[str, str], list[bool]] = {}
    dropped: dict[str, int] = {}
    for span, applied in report:
        if span.kind == "glossary":
            entries.setdefault((span.original, span.english), []).append(applied)
        elif not applied:
            name = span.original if span.english in span.original else f"{span.original} → {span.english}"
            dropped[name] = dropped.get(name, 0) + 1
    parts = []
    for (term, english), outcomes in entries.items():
        done = sum(outcomes)
        state = ("applied" if done == len(outcomes) else f"applied {done} of {len(outcomes)} times" if done
                 else "not applied: the model dropped it")
        parts.append(f"{term} → {english} ({state})")
    line = f"Glossary: {'; '.join(parts)}." if parts else ""
    if dropped:
        names = [f"{name} ({times} times)" if times > 1 else name for name, times in dropped.items()]
        if len(names) > MAX_NAMED:
            names = names[:MAX_NAMED] + [f"and {len(names) - MAX_NAMED} more"]
        them = "them" if len(dropped) > 1 or sum(dropped.values()) > 1 else "it"
        line += f"{' ' if line else ''}Not kept as written (the model dropped {them}): {', '.join(names)}."
    inside = inside_longer_words(glossary, text) if glossary else {}
    if inside:
        named = [f"{term} (in {word})" for term, word in list(inside.items())[:MAX_NAMED]]
        named += [f"and {len(inside) - MAX_NAMED} more"] if len(inside) > MAX_NAMED else []
        line += (f"{' ' if line else ''}Not applied inside a longer word or before an ending it does not take (add "
                 f"that word to the glossary to translate it so): {', '.join(named)}.")
    return line
