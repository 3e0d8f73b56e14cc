"""Korean dates in English, and a translation's month names checked against its source's.

`2018년 9월 30일` is "September 30, 2018", `9월 30일` "September 30", `2018년 9월` "September 2018" and `2018년` "2018"
(`date_in_english`). The model writes most dates right, and in its own words ("on Sept. 30", "since 2018"): a
placeholder where the date stood lost those words and measured worse (docs/translator-training.md, "Korean amounts
in English"). Its digits are the decode loop's to keep (`studio.generate.figures`: no number the source lacks);
what is left is the month's name, which the model sometimes gets wrong ("On September 9" for `1월 9일`).
`repair_months` puts the source's month where the output names another one beside the same day or year, in the
output's own style (a full name, or an abbreviation such as "Sept.").
"""

from __future__ import annotations

import re

from studio.text.facts import MONTHS, SHORT, SHORT_NAMES, KoreanDate, korean_dates

_NAME = r"(?P<name>" + "|".join(MONTHS) + r"|(?:" + "|".join(n.capitalize() for n in SHORT_NAMES) + r")\b\.?)"


def date_in_english(date: KoreanDate) -> str:
    """ "September 30, 2018", "September 30", "September 2018" or "September"."""
    name = MONTHS[date.month - 1]
    if date.day is not None:
        return f"{name} {date.day}" + (f", {date.year}" if date.year is not None else "")
    return name + (f" {date.year}" if date.year is not None else "")


def _month_of(name: str) -> int:
    name = name.rstrip(".").casefold()
    return next((i + 1 for i, full in enumerate(MONTHS) if full.casefold() == name), None) or SHORT_NAMES[name]


def _written_like(name: str, month: int) -> str:
    """`month`'s name as `name` is written: in full, or abbreviated (a full name where news English has no short
    one); a dot only where `name` had one."""
    if name.rstrip(".").casefold() in (m.casefold() for m in MONTHS):
        return MONTHS[month - 1]
    short = SHORT.get(month, MONTHS[month - 1])
    return short if name.endswith(".") or short == MONTHS[month - 1] else short.rstrip(".")


def repair_months(source: str, output: str) -> str:
    """`output` with each month name that stands beside a day or year of one of `source`'s dates ("September 9",
    "9 September", "September 2018") made that date's month, when the day or year belongs to one month only."""
    by_anchor: dict[str, set[int]] = {}
    for date in korean_dates(source):
        for anchor in (date.day, date.year):
            if anchor is not None:
                by_anchor.setdefault(str(anchor), set()).add(date.month)
    months = {anchor: next(iter(found)) for anchor, found in by_anchor.items() if len(found) == 1}
    if not months:
        return output
    anchors = "|".join(sorted(months, key=len, reverse=True))
    after = re.compile(rf"\b{_NAME}(?P<gap>\s+)(?P<anchor>{anchors})(?!\d)")
    before = re.compile(rf"(?<!\d)(?P<anchor>{anchors})(?:st|nd|rd|th)?(?P<gap>\s+(?:of\s+)?){_NAME}")

    def fixed(match: re.Match) -> str:
        name, month = match["name"], months[match["anchor"]]
        if _month_of(name) == month:
            return match.group(0)
        start, end = match.span("name")
        return match.group(0)[: start - match.start()] + _written_like(name, month) + match.group(0)[end - match.start():]

    return before.sub(fixed, after.sub(fixed, output))
