import functools
import json

import numpy as np
import pytest
from rich.console import Console

from studio.config import BundleConfig, ModelConfig, TokenizerConfig, TrainConfig
from studio.data import BucketedBatches, Pair, clean_pairs, encode_pairs
from studio.errors import StudioError
from studio.text import SentencePieceTokenizer, TextPipeline, TokenizerPair
from studio.train.checkpoints import CheckpointStore
from studio.train.trainer import Trainer
from helpers import generated_pairs

QUIET = Console(quiet=True)


pytestmark = pytest.mark.usefixtures("eager_train_steps")  # except in the tests marked graph


@functools.cache
def tiny_corpus():
    pairs = clean_pairs([Pair(q, a) for q, a, _ in generated_pairs(40)], TextPipeline("tutorial"))
    tokenizer = SentencePieceTokenizer.train([p.source for p in pairs] + [p.target for p in pairs], 300)
    return TokenizerPair(tokenizer, tokenizer), pairs


@pytest.fixture
def corpus():
    """The tiny corpus and its tokenizer, built once per process (a few milliseconds): not a module-scoped
    fixture, which would keep this module's tests on one worker (tests/conftest.py)."""
    return tiny_corpus()


def make_trainer(corpus, out, dropout=0.1, batch_size=8, **train):
    """A trainer on the tiny corpus (38 pairs: 5 batches of 8 an epoch, 3 of 16); without XLA unless
    `jit_compile=True` (compiling costs more than it saves at this size: one test keeps the product's XLA path)."""
    train.setdefault("jit_compile", False)
    tokenizers, pairs = corpus
    vocab = tokenizers.source.vocab_size
    config = BundleConfig(
        model=ModelConfig(src_vocab_size=vocab, tgt_vocab_size=vocab, num_layers=1, d_model=32, num_heads=4,
                          d_ff=64, dropout=dropout, max_source_len=24, max_target_len=24),
        tokenizer=TokenizerConfig(vocab_size=vocab),
        train=TrainConfig(**{"batch_size": batch_size, "warmup_steps": 5, "lr_scale": 2.0, "patience": 0, **train}))
    examples = encode_pairs(pairs, tokenizers, 24, 24)
    batches = BucketedBatches(examples, batch_size, 8, 24, 1, 2, seed=3)
    return Trainer(config, batches, batches, out, QUIET, checkpoint_minutes=60)


@pytest.mark.graph
def test_a_few_steps_on_a_40_pair_corpus_reduce_the_loss(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path, jit_compile=True)  # the product's default: XLA
    before = trainer.evaluate()["dev_loss"]
    trainer.fit(epochs=2)
    after = trainer.evaluate()["dev_loss"]
    assert after < before - 0.3
    assert trainer.state.step == 2 * len(trainer.train_batches)
    assert [r["epoch"] for r in trainer.state.history] == [1, 2]
    assert (tmp_path / "tensorboard").is_dir()


def test_resume_continues_exactly_where_the_interrupted_run_stopped(corpus, tmp_path):
    # batches of 16: 3 an epoch, the fewest steps that still stop in the middle of epoch 2
    straight = make_trainer(corpus, tmp_path / "straight", dropout=0.0, batch_size=16)
    straight.fit(epochs=2)

    interrupted = make_trainer(corpus, tmp_path / "resumed", dropout=0.0, batch_size=16)
    interrupted.fit(epochs=2, max_steps=len(interrupted.train_batches) + 2)  # stops mid-epoch 2, checkpointed
    assert len(interrupted.train_batches) > 2
    resumed = make_trainer(corpus, tmp_path / "resumed", dropout=0.0, batch_size=16)
    assert resumed.resume()
    assert resumed.state.step == len(resumed.train_batches) + 2 and resumed.state.batch_in_epoch == 2
    resumed.fit(epochs=2)

    assert resumed.state.step == straight.state.step
    for a, b in zip(straight.model.weights, resumed.model.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-5)
    assert resumed.state.history[-1]["dev_loss"] == pytest.approx(straight.state.history[-1]["dev_loss"], abs=1e-4)


@pytest.mark.graph  # its many short steps run faster traced
def test_checkpoints_are_complete_or_absent_and_pruned(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path, keep_checkpoints=2)
    trainer.fit(epochs=3)
    store = CheckpointStore(tmp_path / "checkpoints")
    complete = store.all()
    assert len(complete) == 2
    assert store.latest() == complete[-1]
    assert json.loads((complete[-1] / "state.json").read_text())["epoch"] == 3
    # a save killed half-way leaves only a temporary directory, which is never picked up
    (tmp_path / "checkpoints" / ".tmp-ckpt-x").mkdir()
    (tmp_path / "checkpoints" / "ckpt-99999999").mkdir()  # no state.json: incomplete
    assert store.latest() == complete[-1]
    averaged = store.average_weights(2)
    assert set(averaged) == {w.path for w in trainer.model.weights}


