"""Training the chatbot's reply ranker (`studio.train.ranker`) on a toy set, and running it in NumPy
(`studio.text.ranking.Ranker`) as the Keras model (`studio.train.ranker_model`) runs it."""

import functools
import json

import numpy as np
import pytest

from studio.data.readers import Pair
from studio.text import SentencePieceTokenizer, TokenizerPair
from studio.train.checkpoints import CheckpointStore
from studio.text.ranking import Ranker, RankerConfig, pad_batch, pair_ids, text_encoder
from studio.train.ranker import RankerTraining, build_ranker, train_ranker, train_side_ranker
from studio.weights import load_npz

TOPICS = {"rain": "bring an umbrella.", "movie": "watch a comedy tonight.", "tired": "take a long rest.",
          "hungry": "eat something warm.", "lonely": "call a friend."}
FRAMES = ("is it {} today?", "I feel {} now", "what about {}?", "{} again", "so {} here", "{} all day")


@functools.cache
def toy():
    pairs = [Pair(frame.format(topic), answer) for topic, answer in TOPICS.items() for frame in FRAMES]
    tokenizer = SentencePieceTokenizer.train([p.source for p in pairs] + [p.target for p in pairs], 300,
                                           model_type="word")  # word pieces: new questions reuse them
    config = RankerConfig(vocab_size=tokenizer.vocab_size, d_model=32, num_heads=2, d_ff=64, num_layers=1,
                          head_units=16, max_question=12, max_answer=12)
    return pairs, TokenizerPair(tokenizer, tokenizer), config


def settings(**changes):
    values = dict(epochs=40, questions_per_batch=5, group=4, negatives_from=4, learning_rate=1e-2, warmup_steps=5,
                  checkpoint_steps=1000)
    return RankerTraining(**{**values, **changes})


def test_a_ranker_trained_on_a_toy_set_prefers_the_right_answer_to_unseen_questions(tmp_path):
    pairs, tokenizers, config = toy()
    out = train_ranker(pairs, tmp_path / "run", config, tokenizers, settings(), log=lambda line: None)
    ranker = Ranker.load(out)
    answers = list(TOPICS.values())
    right = [int(np.argmax(ranker.scores(f"so {topic} today?", answers))) == i for i, topic in enumerate(TOPICS)]
    assert sum(right) >= 4, right
    assert (out / "epoch-40" / "ranker.npz").is_file()


def random_generator(config):
    """A stand-in for a chatbot generator's weights: an untrained encoder, named as an ensemble member's."""
    model = build_ranker(config)
    return {f"member_0/{v.path.split('/', 1)[1]}": np.asarray(v.numpy()) for v in model.weights
            if "head" not in v.path and "segment" not in v.path}


def test_a_sides_rankers_head_learns_on_a_frozen_encoder_and_its_files_load_back(tmp_path):
    pairs, tokenizers, config = toy()
    out = train_side_ranker(pairs, tmp_path / "sides", config, tokenizers, settings(epochs=30, save_every=15),
                            random_generator(config), log=lambda line: None)
    history = json.loads((CheckpointStore(out / "checkpoints").latest() / "state.json").read_text())["history"]
    assert history[-1]["loss"] < 0.85 * history[0]["loss"] and len(history) == 30
    ranker = Ranker.load(out)
    assert ranker.config.kind == "sides" and (out / "epoch-15" / "ranker.npz").is_file()
    assert ranker.scores("is it rain today?", list(TOPICS.values())).shape == (len(TOPICS),)


def test_training_stopped_midway_resumes_from_its_checkpoint_to_the_same_weights(tmp_path):
    pairs, tokenizers, config = toy()
    quiet = lambda line: None  # noqa: E731
    short = dict(epochs=2, compiled=False)  # runs of at most 12 steps: eager, not compiled by XLA
    straight = train_ranker(pairs, tmp_path / "straight", config, tokenizers, settings(**short), log=quiet)
    lines = []
    train_ranker(pairs, tmp_path / "stopped", config, tokenizers, settings(**short, stop_at_step=8), log=quiet)
    assert not (tmp_path / "stopped" / "ranker.npz").exists()
    resumed = train_ranker(pairs, tmp_path / "stopped", config, tokenizers, settings(**short), log=lines.append)
    assert "from step 8 (epoch 1, batch 2)" in lines[0]
    a, b = load_npz(straight / "ranker.npz"), load_npz(resumed / "ranker.npz")
    assert all(np.allclose(a[name], b[name], atol=1e-3) for name in a)


def test_the_numpy_ranker_scores_as_the_keras_model_does(tmp_path):
    pairs, tokenizers, config = toy()
    model = build_ranker(config)
    for variable in model.weights:  # the segment embedding starts at zero: give every weight a value
        variable.assign(np.random.default_rng(len(variable.path)).normal(0, 0.2, variable.shape))
    ranker = Ranker(config, {v.path: np.asarray(v.numpy()) for v in model.weights}, tokenizers.source)
    encode = text_encoder(tokenizers.source, config.text_pipeline)
    answers = list(TOPICS.values())
    ids, segments = pad_batch([pair_ids(encode, "rain again", a, config) for a in answers])
    expected = np.asarray(model((ids, segments), training=False))
    assert np.allclose(ranker.scores("rain again", answers), expected, atol=1e-4)


def test_a_ranker_starts_from_a_chatbot_generators_encoder_and_embedding():
    pairs, tokenizers, config = toy()
    model = build_ranker(config)
    generator = {f"member_0/{v.path.split('/', 1)[1]}": np.full(v.shape, 0.5, np.float32)
                 for v in model.weights if "head" not in v.path and "segment" not in v.path}
    started = build_ranker(config, generator)
    assert np.all(started.embedding.embeddings.numpy() == 0.5) and not started.embedding.trainable
    assert np.all(started.encoder_layers[0].ffn.inner.kernel.numpy() == 0.5)
    assert not np.all(started.head_score.kernel.numpy() == 0.5)


@pytest.mark.parametrize("k", [2])
def test_a_trained_rankers_files_are_small_and_load_back(tmp_path, k):
    pairs, tokenizers, config = toy()
    out = train_ranker(pairs, tmp_path / "run", config, tokenizers, settings(epochs=1, compiled=False),
                       log=lambda line: None)
    assert {p.name for p in out.iterdir()} >= {"ranker.json", "ranker.npz", "tokenizer"}
    assert len(Ranker.load(out).scores("rain", list(TOPICS.values())[:k])) == k
