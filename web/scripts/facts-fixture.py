"""Writes web/test/facts-cases.json: Python's answers (studio/text/facts.py: years, months, numbers, Korean amounts
and Latin names) for the texts that web/src/facts.js must read alike (web/test/facts.test.mjs checks it). Rerun it
after changing how facts are recognised, and port the change:

    .venv/bin/python web/scripts/facts-fixture.py

tests/unit/test_web_fixtures.py fails while the committed file is not what this writes.
"""

import json
import random
import sys
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "test" / "facts-cases.json"

TEXTS = [
    "2018년 9월 30일 마케도니아의 총리 조란 자예브(Zoran Zaev)는 참여했다.", "1,2차 세계 대전", "2024.03.15 발표",
    '"Misery" (Rob Reiner,1990)', "No.1 법원", "12,34와 1,234.5,6", "30억 달러와 3천5백만 원, 1만8500메가와트",
    "１２３ 전각, ２０１８년 ９월", "2018~2020년, 1995-2005년, 2000명", "10:30~11:45", "세 명이 다쳤다.", "3.",
    "1,000,000원", "v2.0.1과 192.168.0.1", "지난 12월 1일과 1.5월", "3.2018년 5월", "독일경제연구소(IW Köln)와 FTSE 250",
    "😊 2018년 😊 9월 30일 😊 1,500명", "José Mourinho와 Jean-Claude, COVID-19", "2018 년 9 월 30 일", "09월 05일",
    "제3조 2항", "iPhone 15 Pro Max", "13월 0월 32일", "\u00a02018\u00a0년", "12345.67달러 Xq1 Xq12",
]
PIECES = ["1", "23", "456", "7890", ",", ".", " ", "년", "월", "일", "만", "억", "원", "~", "-", "달러", "A", "Bc", "é",
          "😊", "１"]


def texts() -> list[str]:
    rng = random.Random(14)
    return TEXTS + ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14))) for _ in range(200)]


def cases() -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from studio.text import facts

    def answers(text: str) -> dict:
        return {"text": text, "years": sorted(facts.source_years(text)),
                "dates": [[d.month, d.day, d.year, text[slice(*d.span)]] for d in facts.korean_dates(text)],
                "numbers": [[text[slice(*span)], value] for span, value in facts.written_numbers(text)],
                "amounts": [[text[slice(*span)], english] for span, english in facts.korean_amounts(text)],
                "allowed": sorted(facts.source_numbers(text)), "names": facts.latin_names(text)}

    return {
        "format": "transformer-studio-web-facts/1",
        "written_by": "web/scripts/facts-fixture.py",
        "month_forms": [list(facts.month_forms(month)) for month in range(1, 13)],
        "texts": [answers(text) for text in texts()],
    }


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(cases(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE}")
