"""The training loop: XLA-compiled train step over length-bucketed batches, progress events (a progress bar on
the console: `studio.train.progress`), TensorBoard, dev evaluation every epoch, atomic checkpoints (every epoch
and every few minutes), resume, early stopping on dev loss, and an optional `tf.distribute` strategy."""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf
from rich.console import Console

from studio.config import BundleConfig
from studio.data.pipeline import BucketedBatches
from studio.model import Transformer
from studio.train.checkpoints import CheckpointStore, TrainState
from studio.train.loss import masked_sums
from studio.train.progress import ConsoleProgress, Listener, TrainingEvent
from studio.train.schedule import make_optimizer


def make_strategy(name: str) -> tf.distribute.Strategy:
    """`default` (one device), `mirrored` (all local GPUs), `multiworker` (several machines, via TF_CONFIG)."""
    if name == "default":
        return tf.distribute.get_strategy()
    if name == "mirrored":
        return tf.distribute.MirroredStrategy()
    if name == "multiworker":
        return tf.distribute.MultiWorkerMirroredStrategy()
    raise ValueError(f"unknown strategy {name!r}; choose default, mirrored or multiworker")


class TrainingSignals:
    """Signals a person sends a training run, handled while `fit` runs (in the main thread only; elsewhere
    signals can't be set and this does nothing):

    - the first Ctrl-C (SIGINT) or SIGTERM asks the loop to stop after the current step, checkpoint, and let
      the caller write the bundle; a second one interrupts at once;
    - SIGCONT (after Ctrl-Z or `kill -STOP`) marks the current step as paused, so the time the process was
      stopped is not counted as training time (it would eat into --max-minutes and the reported tokens/s).
    """

    def __init__(self, progress: Listener):
        self.progress = progress
        self.stop_signals: list[int] = []
        self._paused = False
        self._previous: dict[int, object] = {}

    @property
    def stop_requested(self) -> bool:
        return bool(self.stop_signals)

    def take_pause(self) -> bool:
        """Whether the process was stopped and continued since the last call."""
        paused, self._paused = self._paused, False
        return paused

    def _on_stop(self, signum, frame):
        if self.stop_signals:
            raise KeyboardInterrupt
        self.stop_signals.append(signum)
        self.progress(TrainingEvent("signal", text=f"{signal.Signals(signum).name}: stopping after this step; a "
                                    "checkpoint is saved and the bundle written (send it again to quit at once)."))

    def _on_continue(self, signum, frame):
        self._paused = True

    def __enter__(self) -> "TrainingSignals":
        if threading.current_thread() is threading.main_thread():
            handlers = {signal.SIGINT: self._on_stop, signal.SIGTERM: self._on_stop}
            if hasattr(signal, "SIGCONT"):
                handlers[signal.SIGCONT] = self._on_continue
            self._previous = {number: signal.signal(number, handler) for number, handler in handlers.items()}
        return self

    def __exit__(self, *exc):
        for number, old in self._previous.items():
            signal.signal(number, old)
        self._previous = {}


