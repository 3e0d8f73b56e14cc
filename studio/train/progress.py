"""What a training run reports while it runs, and the console's way of showing it.

`studio.train.run` and the `Trainer` send `TrainingEvent`s to one listener (any callable): the CLI's is
`ConsoleProgress` (a progress bar on a terminal, a line every 50 steps in a log, an epoch summary, the sample
outputs); a job started from the UI passes its own, which records the events it needs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


@dataclass(frozen=True)
class TrainingEvent:
    """One thing a training run reports. Its `kind`:

    - "info", "warning": what happened, in words (`text`): data read, tokenizer trained, resumed, budget reached…
    - "signal": a person asked the run to stop (Ctrl-C, SIGTERM): what it does now, in words (`text`)
    - "stopped": that stop ended the training before it was done (`step`, `epoch` of `epochs`; a checkpoint is
      saved); a stop that comes after the last step reports nothing more, and the run ends as finished
    - "epoch_start": an epoch begins (`epoch` of `epochs`, `batch` of its `batches` already trained when resumed)
    - "step": a training step is done (`step`, `batch` of `batches`; `losses`: loss and token_accuracy of the
      epoch so far, and step_loss, this step's; `rate`: steps per second; `seconds` and `tokens`: training time and target tokens so far)
    - "compiling": the next step compiles the train step for a new batch shape (`text`): slow, and a stop waits for
      it (the Train tab says so while it lasts; the console shows the slow step's rate instead)
    - "epoch_stop": the epoch's steps are over, finished or interrupted (a progress bar closes)
    - "dev": a periodic dev evaluation (`losses`: the curve's point; `seconds`: training seconds so far)
    - "epoch": an epoch is finished (`losses`: its record: train and dev losses and accuracies; `improved`)
    - "samples": the outputs of the task's prompts after an epoch (`samples`: input -> output; `losses`: its
      "dev_chrf" on the first `train.chrf_pairs` dev pairs when that is set)
    """

    kind: str
    text: str = ""
    step: int = 0  # optimizer steps so far
    epoch: int = 0  # counted from 1
    epochs: int = 0  # how many the run may train
    batch: int = 0  # batches of this epoch done
    batches: int = 0  # batches an epoch is expected to have
    losses: dict = field(default_factory=dict)
    samples: dict = field(default_factory=dict)
    rate: float = 0.0  # steps per second in this epoch
    seconds: float = 0.0  # training seconds so far
    tokens: int = 0  # target tokens trained on so far (a step's)
    improved: bool = False  # the epoch is the best yet by train.select_by


Listener = Callable[[TrainingEvent], None]


class ConsoleProgress:
    """The console's listener: a progress bar per epoch on a terminal, a line every 50 steps and after each dev
    evaluation when the output is a log, and each message, epoch summary and sample output as a line."""

    def __init__(self, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.interactive = sys.stderr.isatty()
        self._bar: Progress | None = None
        self._task = None

    def __call__(self, event: TrainingEvent) -> None:
        getattr(self, f"_{event.kind}")(event)

    def _info(self, event: TrainingEvent) -> None:
        self.console.print(event.text)

    def _compiling(self, event: TrainingEvent) -> None:
        pass

    def _warning(self, event: TrainingEvent) -> None:
        self.console.print(f"[yellow]{event.text}[/yellow]")

    def _signal(self, event: TrainingEvent) -> None:
        self.console.print(event.text, highlight=False)

    _stopped = _signal

    def _epoch_start(self, event: TrainingEvent) -> None:
        self._bar = Progress(TextColumn(f"epoch {event.epoch}/{event.epochs}"), BarColumn(), MofNCompleteColumn(),
                             TextColumn("{task.fields[stats]}"), TimeRemainingColumn(),
                             console=self.console, disable=not self.interactive, transient=False)
        self._bar.start()
        self._task = self._bar.add_task("train", total=event.batches, completed=event.batch, stats="")

    def _step(self, event: TrainingEvent) -> None:
        stats = f"loss {event.losses['loss']:.3f}  acc {event.losses['token_accuracy']:.3f}  {event.rate:.1f} steps/s"
        if self._bar is not None:
            self._bar.update(self._task, completed=event.batch, stats=stats)
        if not self.interactive and event.batch % 50 == 0:
            eta = (event.batches - event.batch) / max(event.rate, 1e-9)
            self.console.print(f"epoch {event.epoch} step {event.batch}/{event.batches}  {stats}  "
                               f"eta {eta / 60:.1f} min", highlight=False)

    def _epoch_stop(self, event: TrainingEvent) -> None:
        if self._bar is not None:
            self._bar.stop()
        self._bar = self._task = None

    def _dev(self, event: TrainingEvent) -> None:
        if not self.interactive:
            self.console.print(f"dev loss {event.losses.get('dev_loss', float('nan')):.3f} after "
                               f"{event.seconds / 60:.1f} training minutes", highlight=False)

    def _epoch(self, event: TrainingEvent) -> None:
        record = event.losses
        self.console.print(
            f"epoch {record['epoch']}: train loss {record['train_loss']:.3f} acc "
            f"{record['train_token_accuracy']:.3f}"
            + (f" | dev loss {record['dev_loss']:.3f} acc {record['dev_token_accuracy']:.3f}"
               f"{' (best)' if event.improved else ''}" if "dev_loss" in record else ""), highlight=False)

    def _samples(self, event: TrainingEvent) -> None:
        for prompt, reply in event.samples.items():
            self.console.print(f"  {prompt} -> {reply}", highlight=False)


__all__ = ["TrainingEvent", "Listener", "ConsoleProgress"]
