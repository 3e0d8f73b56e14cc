"""The facts a translation must keep — years, months, numbers and Latin-script names — recognised in one place.

Four parts of the app look for them: the fidelity figures count what outputs keep (`studio.fidelity`), the decode
guard forbids a number its source lacks and prefers outputs that keep its years (`studio.generate.figures`), dates
get the source's month back (`studio.text.dates`) and term protection passes numbers and names through
(`studio.text.protect`). Each reads a text's facts here, so a number the figures count is one the guard lets the
model write: every value of `written_numbers(text)` is in `source_numbers(text)`.

The web page's port is web/src/facts.js, held to this module's answers by web/test/facts-cases.json
(web/scripts/facts-fixture.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from studio.text.numbers import AMOUNT, amount_in_english

TILDES = "~∼〜"  # the marks Korean writes a range with: `2018~2020년`, `3~4%`
SEPARATORS = ",."  # what a number is written with between its digits (and what may end one: "in 2018.")

# a number as one reads it: digits, thousands commas, a decimal; the lookbehind: no rescans inside a run of digits
NUMERAL = r"(?<![\d.,])\d+(?:,\d{3})*(?:\.\d+)?"
# a number as written, with any separators between its digits, and a period or comma after it
NUMBER_RUN = re.compile(r"\d[\d.,]*")
# a run that is one number: "1,500", "3.5", "2024.03.15"; else it is a list of them ("1,2,3", "12,34")
_ONE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*")
_AMOUNT = re.compile(AMOUNT)

# a year as Korean writes it: `2018년`, a range `2018~2020년` or `2018-2020년`
YEAR = re.compile(rf"(?<![\d.,])(\d{{4}})(?:\s?[{TILDES}-]\s?(\d{{4}}))?\s?년")
YEAR_RANGE = rf"\d{{4}}\s?[{TILDES}]\s?\d{{4}}년"  # a span of years, which English writes with a hyphen

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
# the abbreviations news English writes (AP style: no short form for March to July)
SHORT = {1: "Jan.", 2: "Feb.", 8: "Aug.", 9: "Sept.", 10: "Oct.", 11: "Nov.", 12: "Dec."}
SHORT_NAMES = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
               "oct": 10, "nov": 11, "dec": 12}
# a Korean date that names a month: `2018년 9월 30일`, `9월 30일`, `2018년 9월`, `9월`
KOREAN_DATE = re.compile(r"(?<![\d.,])(?:(?P<year>\d{4})\s?년\s?)?(?P<written>(?P<month>1[0-2]|0?[1-9])\s?월)"
                         r"(?:\s?(?P<day>3[01]|[12][0-9]|0?[1-9])\s?일)?")

# Latin script with diacritics ("Köln", "José"): without them a name was cut into pieces around the letter
LATIN_LETTER = "A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F"
# words joined by single spaces, a number among them ("iPhone 15"); a hyphen only inside a word ("Jean-Claude",
# "COVID-19"): were a hyphen also a separator, a run of Latin words with no closing bracket after it would take
# exponential time to give up on
_LATIN_WORD = rf"[{LATIN_LETTER}][{LATIN_LETTER}0-9&'’.\-]*[{LATIN_LETTER}0-9]"
LATIN_NAME = rf"{_LATIN_WORD}(?: (?:{_LATIN_WORD}|\d+))*"
_LATIN_NAME = re.compile(LATIN_NAME)


@dataclass(frozen=True)
class KoreanDate:
    month: int
    day: int | None = None
    year: int | None = None
    span: tuple[int, int] = field(default=(0, 0), compare=False)  # where the month is written: `9월`


def korean_dates(text: str) -> list[KoreanDate]:
    """The dates of `text` that name a month."""
    return [KoreanDate(int(m["month"]), int(m["day"]) if m["day"] else None, int(m["year"]) if m["year"] else None,
                       m.span("written")) for m in KOREAN_DATE.finditer(text)]


def month_forms(month: int) -> tuple[str, ...]:
    """The ways English writes `month` (1-12): "September", "Sep.", "Sept."."""
    name = MONTHS[month - 1]
    return tuple(dict.fromkeys((name, name[:3] + ".", SHORT.get(month, name))))


def source_years(text: str) -> frozenset[str]:
    """The years `text` writes as years: {"2018", "2020"} for `2018년에서 2020년까지` or `2018~2020년`."""
    return frozenset(year for match in YEAR.finditer(text) for year in match.groups() if year)


def year_spans(text: str) -> list[tuple[tuple[int, int], tuple[str, ...]]]:
    """Each year (or span of years) of `text`: where it is written, and its years."""
    return [(match.span(), tuple(year for year in match.groups() if year)) for match in YEAR.finditer(text)]


def written_numbers(text: str) -> list[tuple[tuple[int, int], str]]:
    """Each number `text` writes: where, and its value without thousands commas ("1,500" -> "1500", "3.5",
    "2024.03.15"); a run that is a list ("1,2,3") gives each of its numbers."""
    found = []
    for run in NUMBER_RUN.finditer(text):
        body = run.group().rstrip(SEPARATORS)
        if _ONE_NUMBER.fullmatch(body):
            found.append(((run.start(), run.start() + len(body)), body.replace(",", "")))
            continue
        for part in re.finditer(r"[^.,]+", body):
            found.append(((run.start() + part.start(), run.start() + part.end()), part.group()))
    return found


def number_values(text: str) -> set[str]:
    """The values of the numbers `text` writes (`written_numbers`)."""
    return {value for _, value in written_numbers(text)}


def korean_amounts(text: str) -> list[tuple[tuple[int, int], str]]:
    """Each Korean amount of `text` that reads as one (`studio.text.numbers`): where, and its English."""
    found = []
    for match in _AMOUNT.finditer(text):
        english = amount_in_english(match.group())
        if english:
            found.append((match.span(), english))
    return found


def source_numbers(text: str) -> frozenset[str]:
    """The numbers a translation of `text` may write: each number without thousands commas and its parts
    between separators ("2018년 9월 1,500명이 3.5배" -> {"2018", "9", "1500", "1", "500", "3.5", "3", "5"}), a Korean
    amount's also as English writes it (`1만8500` -> "18,500")."""
    numbers = set()
    amounts = [english for _, english in korean_amounts(text)]
    for run in NUMBER_RUN.findall(" ".join([text, *amounts])):
        body = run.rstrip(SEPARATORS)
        numbers.add(body.replace(",", ""))
        numbers.update(part for part in re.split(r"[.,]", body) if part)
    return frozenset(numbers)


def latin_names(text: str) -> list[str]:
    """The runs of Latin script `text` writes: "Zoran Zaev", "iPhone 15", "Köln"."""
    return [match.group() for match in _LATIN_NAME.finditer(text)]
