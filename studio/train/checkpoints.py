"""Training checkpoints that survive a kill at any moment.

Each checkpoint is a directory `ckpt-<step>/` (model.npz, optimizer.npz, state.json) written under a
temporary name and renamed into place; `latest.json` (also written atomically) names the newest complete
one. A SIGKILL mid-save leaves at worst a stray temporary directory, never a half checkpoint in use; a save that
fails (a full disk) removes its partial copy and raises CheckpointError, the last complete checkpoint kept.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from studio.errors import StudioError
from studio.files import atomic_write_bytes
from studio.weights import assign_arrays, load_npz, save_npz


class CheckpointError(StudioError):
    """A checkpoint could not be written; the newest complete one (if any) is untouched."""


@dataclass
class TrainState:
    epoch: int = 0  # epochs fully done
    batch_in_epoch: int = 0  # batches of the current epoch already trained (resume skips them)
    step: int = 0
    best_dev_loss: float = math.inf
    best_score: float | None = None  # the best end-of-epoch dev value of train.select_by (None: none yet)
    stale_epochs: int = 0  # epochs since best_score last improved
    train_seconds: float = 0.0
    target_tokens: int = 0
    history: list = field(default_factory=list)  # one dict per finished epoch
    curve: list = field(default_factory=list)  # periodic dev evaluations: train_seconds, step, dev_loss, ...

    @classmethod
    def from_dict(cls, data: dict) -> "TrainState":
        return cls(**data)


class CheckpointStore:
    def __init__(self, directory: Path, keep: int = 5):
        self.directory = Path(directory)
        self.keep = keep

    def save(self, model, optimizer, state: TrainState) -> Path:
        try:
            return self._save(model, optimizer, state)
        except OSError as error:
            kept = self.latest()
            raise CheckpointError(
                f"could not save the checkpoint of step {state.step} in {self.directory} "
                f"({error.strerror or error}); "
                + (f"the last complete one ({kept.name}) is kept: free some space and resume" if kept
                   else "no earlier checkpoint exists")) from None

    def _save(self, model, optimizer, state: TrainState) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        final = self.directory / f"ckpt-{state.step:08d}"
        temp = Path(tempfile.mkdtemp(dir=self.directory, prefix=".tmp-ckpt-"))
        try:
            save_npz(temp / "model.npz", {v.path: np.asarray(v.numpy()) for v in model.weights})
            save_npz(temp / "optimizer.npz", {f"v{i:05d}": np.asarray(v.numpy())
                                              for i, v in enumerate(optimizer.variables)})
            atomic_write_bytes(temp / "state.json", json.dumps(asdict(state), indent=1).encode())
            if final.exists():
                shutil.rmtree(final)
            temp.rename(final)
        finally:
            if temp.exists():
                shutil.rmtree(temp, ignore_errors=True)
        atomic_write_bytes(self.directory / "latest.json", json.dumps({"checkpoint": final.name}).encode())
        self._prune()
        return final

    def all(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.glob("ckpt-*") if (p / "state.json").is_file())

    def latest(self) -> Path | None:
        pointer = self.directory / "latest.json"
        if pointer.is_file():
            candidate = self.directory / json.loads(pointer.read_text())["checkpoint"]
            if (candidate / "state.json").is_file():
                return candidate
        complete = self.all()
        return complete[-1] if complete else None

    def restore(self, model, optimizer, checkpoint: Path | None = None) -> TrainState:
        checkpoint = checkpoint or self.latest()
        if checkpoint is None:
            raise FileNotFoundError(f"no checkpoint in {self.directory}")
        assign_arrays(model.weights, load_npz(checkpoint / "model.npz"))
        saved = load_npz(checkpoint / "optimizer.npz")
        if len(saved) != len(optimizer.variables):
            raise ValueError(f"{checkpoint}/optimizer.npz holds {len(saved)} variables, optimizer has "
                             f"{len(optimizer.variables)}")
        for i, variable in enumerate(optimizer.variables):
            variable.assign(saved[f"v{i:05d}"])
        return TrainState.from_dict(json.loads((checkpoint / "state.json").read_text()))

    def average_weights(self, last: int) -> dict[str, np.ndarray]:
        """Element-wise mean of the model weights of the newest `last` checkpoints."""
        chosen = self.all()[-last:]
        if not chosen:
            raise FileNotFoundError(f"no checkpoint in {self.directory}")
        arrays = [load_npz(path / "model.npz") for path in chosen]
        return {name: np.mean([a[name] for a in arrays], axis=0) for name in arrays[0]}

    def _prune(self) -> None:
        for stale in self.all()[: -self.keep] if self.keep else []:
            shutil.rmtree(stale, ignore_errors=True)
