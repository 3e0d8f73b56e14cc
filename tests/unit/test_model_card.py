"""What a bundle's MODEL_CARD.md says about where its weights came from."""

from studio.config import translator_preset
from studio.train.run import model_card

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
