"""A model bundle: everything needed to run a trained model, in one directory.

    config.json       model + tokenizer + training + task configuration
    weights.npz       weights keyed by variable path: float16, embeddings int8 with a scale per row (loaded as floats)
    tokenizer/        tokenizer.json and the tokenizer model file(s)
    metrics.json      what was measured on the dev split
    replies.npz       a chatbot's stored replies: the retrieval index over its training pairs (`studio.replies`)
    checksums.json    sha256 of every file above, so corruption is named, not silently used
    MODEL_CARD.md     data, licenses, intended use, known weaknesses
"""

from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from studio import paths
from studio.config import BundleConfig
from studio.errors import BundleError
from studio.files import atomic_write_bytes, sha256_of
from studio.replies import REPLIES_FILE
from studio.tasks import TASKS, TRANSLATOR
from studio.text import TokenizerPair
from studio.text.preprocess import Preprocessor
from studio.weights import assign_arrays, compact_arrays, load_npz, save_npz, variables_to_arrays

CHECKSUMMED = ["config.json", "weights.npz"]


def rebuild_command(config: BundleConfig | None, path: Path) -> str:
    task = config.task.task if config else "chatbot|translator"
    command = f"studio train {task} --data-dir ../shared/data --out {path}"
    if config and config.model.members > 1:  # trained apart, then combined
        command = (f"studio train {task} --data-dir ../shared/data --out MEMBER --set train.seed=N (for each of its "
                   f"{config.model.members} members), then studio ensemble MEMBER... --out {path}")
    if Path(path).resolve().parent == default_assets_dir().resolve():
        command += (f"   (or restore the shipped copy: `git checkout -- assets/{Path(path).name}` in a checkout, "
                    "or reinstall Transformer Studio)")
    return command


@dataclass
class Bundle:
    path: Path
    config: BundleConfig
    tokenizers: TokenizerPair
    weights: dict[str, np.ndarray]
    metrics: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # damage that does not stop the model from working

    @property
    def preprocessor(self):
        """Text in and out for this bundle (normalize, tokenize, truncate; detokenize, tidy)."""
        return Preprocessor(self.config, self.tokenizers)

    def build_model(self):
        """A Transformer (or an ensemble of them) with this bundle's architecture and weights (float32)."""
        from studio.model import build_model  # Keras: `studio translate` on an exported backend never loads it

        model = build_model(self.config.model).build_weights()
        try:
            assign_arrays(model.weights, self.weights)
        except ValueError as error:
            raise BundleError(self.path / "weights.npz", f"does not match config.json: {error}",
                              rebuild_command(self.config, self.path)) from None
        return model

    @cached_property
    def replies(self):
        """The stored replies (a `studio.text.retrieval.RetrievalIndex`), None when the bundle has none; read on
        first use (its sha256 was checked with the other files')."""
        from studio.text.retrieval import RetrievalIndex

        path = self.path / REPLIES_FILE
        if not path.is_file():
            return None
        try:
            return RetrievalIndex.load(path)
        except (OSError, ValueError, KeyError) as error:
            raise BundleError(path, f"unreadable ({error})", rebuild_command(self.config, self.path)) from None


