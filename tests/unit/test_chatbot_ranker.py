"""The chatbot's reply ranker without a model: the tune/test halves, hard negatives, candidates, the combination
(`studio.train.ranker`, `studio.text.ranking`), on tiny generated pairs."""

import numpy as np
import pytest

from studio.data.readers import Pair
from studio.text.ranking import RankerConfig, candidates, combine, pad_batch, pair_ids
from studio.text.retrieval import RetrievalIndex
from studio.train.ranker import group_for, hard_negatives, tune_test_split

TOPICS = {"rain": "bring an umbrella.", "movie": "watch a comedy tonight.", "tired": "take a long rest.",
          "hungry": "eat something warm.", "lonely": "call a friend."}


def toy_pairs():
    pairs = []
    for topic, answer in TOPICS.items():
        for frame in ("is it {} today?", "I feel {} now", "what about {}?", "{} again"):
            pairs.append(Pair(frame.format(topic), answer))
    return pairs


def test_the_tune_and_test_halves_split_the_held_out_pairs_and_keep_a_question_on_one_side():
    pairs = [Pair(f"question {i}", f"answer {i}") for i in range(200)] + [Pair("Question 7!", "another answer")]
    tune, test = tune_test_split(pairs)
    assert len(tune) + len(test) == len(pairs) and 70 < len(tune) < 130
    assert tune_test_split(pairs) == (tune, test)
    side = "tune" if any(p.source == "question 7" for p in tune) else "test"
    assert any(p.source == "Question 7!" for p in (tune if side == "tune" else test))


def test_hard_negatives_never_hold_the_questions_own_answer_nor_come_from_its_own_question():
    pairs = toy_pairs() + [Pair("is it rain today?", "Bring an umbrella!")]
    index = RetrievalIndex.build([p.source for p in pairs], [p.target for p in pairs])
    for row, pair in enumerate(pairs):
        negatives = hard_negatives(index, row, 3)
        assert negatives and len(negatives) == len(set(negatives))
        assert all(n.lower().strip(".!") != pair.target.lower().strip(".!") for n in negatives)
    same_question = [i for i, p in enumerate(pairs) if p.source == "is it rain today?"]
    assert "Bring an umbrella!" not in hard_negatives(index, same_question[0], 10)


def test_a_group_is_the_own_answer_first_then_negatives_filled_with_random_answers_where_retrieval_runs_out():
    answers = [p.target for p in toy_pairs()]
    rng = np.random.default_rng(0)
    group = group_for(rng, 0, answers, ["call a friend."], 4)
    assert group[0] == answers[0] and len(group) == 4 and len(set(group)) == 4
    assert answers[0] not in group[1:] and "call a friend." in group


def test_candidates_are_distinct_answers_best_first_with_their_best_cosine():
    pairs = toy_pairs()
    index = RetrievalIndex.build([p.source for p in pairs], [p.target for p in pairs])
    found = candidates(index, "is it rain again?", 3)
    assert found.answers[0] == "bring an umbrella." and len(set(found.answers)) == len(found.answers) == 3
    assert found.cosines == sorted(found.cosines, reverse=True)
    assert found.rows[0] not in candidates(index, "is it rain again?", 3, exclude_rows=[found.rows[0]]).rows


def test_the_combination_adds_the_weighted_features_and_asks_for_a_missing_one():
    features = {"ranker": np.array([1.0, 3.0]), "cosine": np.array([0.9, 0.1])}
    assert combine(features, {"ranker": 1.0, "cosine": 10.0}).tolist() == pytest.approx([10.0, 4.0])
    assert combine(features, {"ranker": 1.0, "backward": 0.0}).tolist() == [1.0, 3.0]
    with pytest.raises(ValueError, match="backward"):
        combine(features, {"ranker": 1.0, "backward": 0.5})


def test_a_pair_reads_question_then_answer_with_their_segments_and_pads_to_a_multiple_of_eight():
    config = RankerConfig(max_question=2, max_answer=3)
    ids, segments = pair_ids(lambda text: [10 + len(w) for w in text.split()], "a bb ccc", "dddd e", config)
    assert ids == [1, 11, 12, 2, 14, 11, 2] and segments == [0, 0, 0, 0, 1, 1, 1]
    batch, batch_segments = pad_batch([(ids, segments), ([1, 5, 2, 6, 2], [0, 0, 0, 1, 1])])
    assert batch.shape == (2, 8) and batch[1, 5:].tolist() == [0, 0, 0] and batch_segments[0, 6] == 1
