"""The facts of a text (`studio.text.facts`), read alike by the fidelity figures, the decode guard, the dates and
term protection."""

import random

import pytest

from studio.fidelity import facts_kept, source_facts
from studio.generate.figures import written_forms
from studio.text.facts import (korean_dates, latin_names, month_forms, number_values, source_numbers, source_years,
                               written_numbers)
from studio.text.protect import Protector

SOURCES = ["2018년 9월 30일 1,500명이 3.5배", "1,2차 세계 대전", "2024.03.15 발표", "(Rob Reiner,1990)", "No.1 법원",
           "12,34와 1,234.5,6", "30억 달러와 3천5백만 원", "１２３ 전각", "2018~2020년, 1995-2005년", "10:30~11:45",
           "세 명", "3.", "1,000,000원", "v2.0.1과 192.168.0.1"]


def random_numbers_text(rng: random.Random) -> str:
    pieces = ["1", "23", "456", "7890", ",", ".", " ", "년", "월", "만", "억", "원", "~", "-", "달러"]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))


@pytest.mark.parametrize("seed", range(3))
def test_every_number_the_figures_count_is_one_the_guard_lets_the_model_write(seed):
    rng = random.Random(seed)
    for source in SOURCES + [random_numbers_text(rng) for _ in range(300)]:
        allowed = written_forms(source_numbers(source))
        counted = [form for forms in source_facts(source)["figures"] + source_facts(source)["years"]
                   for form in forms[:1] if form.replace(".", "").isdigit()]
        assert set(counted) <= allowed, source
        assert {value for _, value in written_numbers(source)} <= source_numbers(source), source


def test_a_list_written_without_spaces_counts_each_of_its_numbers():
    assert number_values("1,2차 세계 대전") == {"1", "2"}
    assert number_values("12,34") == {"12", "34"}
    assert number_values("(Rob Reiner,1990).") == {"1990"}  # a comma before is no thousands separator
    assert number_values("1,500명이 3.5배, 2024.03.15.") == {"1500", "3.5", "2024.03.15"}
    assert facts_kept(["1,2차 대전"], ["World Wars 1 and 2"]).share("figures") == 1.0


def test_a_year_after_a_comma_is_found_in_the_output():
    assert facts_kept(["1990년 영화"], ['"Misery" (Rob Reiner,1990)']).share("years") == 1.0


def test_a_dated_run_counts_as_one_figure_written_whole():
    assert source_facts("2024.03.15 발표")["figures"] == [("2024.03.15",)]
    assert facts_kept(["2024.03.15 발표"], ["On 2024.03.15"]).share("figures") == 1.0
    assert facts_kept(["2024.03.15 발표"], ["On March 15, 2024"]).share("figures") == 0.0


def test_a_month_is_counted_once_by_its_name_and_its_day_as_a_number():
    assert source_facts("9월 30일") == {"years": [], "figures": [("September", "Sep.", "Sept."), ("30",)],
                                        "names": []}
    assert month_forms(5) == ("May", "May.")
    date, = korean_dates("지난 2018년 9월 30일")
    assert (date.year, date.month, date.day) == (2018, 9, 30) and "지난 2018년 9월 30일"[slice(*date.span)] == "9월"


def test_years_are_those_written_as_years():
    assert source_years("2018~2020년, 1995-2005년, 2000명") == {"2018", "2020", "1995", "2005"}
    assert source_years("3.2018년") == frozenset()


def test_a_name_is_counted_as_protection_protects_it():
    source = "독일경제연구소(IW Köln)와 FTSE 250 기업"
    assert latin_names(source) == ["IW Köln", "FTSE 250"]
    assert [name for (name,) in source_facts(source)["names"]] == latin_names(source)
    protected = Protector(auto=True).protect(source)
    assert {span.english for span in protected.spans if span.kind in ("latin", "named")} == set(latin_names(source))