def save_bundle(path: Path, config: BundleConfig, tokenizers: TokenizerPair, model, metrics: dict | None = None,
                model_card: str | None = None, replies=None, compact: bool = True) -> Path:
    """Write the bundle's files; `replies`: a chatbot's stored replies (a RetrievalIndex), or None for none;
    `compact`: store the weights as `compact_arrays` does (float16, int8 embedding rows), else as they are (an
    imported model keeps its float32 weights, to compute what its own runtime computes)."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path / "config.json", (json.dumps(config.to_dict(), indent=2, ensure_ascii=False) + "\n").encode())
    arrays = variables_to_arrays(model.weights)
    save_npz(path / "weights.npz", compact_arrays(arrays) if compact else arrays)
    tokenizer_files = [f"tokenizer/{name}" for name in tokenizers.save(path / "tokenizer")]
    if metrics is not None:
        write_metrics(path, metrics)
    if model_card:
        atomic_write_bytes(path / "MODEL_CARD.md", model_card.encode("utf-8"))
    stored = []
    if replies is not None:
        replies.save(path / REPLIES_FILE)
        stored = [REPLIES_FILE]
    elif (path / REPLIES_FILE).is_file():  # left by an earlier run in this folder: not this model's
        (path / REPLIES_FILE).unlink()
    checksums = {name: sha256_of(path / name) for name in CHECKSUMMED + tokenizer_files + stored}
    atomic_write_bytes(path / "checksums.json", (json.dumps(checksums, indent=2) + "\n").encode())
    return path


def write_metrics(path: Path, metrics: dict) -> None:
    atomic_write_bytes(Path(path) / "metrics.json", (json.dumps(metrics, indent=2, ensure_ascii=False) + "\n").encode())


def load_bundle(path: Path) -> Bundle:
    path = Path(path)
    if path.is_file():
        raise BundleError(path, "is a file; a model bundle is a folder (config.json, the weights and the tokenizer, "
                                "as `studio train` writes it)")
    if not path.is_dir():
        raise BundleError(path, "model bundle directory not found", rebuild_command(None, path))
    config_path = path / "config.json"
    if not config_path.is_file():
        raise BundleError(config_path, "missing", rebuild_command(None, path))
    try:
        config = BundleConfig.load(config_path)
        config.model.validate()
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise BundleError(config_path, f"corrupted or invalid ({error})", rebuild_command(None, path)) from None
    rebuild = rebuild_command(config, path)

    checksums_path = path / "checksums.json"
    if not checksums_path.is_file():
        raise BundleError(checksums_path, "missing", rebuild)
    try:
        checksums = json.loads(checksums_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise BundleError(checksums_path, f"corrupted ({error})", rebuild) from None
    for name, expected in checksums.items():
        file_path = path / name
        if not file_path.is_file():
            raise BundleError(file_path, "missing", rebuild)
        if sha256_of(file_path) != expected:
            raise BundleError(file_path, "corrupted: its sha256 differs from checksums.json", rebuild)

    try:
        tokenizers = TokenizerPair.load(path / "tokenizer")
    except Exception as error:  # sentencepiece/tfds raise assorted types for a bad model file
        raise BundleError(path / "tokenizer", f"cannot load the tokenizer ({error})", rebuild) from None
    try:
        weights = load_npz(path / "weights.npz")
    except ValueError as error:
        raise BundleError(path / "weights.npz", str(error), rebuild) from None
    metrics, warnings = {}, []
    if (path / "metrics.json").is_file():
        try:
            metrics = json.loads((path / "metrics.json").read_text(encoding="utf-8"))
        except ValueError as error:  # UnicodeDecodeError included
            warnings.append(f"{path / 'metrics.json'}: unreadable ({type(error).__name__}); the model works, "
                            "its recorded scores cannot be shown")
    return Bundle(path, config, tokenizers, weights, metrics if isinstance(metrics, dict) else {}, warnings)


def default_assets_dir() -> Path:
    """Shipped bundles: `$STUDIO_ASSETS`, the source checkout's `assets/`, or the installed `studio_assets`."""
    if paths.assets_dir() is not None:
        return paths.assets_dir()
    root = Path(__file__).resolve().parents[1]
    checkout = root / "assets"
    if (root / "pyproject.toml").is_file() and checkout.is_dir():  # running from a source checkout
        return checkout
    try:
        return Path(str(importlib.resources.files("studio_assets")))
    except ModuleNotFoundError:
        return checkout


def default_bundle(task: str) -> Path:
    """The shipped bundle of `task`: a folder named after it (the translator's for a name no task has)."""
    return default_assets_dir() / TASKS.get(task, TRANSLATOR).name
