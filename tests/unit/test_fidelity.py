"""The facts a translation keeps (`studio.fidelity`): years, figures (amounts in English, months by name) and
Latin names of the source, found in the output; the references' shares are the ceiling."""

from studio.data.readers import Pair
from studio.evaluate import score
from studio.fidelity import describe, facts_kept, source_facts

ZAEV = '2018년 9월 30일 마케도니아의 총리 조란 자예브(Zoran Zaev)는 "국민투표"에 참여했다.'


def test_a_changed_year_is_counted_lost_and_the_rest_kept():
    wrong = facts_kept([ZAEV], ["Prime Minister Zoran Zaev in Macedonian Sept. 30, 1818, joined the vote."])
    right = facts_kept([ZAEV], ["On September 30, 2018, Prime Minister Zoran Zaev voted."])
    assert wrong.as_dict() == {"years": {"found": 1, "kept": 0}, "figures": {"found": 2, "kept": 2},
                               "names": {"found": 1, "kept": 1}}
    assert right.share("years") == right.share("figures") == right.share("names") == 1.0


def test_amounts_ranges_grouped_digits_and_particles():
    source = "삼성전자는 30억 달러를 투자했고 2018~2020년 매출은 1,234개였다. 지난 2일 발표했다."
    assert source_facts(source) == {"years": [("2018",), ("2020",)],
                                    "figures": [("$3 billion", "3 billion"), ("1234",), ("2",)], "names": []}
    kept = facts_kept([source], ["Samsung invested $3 billion; sales in 2018-2020 were 1,234 units. On the 2nd."])
    assert kept.share("years") == kept.share("figures") == 1.0
    lost = facts_kept([source], ["Samsung invested 3 million dollars in 2019; sales were 1,243."])
    assert lost.kept == {"years": 0, "figures": 0, "names": 0}


def test_names_match_whole_words_whatever_their_case_and_a_set_without_a_kind_leaves_it_out():
    kept = facts_kept(["BTS와 NHS가 만났다"], ["bts met the nhs."])
    assert kept.share("names") == 1.0 and kept.share("years") is None
    assert facts_kept(["NHS 발표"], ["The NHSX said"]).share("names") == 0.0
    assert describe(kept, kept) == "names 100% (100%)"


def test_a_translations_score_carries_the_outputs_and_the_references_shares():
    pairs = [Pair(ZAEV, "On Sept. 30, 2018, Macedonian Prime Minister Zoran Zaev took part in the referendum.")]
    result = score(pairs, ["Zoran Zaev joined the vote on September 30, 1818."], "greedy", 0.0, facts=True)
    assert result.facts.share("years") == 0.0 and result.facts_references.share("years") == 1.0
    assert score(pairs, ["Zoran Zaev"], "greedy", 0.0).facts is None  # a chat reply's score counts none
    assert describe(result.facts, result.facts_references).startswith("years 0% (100%)")