@pytest.mark.graph
def test_mirrored_strategy_trains(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path, strategy="mirrored")
    trainer.fit(epochs=1)
    assert trainer.state.step == len(trainer.train_batches)
    assert np.isfinite(trainer.state.history[-1]["train_loss"])


def test_time_budget_stops_training_resumably_and_records_a_curve(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path, max_minutes=0.0005, eval_minutes=0.0002)
    trainer.fit(epochs=5)
    assert 0 < trainer.state.step < 5 * len(trainer.train_batches)
    assert trainer.state.curve and "dev_loss" in trainer.state.curve[0]
    assert CheckpointStore(tmp_path / "checkpoints").latest() is not None


def test_training_can_start_from_a_bundles_weights(tiny_bundle, chat_csv, tmp_path):
    from studio.train.run import train_task
    from helpers import TINY

    settings = dict(TINY, **{"train.epochs": 1, "task.text_pipeline": "tutorial"})  # the bundle's pipeline
    continued = train_task("chatbot", tmp_path / "continued", data_files=[chat_csv], overrides=settings,
                           max_steps=1, console=QUIET, init_from=tiny_bundle)
    scratch = train_task("chatbot", tmp_path / "scratch", data_files=[chat_csv], overrides=settings,
                         max_steps=1, console=QUIET)
    assert (tmp_path / "continued" / "tokenizer" / "shared.spm.model").read_bytes() == \
        (tiny_bundle / "tokenizer" / "shared.spm.model").read_bytes()
    assert continued["dev_loss"] < scratch["dev_loss"]


def test_a_fine_tune_that_makes_the_model_worse_keeps_the_starting_model(tiny_bundle, chat_csv, tmp_path):
    """The fine-tune presets choose the shipped weights by greedy dev chrF, the starting model among them: a
    learning rate that wrecks the model leaves a bundle with the starting model's weights, and says so."""
    import numpy as np

    from helpers import TINY
    from studio.bundle import load_bundle
    from studio.train.run import STARTING_MODEL, train_task

    settings = dict(TINY, **{"train.epochs": 1, "task.text_pipeline": "tutorial", "train.learning_rate": 3.0,
                             "train.warmup_steps": 1, "train.jit_compile": "false"})
    metrics = train_task("chatbot", tmp_path / "tuned", data_files=[chat_csv], overrides=settings, console=QUIET,
                         init_from=tiny_bundle, preset="chatbot-finetune")
    assert metrics["weights"].startswith(STARTING_MODEL), metrics["weights"]
    assert "(dev chrf " in metrics["weights"]
    start, kept = load_bundle(tiny_bundle).weights, load_bundle(tmp_path / "tuned").weights
    assert all(np.array_equal(start[name], kept[name]) for name in start)


