import numpy as np
import pytest
import tensorflow as tf

from studio.train.loss import masked_loss, masked_sums
from studio.train.schedule import TransformerSchedule, transformer_lr


def test_schedule_warms_up_linearly_then_decays_as_inverse_square_root():
    steps = np.arange(1, 20001)
    lr = transformer_lr(steps, d_model=512, warmup_steps=4000)
    assert np.argmax(lr) + 1 == 4000
    assert lr[1999] == pytest.approx(lr[3999] / 2, rel=1e-3)  # linear warm-up
    assert lr[15999] == pytest.approx(lr[3999] / 2, rel=1e-3)  # step^-0.5 decay: 4x the steps, half the rate
    assert lr.max() == pytest.approx(512 ** -0.5 * 4000 ** -0.5)


def test_keras_schedule_matches_the_formula():
    schedule = TransformerSchedule(256, warmup_steps=100)
    for step in (0, 49, 99, 500):
        assert float(schedule(step)) == pytest.approx(transformer_lr(step + 1, 256, 100), rel=1e-5)


def test_loss_ignores_padding_and_averages_over_real_tokens():
    rng = np.random.default_rng(0)
    logits = tf.constant(rng.normal(size=(2, 5, 11)), tf.float32)
    labels = tf.constant([[3, 4, 5, 0, 0], [6, 0, 0, 0, 0]])
    expected = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits).numpy()
    real = expected[[0, 0, 0, 1], [0, 1, 2, 0]]
    assert float(masked_loss(labels, logits)) == pytest.approx(real.mean(), rel=1e-5)


def test_label_smoothing_mixes_in_the_uniform_cross_entropy():
    logits = tf.constant([[[2.0, 0.5, -1.0, 0.0]]])
    labels = tf.constant([[1]])
    logp = tf.nn.log_softmax(logits).numpy()[0, 0]
    expected = 0.9 * -logp[1] + 0.1 * -logp.mean()
    smoothed, nll, correct, count = masked_sums(logits, labels, pad_id=0, label_smoothing=0.1)
    assert float(smoothed) == pytest.approx(expected, rel=1e-5)
    assert float(nll) == pytest.approx(-logp[1], rel=1e-5)
    assert (float(correct), float(count)) == (0.0, 1.0)


def test_a_sample_of_the_dev_split_is_spread_over_all_of_it():
    from studio.train.run import spread

    pairs = list(range(566))  # e.g. ChatbotData's held-out questions, in its topic order
    chosen = spread(pairs, 200)
    assert len(chosen) == 200 == len(set(chosen)) and chosen[0] == 0 and chosen[-1] > 560
    assert spread(pairs[:5], 200) == pairs[:5] and spread([], 3) == []


def test_a_fine_tune_is_chosen_by_how_the_app_decodes_its_task():
    """The dev chrF that picks a fine-tune's weights decodes as the app will: beam search for a translator
    (a fine-tune's greedy outputs can loop where beam search's do not), greedy for a chatbot."""
    from types import SimpleNamespace

    from studio.data import Pair
    from studio.train.run import selection_chrf

    heard = []

    class Echo:
        def generate(self, texts, options=None):
            heard.append(options)
            return [SimpleNamespace(text=text) for text in texts]

    pairs = [Pair(f"문장 {i}", f"문장 {i}") for i in range(5)]
    for task, strategy in (("translator", "beam"), ("chatbot", "greedy")):
        run = SimpleNamespace(task=task, dev_pairs=pairs, generator=Echo,
                              config=SimpleNamespace(train=SimpleNamespace(chrf_pairs=0)))
        assert selection_chrf(run) == 100.0
        assert heard[-1].strategy == strategy
    assert heard[0].beam_size == 4 and heard[0].length_penalty == 1.8
