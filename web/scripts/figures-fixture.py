"""Writes web/test/figures-cases.json: Python's answers (studio/generate/figures.py, studio/text/dates.py) for the
cases that web/src/figures.js and dates.js must answer alike (web/test/figures.test.mjs checks it). Rerun it after
changing the figure guard or the date handling, and port the change:

    .venv/bin/python web/scripts/figures-fixture.py

tests/unit/test_web_fixtures.py fails while the committed file is not what this writes.
"""

import json
import random
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "test" / "figures-cases.json"

SOURCES = [
    "2018년 9월 30일 마케도니아의 총리는 참여했다.", "2011년부터 2,473개의 매장을 열었다.", "3.5배, 1,500명, 09월",
    "1만8500메가와트, 30억 달러, 3천5백만 원", "2018~2020년, 1995-2005년", "지난 2일 발표했다.", "세 명이 다쳤다.",
    "12345.67달러 Xq1 Xq12", "１２３ 전각", "1,2,3 그리고 4.",
]
# a vocabulary of the pieces that matter: digits alone and in groups, separators, words, a byte piece, specials
PIECES = ["<pad>", "<s>", "</s>", "<unk>", *"0123456789", "\u25811", "\u25812", "\u258118", "\u258120", "\u258130",
          "18", "23", "500", ",000", ",", ".", "...", ",\u2581and", "\u2581in", "\u2581the", "nd", "\u2581two",
          "<0x37>", "<0x2C>", "Xq", "\u2581", "\u2581Sept.", "%", "\uff11"]


def walks(guard, numbers, seed: int) -> list[dict]:
    """A few random paths through what the guard allows, with the banned ids at every step."""
    rng, found = random.Random(seed), []
    for _ in range(6):
        history, steps = [], []
        for _ in range(10):
            banned = [int(i) for i in guard.banned(history, numbers)]
            steps.append({"history": list(history), "banned": banned})
            allowed = [i for i in range(len(PIECES)) if i not in set(banned)]
            token = rng.choice(allowed)
            if token == 2:
                break
            history.append(token)
        found.append(steps)
    return found


def cases() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from studio.generate.figures import FigureGuard, written_forms
    from studio.text.dates import date_in_english
    from studio.text.facts import korean_dates, source_numbers, source_years

    guard = FigureGuard(PIECES, 2)
    return {
        "format": "transformer-studio-web-figures/1",
        "written_by": "web/scripts/figures-fixture.py",
        "pieces": PIECES,
        "sources": [{"source": s, "numbers": sorted(source_numbers(s)), "forms": sorted(written_forms(source_numbers(s))),
                     "years": sorted(source_years(s)),
                     "dates": [date_in_english(d) for d in korean_dates(s)],
                     "walks": walks(guard, source_numbers(s), seed)} for seed, s in enumerate(SOURCES)],
    }


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(cases(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
