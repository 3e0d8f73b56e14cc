"""Facts a translation keeps: the source's years (`2018년`), its other figures (digits, amounts as
`studio.text.numbers` writes them in English, months by name) and its Latin-script names, each counted as kept
when the output has it. chrF barely notices a changed year (2018 -> 1818 is one character); this counts it. The
same shares for the reference translation are the ceiling: a human translator also writes "two" for `2개`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from studio.text.facts import (korean_amounts, korean_dates, latin_names, month_forms, number_values,
                                written_numbers, year_spans)

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
    """Each fact of `source` by kind, as the forms an English output may have it in (any one counts). A number
    is counted once: as a year, else as a Korean amount or a month, else as the number it is
    (`studio.text.facts`: the numbers the decode guard lets the model write)."""
    found: dict[str, list[tuple[str, ...]]] = {kind: [] for kind in KINDS}
    taken: list[tuple[int, int]] = []
    for span, years in year_spans(source):
        found["years"] += [(year,) for year in years]
        taken.append(span)
    for span, english in korean_amounts(source):
        if _free(span, taken):
            found["figures"].append((english, english.lstrip("$€£")))
            taken.append(span)
    for date in korean_dates(source):
        if _free(date.span, taken):
            found["figures"].append(month_forms(date.month))
            taken.append(date.span)
    found["figures"] += [(value,) for span, value in written_numbers(source) if _free(span, taken)]
    found["names"] = [(name,) for name in latin_names(source)]
    return found


def _free(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return all(span[1] <= start or span[0] >= end for start, end in taken)


def _has(output: str, form: str) -> bool:
    if form.replace(".", "").isdigit():  # a number: the same digits, thousands separators aside
        return form in number_values(output)
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", output, re.IGNORECASE) is not None


def describe(kept: Facts, ceiling: Facts) -> str:
    """"years 88% (100%) · figures 81% (84%) · names 76% (80%)": the outputs' shares, the references' in
    brackets; a kind the set does not have is left out."""
    parts = [f"{kind} {kept.share(kind):.0%} ({ceiling.share(kind):.0%})" for kind in KINDS
             if kept.share(kind) is not None and ceiling.share(kind) is not None]
    return " · ".join(parts) or "-"
