"""What a bundle's MODEL_CARD.md says about where its weights came from."""

from studio.config import translator_preset
from studio.train.card import model_card

COMMERCIAL_SAFE = ["koen/train/tatoeba.tsv"]


def test_a_back_translated_gpu_run_names_its_synthetic_news_and_its_terms():
    metrics = {"parameters": 12, "train_seconds": 540.0, "steps": 100, "epochs_trained": 2, "device": "cuda:0",
               "initialized_from": "assets/translator", "synthetic_pairs": 141_376, "synthetic_file": "bt.tsv"}
    card = model_card(translator_preset(), metrics, COMMERCIAL_SAFE)
    assert "141,376 synthetic pairs (`bt.tsv`)" in card and "back-translation" in card
    assert "non-commercial use only" in card  # the English news carries research terms, though tatoeba does not
    assert "9 minutes of training time on a GPU" in card
    assert "starting from the weights of `assets/translator`" in card


def test_a_cpu_run_on_commercial_safe_data_claims_neither():
    metrics = {"parameters": 12, "train_seconds": 600.0, "steps": 100, "epochs_trained": 2}
    card = model_card(translator_preset(), metrics, COMMERCIAL_SAFE)
    assert "synthetic" not in card and "non-commercial" not in card
    assert "training time on CPU" in card and "trained from scratch" in card


def test_a_card_shows_earlier_stages_samples_before_and_after_and_what_the_model_repeats():
    metrics = {"parameters": 12, "train_seconds": 540.0, "steps": 100, "epochs_trained": 2, "device": "cuda:0",
               "initialized_from": "runs/second", "initialized_from_description": "the translator of the second lease",
               "synthetic_pairs": 10,
               "stages": ["11 minutes from scratch on the real pairs."],
               "samples": {"커피는 필요 없다.": "There is no coffee.", "표 | 칸": "A | cell"},
               "samples_decoding": "beam 4, lp 1.8, tflite",
               "samples_before": {"bundle": "the tutorial's", "outputs": {"커피는 필요 없다.": "there is no coffee."}},
               "evaluation": {"news": {"greedy": _scored(repeating=0.5, repeating_references=0.1),
                                       "beam 4, lp 1.8": _scored(repeating=0.3, repeating_references=0.15)}}}
    card = model_card(translator_preset(), metrics, ["koen/train/tatoeba.tsv", "koen/train/korsts.tsv"])
    assert "starting from the weights of the translator of the second lease." in card  # described, not a path
    assert "- Before: 11 minutes from scratch on the real pairs.\n- 100 steps" in card
    assert "## Sample outputs (beam 4, lp 1.8, tflite)" in card
    assert "| 커피는 필요 없다. | there is no coffee. | There is no coffee. |" in card
    assert "| 표 \\| 칸 |  | A \\| cell |" in card  # no output before: an empty cell; a bar stays in its cell
    assert "(beam 4, lp 1.8), against the references: news 30% vs 15%" in card  # the default decoding's row
    assert "50%" not in card  # not greedy's
    assert "no back-translated news" in card
    assert "\n\nThe English side of `korsts.tsv` comes from another corpus" in card  # a paragraph of its own
    assert "`tatoeba.tsv` comes" not in card


def _scored(**fluency) -> dict:
    return {"bleu": 9.0, "chrf": 40.0, "pairs": 260, "bleu_signature": "b", "chrf_signature": "c", **fluency}
