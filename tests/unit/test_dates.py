"""Dates in a translation (issue 41): every Korean date form's English, the month the model names put right, and
the digits of each form the only ones the decode loop lets the model write (`studio.generate.figures`)."""

import pytest

from studio.generate.figures import FigureGuard
from studio.text.dates import date_in_english, repair_months
from studio.text.facts import KoreanDate, korean_dates, source_numbers
from studio.translation import finish_sentence

DIGIT_PIECES = ["<pad>", "<s>", "</s>", "\u2581in", "\u2581the", "\u25812", "\u258120", "\u258118", "0", "1", "2", "8",
                "9", "18", "\u2581to", "nd", "~", "-", "\u2581two"]
GUARD = FigureGuard(DIGIT_PIECES, 2)


def writable(source: str, *pieces: str) -> bool:
    """Whether the decode loop lets the model write `pieces` (then end) for `source`."""
    numbers, history = source_numbers(source), []
    for piece in [*pieces, "</s>"]:
        token = DIGIT_PIECES.index(piece)
        if token in GUARD.banned(history, numbers):
            return False
        history.append(token)
    return True


@pytest.mark.parametrize("korean, english", [
    ("2018년 9월 30일", "September 30, 2018"), ("9월 30일", "September 30"), ("2018년 9월", "September 2018"),
    ("9월", "September"), ("2018년 09월 01일", "September 1, 2018"), ("2018 년 9 월 30 일", "September 30, 2018"),
])
def test_every_korean_date_form_has_its_english(korean, english):
    assert [date_in_english(d) for d in korean_dates(korean)] == [english]


def test_a_year_alone_and_a_range_are_digits_the_model_keeps():
    assert korean_dates("2018년부터 2018~2020년, 지난 2일") == []  # no month: nothing to name, digits only
    assert writable("2018년부터", "\u258120", "1", "8") and not writable("2018년부터", "\u258118", "18")
    assert writable("2018~2020년", "\u258120", "1", "8", "~", "2", "0", "2", "0")
    assert not writable("2018~2020년", "\u258120", "1", "9")  # 2019 is in neither end of the range
    assert writable("지난 2일", "\u2581the", "\u25812", "nd") and not writable("지난 2일", "\u258120")
    assert writable("지난 2일", "\u2581two")


@pytest.mark.parametrize("source, output, repaired", [
    ("2018년 9월 30일 참여했다.", "On Aug. 30, 2018, he joined.", "On Sept. 30, 2018, he joined."),
    ("9월 30일에 만났다.", "They met on October 30.", "They met on September 30."),
    ("2018년 9월에 시작했다.", "It began in June 2018.", "It began in September 2018."),
    ("1월 9일에는", "On the 9th of September", "On the 9th of January"),
    ("3월 31일에 끝났다", "It ended on Sept 31", "It ended on March 31"),  # no short form for March
    ("1월 9일, 2월 9일", "on Sept. 9 and Oct. 9", "on Sept. 9 and Oct. 9"),  # which 9th is which: left
    ("9월 30일", "On September 30, 300 people", "On September 30, 300 people"),  # already right; 300 is no day
    ("12월 8일", "the summit on August 18", "the summit on August 18"),  # not the 8th
])
def test_the_month_the_model_names_beside_a_date_is_the_sources(source, output, repaired):
    assert repair_months(source, output) == repaired


def test_a_finished_translation_names_the_sources_month():
    assert finish_sentence("1월 9일에는 파업을 시작했다.", "on September 9, a strike began") == \
        "On January 9, a strike began."
    assert korean_dates("2018년 9월 30일") == [KoreanDate(9, 30, 2018)]
