"""Facts a translation keeps: the source's years (`2018년`), its other figures (digits, amounts as
`studio.text.numbers` writes them in English, months by name) and its Latin-script names, each counted as kept
when the output has it. chrF barely notices a changed year (2018 -> 1818 is one character); this counts it. The
same shares for the reference translation are the ceiling: a human translator also writes "two" for `2개`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from studio.text.dates import MONTHS, YEAR
from studio.text.numbers import AMOUNT, amount_in_english

MONTH = re.compile(r"(?<![\d.,])(1[0-2]|0?[1-9])\s?월")
DIGITS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\d.,])\d+(?:\.\d+)?")
LATIN = re.compile(r"[A-Za-z][A-Za-z0-9&'’.\-]*[A-Za-z0-9](?: [A-Za-z][A-Za-z0-9&'’.\-]*[A-Za-z0-9])*|[A-Za-z]{2,}")
KINDS = ("years", "figures", "names")


@dataclass
class Facts:
    """Counts over a set: of each kind, how many the sources hold and how many the outputs kept."""
    found: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    kept: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def share(self, kind: str) -> float | None:
        return self.kept[kind] / self.found[kind] if self.found[kind] else None

    def as_dict(self) -> dict:
        return {kind: {"found": self.found[kind], "kept": self.kept[kind]} for kind in KINDS}


def facts_kept(sources: Sequence[str], outputs: Sequence[str]) -> Facts:
    """How many of the sources' years, figures and Latin names the outputs (one per source) keep."""
    facts = Facts()
    for source, output in zip(sources, outputs):
        for kind, wanted in source_facts(source).items():
            for forms in wanted:
                facts.found[kind] += 1
                facts.kept[kind] += any(_has(output, form) for form in forms)
    return facts


def source_facts(source: str) -> dict[str, list[tuple[str, ...]]]:
    """Each fact of `source` by kind, as the forms an English output may have it in (any one counts)."""
    found: dict[str, list[tuple[str, ...]]] = {kind: [] for kind in KINDS}
    taken: list[tuple[int, int]] = []
    for match in YEAR.finditer(source):
        found["years"] += [(year,) for year in match.groups() if year]
        taken.append(match.span())
    for match in re.finditer(AMOUNT, source):
        if _free(match.span(), taken):
            english = amount_in_english(match.group())
            if english:
                found["figures"].append((english, english.lstrip("$€£")))
                taken.append(match.span())
    for match in MONTH.finditer(source):
        if _free(match.span(), taken):
            month = MONTHS[int(match.group(1)) - 1]
            found["figures"].append((month, month[:3] + ".", *(("Sept.",) if month == "September" else ())))
            taken.append(match.span())
    for match in DIGITS.finditer(source):
        if _free(match.span(), taken):
            found["figures"].append((match.group().replace(",", ""),))
    found["names"] = [(match.group(),) for match in LATIN.finditer(source)]
    return found


def _free(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return all(span[1] <= start or span[0] >= end for start, end in taken)


def _has(output: str, form: str) -> bool:
    if form.replace(".", "").isdigit():  # a number: the same digits, thousands separators aside
        return form in {d.replace(",", "") for d in DIGITS.findall(output)}
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", output, re.IGNORECASE) is not None


def describe(kept: Facts, ceiling: Facts) -> str:
    """"years 88% (100%) · figures 81% (84%) · names 76% (80%)": the outputs' shares, the references' in
    brackets; a kind the set does not have is left out."""
    parts = [f"{kind} {kept.share(kind):.0%} ({ceiling.share(kind):.0%})" for kind in KINDS
             if kept.share(kind) is not None and ceiling.share(kind) is not None]
    return " · ".join(parts) or "-"