class Trainer:
    def __init__(self, config: BundleConfig, train_batches: BucketedBatches, dev_batches: BucketedBatches | None,
                 out_dir: Path, console: Console | None = None,
                 on_epoch_end: Callable[["Trainer", dict], None] | None = None,
                 checkpoint_minutes: float = 10.0, progress: Listener | None = None,
                 scorer: Callable[["Trainer"], dict] | None = None):
        """`progress` hears what the training does (`TrainingEvent`s); by default it is shown on `console`.
        `scorer`: more dev figures at each epoch's end (e.g. greedy chrF), which `train.select_by` may name."""
        self.config = config
        self.train_batches = train_batches
        self.dev_batches = dev_batches
        self.out_dir = Path(out_dir)
        self.console = console or Console(stderr=True)
        self.progress = progress or ConsoleProgress(self.console)
        self.on_epoch_end = on_epoch_end
        self.scorer = scorer
        self.checkpoint_seconds = checkpoint_minutes * 60
        self._compiled_shapes: set[tuple] = set()  # batch shapes the train step was compiled for
        if config.train.threads:
            try:
                tf.config.threading.set_intra_op_parallelism_threads(config.train.threads)
                tf.config.threading.set_inter_op_parallelism_threads(min(2, config.train.threads))
            except RuntimeError:  # TensorFlow already started its thread pools in this process
                self.progress(TrainingEvent("warning",
                                            text="threads setting ignored: TensorFlow was already initialised"))
        self.strategy = make_strategy(config.train.strategy)
        keras.utils.set_random_seed(config.train.seed)  # same seed, same initial weights and dropout masks
        with self.strategy.scope():
            self.model = Transformer(config.model).build_weights()
            self.optimizer = make_optimizer(config.model.d_model, config.train.warmup_steps, config.train.lr_scale,
                                            config.train.learning_rate)
            self.optimizer.build(self.model.trainable_variables)
        self.checkpoints = CheckpointStore(self.out_dir / "checkpoints", config.train.keep_checkpoints)
        self.state = TrainState()
        self._compile_steps()

    # ---- compiled steps ------------------------------------------------------------------------
    def _compile_steps(self):
        model, optimizer = self.model, self.optimizer
        pad_id, smoothing = self.config.model.pad_id, self.config.train.label_smoothing
        replicas = self.strategy.num_replicas_in_sync

        def replica_train_step(source, target_in, target_out):
            with tf.GradientTape() as tape:
                logits = model((source, target_in), training=True)
                loss_sum, nll_sum, correct, count = masked_sums(logits, target_out, pad_id, smoothing)
                total = count
                if replicas > 1:
                    total = tf.distribute.get_replica_context().all_reduce("sum", count)
                loss = loss_sum / tf.maximum(total, 1.0)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return tf.stack([loss_sum, nll_sum, correct, count])

        def replica_eval_step(source, target_in, target_out):
            logits = model((source, target_in), training=False)
            _, nll_sum, correct, count = masked_sums(logits, target_out, pad_id, 0.0)
            return tf.stack([nll_sum, nll_sum, correct, count])

        jit = self.config.train.jit_compile
        train_step = tf.function(replica_train_step, jit_compile=jit, reduce_retracing=True)
        eval_step = tf.function(replica_eval_step, jit_compile=jit, reduce_retracing=True)
        if replicas == 1:
            self._train_step, self._eval_step = train_step, eval_step
            return

        strategy = self.strategy

        @tf.function
        def distributed_train(batch):
            sums = strategy.run(train_step, args=batch)
            return strategy.reduce("sum", sums, axis=None)

        @tf.function
        def distributed_eval(batch):
            sums = strategy.run(eval_step, args=batch)
            return strategy.reduce("sum", sums, axis=None)

        self._train_step = lambda *batch: distributed_train(batch)
        self._eval_step = lambda *batch: distributed_eval(batch)

    def _batches(self, batches: BucketedBatches, epoch: int, shuffle: bool):
        if self.strategy.num_replicas_in_sync == 1:
            yield from batches.epoch(epoch, shuffle)
            return
        yield from self.strategy.experimental_distribute_dataset(batches.dataset(epoch, shuffle))

    # ---- resume / checkpoint -------------------------------------------------------------------
    def resume(self) -> bool:
        if self.checkpoints.latest() is None:
            return False
        self.state = self.checkpoints.restore(self.model, self.optimizer)
        self._report("info", text=f"Resumed from {self.checkpoints.latest()} (epoch {self.state.epoch + 1}, "
                                  f"batch {self.state.batch_in_epoch}, step {self.state.step})")
        return True

    def save_checkpoint(self) -> Path:
        return self.checkpoints.save(self.model, self.optimizer, self.state)

    # ---- evaluation ----------------------------------------------------------------------------
    def _improves(self, record: dict) -> bool:
        """Whether this epoch's dev value of `train.select_by` is the best yet (it then becomes the best, and
        the bundle's "best epoch"); counts the stale epochs early stopping looks at."""
        metric = self.config.train.select_by
        if metric not in record:
            return False
        best = self.state.best_score
        if best is None and metric == "dev_loss" and math.isfinite(self.state.best_dev_loss):
            best = self.state.best_dev_loss  # a run checkpointed before best_score existed
        value = record[metric]
        improved = best is None or (value < best if metric == "dev_loss" else value > best)
        if improved:
            self.state.best_score, self.state.stale_epochs = value, 0
        else:
            self.state.stale_epochs += 1
        return improved

    def evaluate(self) -> dict:
        """Dev cross-entropy (no label smoothing) per real token, perplexity and token accuracy."""
        if self.dev_batches is None:
            return {}
        totals = np.zeros(4)
        for batch in self._batches(self.dev_batches, 0, shuffle=False):
            totals += np.asarray(self._eval_step(*batch))
        nll, _, correct, count = totals
        loss = float(nll / max(count, 1))
        return {"dev_loss": loss, "dev_perplexity": float(math.exp(min(loss, 50))),
                "dev_token_accuracy": float(correct / max(count, 1)), "dev_tokens": int(count)}

    # ---- the loop ------------------------------------------------------------------------------
    def fit(self, epochs: int | None = None, max_steps: int | None = None) -> TrainState:
        with TrainingSignals(self.progress) as signals:
            return self._fit(epochs, max_steps, signals)

    def _report(self, kind: str, **fields) -> None:
        self.progress(TrainingEvent(kind, **fields))

    def _fit(self, epochs: int | None, max_steps: int | None, signals: TrainingSignals) -> TrainState:
        epochs = epochs or self.config.train.epochs
        patience = self.config.train.patience
        pace = _Pace(tf.summary.create_file_writer(str(self.out_dir / "tensorboard")),
                     budget=self.config.train.max_minutes * 60, eval_every=self.config.train.eval_minutes * 60,
                     last_checkpoint=time.monotonic())
        pace.next_eval = pace.next_eval_after(self.state.train_seconds)

        stopped_early = bool(patience and self.state.stale_epochs >= patience)  # a finished run, resumed
        while (self.state.epoch < epochs and not stopped_early and not signals.stop_requested
               and not (pace.budget and self.state.train_seconds >= pace.budget)):
            sums, epoch_start, interrupted = self._train_epoch(epochs, max_steps, signals, pace)
            # an epoch ends when its batches run out, not at len(): with per-source weights or subword sampling
            # the number of batches changes a little from epoch to epoch, and len() is only its expected value
            if interrupted:  # by max_steps, the time budget or a signal
                self.save_checkpoint()
                break
            stopped_early = self._end_epoch(sums, epoch_start, pace)
        pace.writer.flush()
        done = (self.state.epoch >= epochs or stopped_early or bool(max_steps and self.state.step >= max_steps)
                or bool(pace.budget and self.state.train_seconds >= pace.budget))
        if signals.stop_requested and not done:  # a stop that came after the last step cut nothing short
            self._report("stopped", step=self.state.step, epoch=self.state.epoch + 1, epochs=epochs,
                         text=f"stopped at step {self.state.step:,}: a checkpoint is saved, resuming goes on from it")
        return self.state

    def _train_epoch(self, epochs: int, max_steps: int | None, signals: TrainingSignals,
                     pace: "_Pace") -> tuple[np.ndarray, float, bool]:
        """The current epoch's steps (those not trained before a resume): the summed (loss, nll, correct,
        count) of its steps, when it started, and whether max_steps, the time budget or a signal cut it short."""
        epoch = self.state.epoch
        sums = np.zeros(4)
        steps_per_epoch = len(self.train_batches)
        epoch_start, done_before = time.monotonic(), self.state.batch_in_epoch
        self._report("epoch_start", epoch=epoch + 1, epochs=epochs, batch=done_before, batches=steps_per_epoch)
        try:
            for index, batch in enumerate(self._batches(self.train_batches, epoch, shuffle=True)):
                if index < done_before:
                    continue  # resumed mid-epoch: these batches were trained before the interruption
                self._say_if_compiling(batch)
                step = self._timed_step(batch, signals, pace)
                sums += step
                self.state.batch_in_epoch = index + 1
                loss, accuracy = sums[0] / max(sums[3], 1), sums[2] / max(sums[3], 1)
                rate = (index + 1 - done_before) / max(time.monotonic() - epoch_start, 1e-9)
                self._report("step", step=self.state.step, epoch=epoch + 1, epochs=epochs, batch=index + 1,
                             batches=steps_per_epoch, rate=rate, losses={"loss": loss, "token_accuracy": accuracy,
                                                                         "step_loss": float(step[0] / max(step[3], 1))},
                             seconds=self.state.train_seconds, tokens=self.state.target_tokens)
                self._after_step(pace, epoch, (index + 1) / steps_per_epoch, loss, accuracy)
                if ((max_steps and self.state.step >= max_steps) or signals.stop_requested
                        or (pace.budget and self.state.train_seconds >= pace.budget)):
                    return sums, epoch_start, True
        finally:
            self._report("epoch_stop", step=self.state.step, epoch=epoch + 1, epochs=epochs)
        return sums, epoch_start, False

    def _say_if_compiling(self, batch) -> None:
        """Tell (a "compiling" event: the Train tab shows it while it lasts) that the coming step compiles: the
        train step is compiled once per batch shape, each taking seconds to a minute on a small CPU, during which
        the run reports nothing and a stop waits for the compile to end."""
        shape = tuple(tuple(getattr(t, "shape", ())) for t in tf.nest.flatten(batch))
        if shape in self._compiled_shapes:
            return
        self._compiled_shapes.add(shape)
        self._report("compiling", text=f"Compiling the training step for a new batch shape ({len(self._compiled_shapes)} "
                                  "so far): the first steps of a run are slow, and a Stop takes effect after this one")

    def _timed_step(self, batch, signals: TrainingSignals, pace: "_Pace") -> np.ndarray:
        """One training step, counted in the run's state; its (loss, nll, correct, count) sums."""
        step_start = time.monotonic()
        result = np.asarray(self._train_step(*batch))
        step_seconds = time.monotonic() - step_start
        if signals.take_pause() and pace.last_step_seconds is not None:
            step_seconds = min(step_seconds, pace.last_step_seconds)  # stopped mid-step: count a usual step
        pace.last_step_seconds = step_seconds
        self.state.train_seconds += step_seconds
        self.state.target_tokens += int(result[3])
        self.state.step += 1
        return result

    def _after_step(self, pace: "_Pace", epoch: int, done: float, loss: float, accuracy: float) -> None:
        """TensorBoard every 20 steps, a checkpoint every few minutes, a dev evaluation every `eval_minutes`."""
        if self.state.step % 20 == 0:
            with pace.writer.as_default(step=self.state.step):
                tf.summary.scalar("train/loss", loss)
                tf.summary.scalar("train/token_accuracy", accuracy)
                tf.summary.scalar("train/learning_rate", float(self.optimizer.learning_rate.numpy()))
        if time.monotonic() - pace.last_checkpoint > self.checkpoint_seconds:
            self.save_checkpoint()
            pace.last_checkpoint = time.monotonic()
        if pace.eval_every and self.state.train_seconds >= pace.next_eval:
            point = {"train_seconds": round(self.state.train_seconds, 1), "step": self.state.step,
                     "epoch": epoch + done, **self.evaluate()}
            self.state.curve.append(point)
            pace.next_eval = pace.next_eval_after(self.state.train_seconds)
            with pace.writer.as_default(step=self.state.step):
                if "dev_loss" in point:
                    tf.summary.scalar("dev/loss", point["dev_loss"])
            self._report("dev", step=self.state.step, epoch=epoch + 1, losses=point,
                         seconds=point["train_seconds"])
        if pace.budget and self.state.train_seconds >= pace.budget:
            self._report("info", text=f"Training-time budget of {pace.budget / 60:.0f} minutes reached.")

    def _end_epoch(self, sums: np.ndarray, epoch_start: float, pace: "_Pace") -> bool:
        """Evaluate the finished epoch, record it, checkpoint; whether early stopping ends the run."""
        epoch = self.state.epoch
        record = {"epoch": epoch + 1, "step": self.state.step,
                  "train_loss": float(sums[0] / max(sums[3], 1)),
                  "train_token_accuracy": float(sums[2] / max(sums[3], 1)),
                  "epoch_seconds": round(time.monotonic() - epoch_start, 1)}
        record.update(self.evaluate())
        if self.scorer is not None and self.dev_batches is not None:
            record.update(self.scorer(self))
        improved = self._improves(record)
        if "dev_loss" in record:
            self.state.best_dev_loss = min(self.state.best_dev_loss, record["dev_loss"])
        record["improved"] = improved
        with pace.writer.as_default(step=self.state.step):
            for name, value in record.items():
                if name.startswith("dev_") and isinstance(value, float):
                    tf.summary.scalar(f"dev/{name[4:]}", value)
        self.state.history.append(record)
        self.state.epoch += 1
        self.state.batch_in_epoch = 0
        self._report("epoch", step=self.state.step, epoch=epoch + 1, losses=record, improved=improved)
        if self.on_epoch_end:
            self.on_epoch_end(self, record)
        self.save_checkpoint()
        pace.last_checkpoint = time.monotonic()
        patience = self.config.train.patience
        if patience and self.state.stale_epochs >= patience:
            self._report("info", text=f"Early stopping: {self.config.train.select_by.replace('_', ' ')} has not "
                                      f"improved for {patience} epochs.")
            return True
        return False


@dataclass
class _Pace:
    """What one `fit` keeps between steps: its TensorBoard writer, its time budget, when it evaluates next and
    when it last checkpointed."""
    writer: object
    budget: float  # training seconds (0: none)
    eval_every: float  # training seconds between dev evaluations (0: only at epochs' ends)
    last_checkpoint: float
    next_eval: float = 0.0
    last_step_seconds: float | None = None

    def next_eval_after(self, seconds: float) -> float:
        # the next point on the grid of eval_every training seconds: after a resume that skipped several
        # points, one evaluation, not one per missed point
        return (math.floor(seconds / self.eval_every) + 1) * self.eval_every if self.eval_every else 0.0