def test_a_fine_tune_leaves_out_the_pairs_its_starting_model_finds_least_likely(tiny_bundle, tmp_path):
    """Misaligned pairs (another sentence's answer) score far below the rest under the starting model: the
    filter leaves them out, lists them, and a resumed run leaves out the same."""
    import csv

    from helpers import TINY, generated_pairs
    from studio.train.run import LEFT_OUT, train_task

    rows = [(q, a) for q, a, _ in generated_pairs(60, seed=3)]
    misaligned = [(q, "¿qué? xylophone quantum zebra !!") for q, _, _ in generated_pairs(6, seed=11)]
    data = tmp_path / "pairs.csv"
    with open(data, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([("Q", "A", "label"), *((q, a, 0) for q, a in rows + misaligned)])
    settings = dict(TINY, **{"train.epochs": 1, "task.text_pipeline": "tutorial", "train.filter_share": 0.1,
                             "train.jit_compile": "false", "train.select_by": "dev_loss"})
    train_task("chatbot", tmp_path / "tuned", data_files=[data], overrides=settings, console=QUIET,
               init_from=tiny_bundle, preset="chatbot-finetune", max_steps=1)
    listed = (tmp_path / "tuned" / LEFT_OUT).read_text(encoding="utf-8").splitlines()[1:]
    left_out = [line.split("\t")[1] for line in listed]
    assert len(left_out) >= 4 and sum("xylophone" in target for target in left_out) >= 4, listed


def test_a_fine_tune_mixes_in_general_pairs_when_this_computer_has_them(tiny_bundle, tmp_path):
    """`train.rehearsal`: that many pairs of the task's own training data per pair of the user's, none of them a
    dev source, the same ones on resume; without the data the fine-tune goes on with the user's pairs alone."""
    from helpers import TINY, generated_pairs
    from studio.data.pipeline import SPLIT_KEYS
    from studio.train.progress import TrainingEvent
    from studio.train.run import build_tokenizers, mix_in_general_pairs, prepare_run

    general = tmp_path / "data" / "chatbot" / "ChatbotData.csv"
    general.parent.mkdir(parents=True)
    general.write_text("Q,A,label\n" + "".join(f"일반 {i}번 질문?,일반 답 {i},0\n" for i in range(200)), encoding="utf-8")
    mine = tmp_path / "mine.csv"
    mine.write_text("Q,A,label\n" + "".join(f"{q},{a},0\n" for q, a, _ in generated_pairs(40, seed=5)), encoding="utf-8")
    said: list[TrainingEvent] = []
    settings = dict(TINY, **{"train.rehearsal": 0.5, "task.text_pipeline": "tutorial"})

    def mixed(out, data_dir):
        run = prepare_run("chatbot", out, overrides=settings, preset="chatbot-finetune", init_from=tiny_bundle,
                          data_files=[mine], progress=said.append)
        build_tokenizers(run)
        own = len(run.train_pairs)
        mix_in_general_pairs(run, data_dir)
        return run, own

    run, own = mixed(tmp_path / "a", tmp_path / "data")
    added = run.train_pairs[own:]
    assert len(added) == round(0.5 * own) and all(p.source.startswith("일반") for p in added)
    key = SPLIT_KEYS[run.config.train.dev_split]
    assert not {key(p.source) for p in added} & {key(p.source) for p in run.dev_pairs}
    assert any(e.text.startswith(f"Mixed in {len(added)} pairs") for e in said)
    assert run.general_files == [str(general)] and run.general_pairs == len(added)  # the card lists that file
    again, _ = mixed(tmp_path / "b", tmp_path / "data")
    assert again.train_pairs == run.train_pairs  # drawn with the run's seed: a resumed run trains on the same
    alone, own = mixed(tmp_path / "c", tmp_path / "nothing-here")
    assert len(alone.train_pairs) == own and "fine-tuning on your pairs alone" in said[-1].text


def test_a_chatbot_ships_the_weights_with_the_best_dev_token_accuracy(tiny_bundle):
    """Its replies keep improving after its dev loss turns up (docs/chatbot-training.md): the chatbot preset
    chooses among the last weights, the best epoch and the checkpoint mean by dev token accuracy."""
    import json

    chosen = json.loads((tiny_bundle / "metrics.json").read_text(encoding="utf-8"))["weights"]
    assert "(dev token accuracy " in chosen and "best epoch" in chosen, chosen
    scores = {name: float(score) for name, score in
              (part.rsplit(" ", 1) for part in chosen.split("(dev token accuracy ")[1].rstrip(")").split(", "))}
    assert chosen.startswith(max(scores, key=scores.get))


def interrupt_at_step(trainer, step, signum):
    """Make the trainer receive `signum` (as from Ctrl-C or `kill`) while it runs training step `step`."""
    import os

    train_step = trainer._train_step

    def step_then_signal(*batch):
        result = train_step(*batch)
        if trainer.state.step + 1 == step:
            os.kill(os.getpid(), signum)
        return result

    trainer._train_step = step_then_signal


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_kill_stops_after_the_step_with_a_checkpoint_to_resume_from(corpus, tmp_path, signal_name):
    import signal

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    trainer = make_trainer(corpus, tmp_path, dropout=0.0, batch_size=16)  # 3 batches an epoch
    interrupt_at_step(trainer, 2, getattr(signal, signal_name))  # in the middle of epoch 1
    state = trainer.fit(epochs=2)
    assert state.step == 2 < len(trainer.train_batches)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before  # handlers restored

    resumed = make_trainer(corpus, tmp_path, dropout=0.0, batch_size=16)
    assert resumed.resume() and resumed.state.step == 2 and resumed.state.batch_in_epoch == 2
    resumed.fit(epochs=2)
    assert resumed.state.step == 2 * len(resumed.train_batches)


def test_only_a_stop_that_cuts_training_short_reports_it_stopped(corpus, tmp_path):
    """A stop during the last epoch's end (its evaluation and samples: the slow part of a small run) comes after
    the last step: the run is done, and a job must end finished, not stopped (which left no model)."""
    import os
    import signal

    heard = []

    def run(out, signal_at_end_of_epoch=None, signal_at_step=None):
        trainer = make_trainer(corpus, out, batch_size=16)  # 3 batches an epoch
        trainer.progress = heard.append
        if signal_at_step:
            interrupt_at_step(trainer, signal_at_step, signal.SIGTERM)
        trainer.on_epoch_end = lambda trainer, record: (
            record["epoch"] == signal_at_end_of_epoch and os.kill(os.getpid(), signal.SIGTERM))
        return trainer.fit(epochs=2)

    state = run(tmp_path / "late", signal_at_end_of_epoch=2)
    kinds = [e.kind for e in heard]
    assert state.epoch == 2 and "signal" in kinds and "stopped" not in kinds
    heard.clear()
    state = run(tmp_path / "early", signal_at_end_of_epoch=1)
    assert state.epoch == 1 and [e.kind for e in heard].count("stopped") == 1
    heard.clear()
    state = run(tmp_path / "last-step", signal_at_step=6)  # the last step itself: its epoch's end not yet run
    assert state.step == 6 and state.epoch == 1 and [e.kind for e in heard].count("stopped") == 1


def test_a_second_ctrl_c_quits_at_once(corpus, tmp_path):
    import os
    import signal

    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the suite runs in the background
    trainer = make_trainer(corpus, tmp_path)
    train_step = trainer._train_step

    def step_with_two_interrupts(*batch):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        return train_step(*batch)

    trainer._train_step = step_with_two_interrupts
    with pytest.raises(KeyboardInterrupt):
        trainer.fit(epochs=1)
    assert signal.getsignal(signal.SIGINT) == before


def test_a_resumed_run_evaluates_once_not_once_per_missed_interval(corpus, tmp_path):
    trainer = make_trainer(corpus, tmp_path, eval_minutes=1.0)
    trainer.state.train_seconds = 5 * 60 - 1e-6  # as if resumed from a checkpoint just before the 5th slot
    trainer.fit(epochs=1, max_steps=3)
    assert len(trainer.state.curve) == 1


def test_time_the_process_spends_stopped_with_ctrl_z_is_not_training_time(corpus, tmp_path):
    import os
    import signal
    import subprocess

    trainer = make_trainer(corpus, tmp_path)
    train_step = trainer._train_step
    counted_before_step = []

    def step_paused_at_the_fourth(*batch):
        counted_before_step.append(trainer.state.train_seconds)
        if len(counted_before_step) == 4:  # a shell's Ctrl-Z then `fg`, 2 seconds later
            waker.append(subprocess.Popen(["sh", "-c", f"sleep 2; kill -CONT {os.getpid()}"]))
            os.kill(os.getpid(), signal.SIGSTOP)
        return train_step(*batch)

    waker = []
    trainer._train_step = step_paused_at_the_fourth
    trainer.fit(epochs=1, max_steps=5)
    waker[0].wait()
    assert counted_before_step[4] - counted_before_step[3] < 1.0  # a tiny step, not the 2-second pause


def test_weighted_and_sampled_epochs_all_run_although_their_batch_counts_vary(koen_tsv, tmp_path):
    """An epoch ends when its batches run out: with weight 0.5 and subword sampling the count differs from
    len() from epoch to epoch, and an epoch with fewer batches must not be taken for an interrupted one."""
    from studio.train.run import train_task
    from helpers import TINY

    settings = dict(TINY, **{"train.epochs": 3, "train.source_weights": "pairs=0.5", "train.subword_alpha": 0.1,
                             "train.patience": 0, "tokenizer.vocab_size": 200})
    metrics = train_task("translator", tmp_path / "run", data_files=[koen_tsv], overrides=settings, console=QUIET)
    assert metrics["epochs_trained"] == 3 and [h["epoch"] for h in metrics["history"]] == [1, 2, 3]
    assert metrics["source_weights"] == "pairs=0.5" and metrics["subword_alpha"] == 0.1
    with pytest.raises(StudioError, match="does not have"):
        train_task("translator", tmp_path / "typo", data_files=[koen_tsv], console=QUIET,
                   overrides=dict(settings, **{"train.source_weights": "pears=2"}))


@pytest.mark.parametrize("select_by, improved", [("dev_loss", [True, False, False, True]),
                                                 ("dev_token_accuracy", [True, True, True, False])])
def test_the_best_epoch_and_early_stopping_follow_select_by(corpus, tmp_path, select_by, improved):
    """A chatbot's dev loss turns up while its token accuracy keeps rising: "best" must follow the metric
    the bundle's weights are chosen by, or the bundle written during a run is an early epoch."""
    trainer = make_trainer(corpus, tmp_path, select_by=select_by)
    epochs = [(3.4, 0.50), (3.5, 0.55), (3.6, 0.58), (3.3, 0.57)]
    assert [trainer._improves({"dev_loss": loss, "dev_token_accuracy": accuracy})
            for loss, accuracy in epochs] == improved
    assert trainer.state.stale_epochs == improved[::-1].index(True)  # epochs since the last improvement
