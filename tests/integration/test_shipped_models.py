"""The bundles shipped in assets/ load, stay small, and answer."""

import json
import re

import pytest

from studio.bundle import default_bundle, load_bundle
from studio.inference import TextGenerator
from studio.tasks import CHATBOT, TRANSLATOR

HANGUL = re.compile(r"[가-힣]")


@pytest.fixture(scope="module")
def chatbot():
    return TextGenerator.from_path(default_bundle("chatbot"))


def test_shipped_chatbot_is_small_and_documents_its_metrics():
    path = default_bundle("chatbot")
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and "exports" not in f.parts)
    assert size < 25 * 2**20
    metrics = json.loads((path / "metrics.json").read_text(encoding="utf-8"))
    for key in ("samples", "train_throughput_benchmark"):
        assert key in metrics
    members = metrics.get("ensemble_members", [metrics])  # an ensemble: each member's figures, and its own below
    assert all(key in member for member in members for key in ("dev_loss", "dev_token_accuracy", "dev_chrf"))
    if "ensemble_members" in metrics:
        assert len(members) == load_bundle(path).config.model.members > 1
        assert metrics["evaluation"]["chatbot_dev"]["greedy"]["chrf"] > max(m["dev_chrf"] for m in members)
    assert load_bundle(path).config.task.task == "chatbot"


def test_shipped_chatbot_answers_the_tutorial_prompts_in_korean(chatbot):
    replies = [g.text for g in chatbot.generate(list(CHATBOT.prompts))]
    assert all(HANGUL.search(reply) for reply in replies), replies
    assert all(len(reply) < 80 for reply in replies)


def test_shipped_chatbot_batched_and_single_replies_agree(chatbot):
    prompts = ["영화 볼래?", "배고파", "오늘 너무 힘들었어"]
    assert [g.text for g in chatbot.generate(prompts)] == [chatbot(p) for p in prompts]


def test_shipped_translator_writes_cased_english_and_keeps_names():
    path = default_bundle("translator")
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and "exports" not in f.parts)
    assert size < 25 * 2**20
    metrics = json.loads((path / "metrics.json").read_text(encoding="utf-8"))
    for test_set in ("park_dev", "wmt24pp_news_dev", "jhe_dev", "park_test"):
        greedy = metrics["evaluation"][test_set]["greedy"]
        assert "case:mixed" in greedy["bleu_signature"] and "chrf_lc" in greedy
    assert "non-commercial" in (path / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert set(metrics["samples"]) == set(TRANSLATOR.card_inputs)  # before and after, in the card
    assert set(metrics["samples_before"]["outputs"]) == set(TRANSLATOR.card_inputs)
    translator = TextGenerator.from_path(path)
    assert translator.config.task.text_pipeline == "translator"
    outputs = [g.text for g in translator.generate(list(TRANSLATOR.prompts))]
    assert not any(HANGUL.search(o) for o in outputs)
    assert all(re.fullmatch(r"[A-Za-z0-9 .,!?'\"%()$:;-]+", o) for o in outputs), outputs
    assert outputs[0].startswith("Obama")  # cased, as written
