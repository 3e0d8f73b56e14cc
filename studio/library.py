"""The model library: every bundle the app knows — the shipped chatbot and translator, and each model the user
trained or fine-tuned, kept in the per-user data folder (never inside the installed package) — with what the
Models tab and `studio models` show of each, which one each task uses, and renaming and deleting.

    <user data dir>/models/<name>/   a bundle (config.json, weights.npz, tokenizer/, checksums.json, metrics.json...)
    <user data dir>/library.json     {"chosen": {"chatbot": name, "translator": name}}

The user data dir is `studio.paths.data_dir()` (STUDIO_DATA_DIR overrides platformdirs' folder). The shipped bundles
are listed under their task's name and can be chosen, never renamed or deleted."""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from studio import paths
from studio.bundle import default_bundle
from studio.errors import StudioError
from studio.files import atomic_write_bytes
from studio.tasks import TASKS

SETTINGS = "library.json"
NAME = re.compile(r"^[\w][\w .\-]{0,63}$")  # a folder name on every OS: letters, digits, _ - . and spaces


def data_dir() -> Path:
    return paths.data_dir()


def models_dir() -> Path:
    return data_dir() / "models"


@dataclass(frozen=True)
class ModelEntry:
    name: str
    path: Path
    task: str
    shipped: bool
    bytes: int = 0
    parameters: int = 0
    train_pairs: int = 0
    dev_pairs: int = 0
    data: str = ""  # where its training data came from, in words
    scores: dict = field(default_factory=dict)  # {set: {decoding: {"chrf": x, "bleu": y}}} from metrics.json
    initialized_from: str = ""
    problem: str = ""  # why it cannot be used ("" when it can)
    members: int = 1  # models averaged at each step (an ensemble, like the shipped chatbot: more than one)
    learned_little: str = ""  # why its dev figures say it is not usable as it is, with what would help ("": fine)
    imported_from: str = ""  # a model made elsewhere (`studio import`): where it came from
    licence: str = ""  # an imported model's licence, as its files state it

    @property
    def card(self) -> str:
        path = self.path / "MODEL_CARD.md"
        return path.read_text(encoding="utf-8") if path.is_file() else "(this model has no model card)"

    def headline_score(self) -> str:
        """One dev score for a table: the first set's first decoding's chrF and BLEU."""
        for name, by_decoding in self.scores.items():
            for decoding, score in by_decoding.items():
                if isinstance(score, dict) and "chrf" in score:
                    return f"{name} ({decoding}): {score_text(score)}"
        return ""


def score_text(score: dict) -> str:
    """"chrF x, BLEU y", without a BLEU the run did not measure (a run's own dev split is scored by chrF alone)."""
    return f"chrF {score['chrf']:.2f}" + (f", BLEU {score['bleu']:.2f}" if "bleu" in score else "")


def dev_split_name(pairs: int) -> str:
    """What a trained model's own dev figure is measured on (the Models tab's and the Train tab's one label)."""
    return f"its whole dev split ({pairs:,} pairs)" if pairs else "its dev split"


def _folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and "exports" not in f.parts)


def read_entry(path: Path, name: str, shipped: bool = False) -> ModelEntry:
    """What the library shows of the bundle at `path`; a bundle it cannot read is listed with its `problem`."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        task = config["task"]["task"]
        members = int((config.get("model") or {}).get("members", 1))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        return ModelEntry(name, path, "?", shipped, problem=f"config.json unreadable ({error})")
    try:
        metrics = json.loads((path / "metrics.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        metrics = {}
    files = metrics.get("data_files") or []
    data = ", ".join(Path(str(f)).name for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    if not data and metrics.get("imported_from"):  # `studio import`: trained elsewhere
        data = f"imported from {Path(str(metrics['imported_from'])).name}"
    scores = metrics.get("evaluation") or {}
    if not scores and "dev_chrf" in metrics:
        scores = {dev_split_name(int(metrics.get("dev_pairs") or 0)): {"greedy": {"chrf": metrics["dev_chrf"]}}}
    problem = "" if (path / "weights.npz").is_file() and (path / "checksums.json").is_file() else \
        "weights.npz or checksums.json is missing"
    return ModelEntry(name, path, task, shipped, _folder_bytes(path), int(metrics.get("parameters") or 0),
                      int(metrics.get("train_pairs") or 0), int(metrics.get("dev_pairs") or 0), data, scores,
                      str(metrics.get("initialized_from") or ""), problem, members,
                      "" if shipped else _learned_little(task, metrics), str(metrics.get("imported_from") or ""),
                      str(metrics.get("licence") or ""))


def _learned_little(task: str, metrics: dict) -> str:
    """What the task says of a trained model's own dev figures (`Task.learned_little`)."""
    if task not in TASKS or not isinstance(metrics.get("dev_chrf"), (int, float)):
        return ""
    distinct = metrics.get("dev_distinct")
    return TASKS[task].learned_little(float(metrics["dev_chrf"]), distinct if isinstance(distinct, (int, float))
                                      else None, int(metrics.get("train_pairs") or 0),
                                      float(metrics.get("train_seconds") or 0) / 60)


def list_models() -> list[ModelEntry]:
    """The shipped bundles (by task), then the user's, by name."""
    entries = [read_entry(default_bundle(task), task, shipped=True) for task in TASKS]
    folder = models_dir()
    if folder.is_dir():
        entries += [read_entry(path, path.name) for path in sorted(folder.iterdir(), key=lambda p: p.name.lower())
                    if path.is_dir() and not path.name.startswith(".") and (path / "config.json").exists()]
    return entries


def find_model(name: str) -> ModelEntry:
    for entry in list_models():
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in list_models())
    raise StudioError(f"no model named {name!r} in the library; it has: {known}")


def _settings() -> dict:
    try:
        settings = json.loads((data_dir() / SETTINGS).read_text(encoding="utf-8"))
        return settings if isinstance(settings, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_settings(settings: dict) -> None:
    data_dir().mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(data_dir() / SETTINGS, (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode())


def chosen_name(task: str) -> str:
    """The model `task` uses: the user's choice while it exists and can be used, else the shipped one."""
    name = _settings().get("chosen", {}).get(task)
    if name and name != task:
        path = models_dir() / name
        if path.is_dir() and not read_entry(path, name).problem:
            return name
    return task


def chosen_bundle(task: str) -> Path:
    name = chosen_name(task)
    return default_bundle(task) if name == task else models_dir() / name


def choose(name: str) -> ModelEntry:
    """Make model `name` the one its task's tabs use."""
    entry = find_model(name)
    if entry.problem:
        raise StudioError(f"{name} cannot be used: {entry.problem}")
    settings = _settings()
    settings.setdefault("chosen", {})[entry.task] = entry.name
    _save_settings(settings)
    return entry


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME.match(name) or name in TASKS:
        raise StudioError(f"{name!r} cannot name a model: use 1-64 letters, digits, spaces, '_', '-' or '.', "
                          f"starting with a letter or digit, and not {' or '.join(TASKS)}")
    return name


def unique_name(base: str) -> str:
    """`base`, or `base-2`, `base-3`... : the first name no model in the library has."""
    base = re.sub(r"[^\w .\-]", "-", base.strip())[:56].strip(" .-") or "model"
    taken = {e.name.lower() for e in list_models()}
    name, n = base, 1
    while name.lower() in taken or name in TASKS:
        n += 1
        name = f"{base}-{n}"
    return name


def _user_entry(name: str, action: str) -> ModelEntry:
    entry = find_model(name)
    if entry.shipped:
        raise StudioError(f"{name} is a shipped model: it cannot be {action}")
    return entry


def rename(name: str, new_name: str) -> ModelEntry:
    entry = _user_entry(name, "renamed")
    new_name = check_name(new_name)
    target = models_dir() / new_name
    if new_name.lower() != name.lower() and any(e.name.lower() == new_name.lower() for e in list_models()):
        raise StudioError(f"a model named {new_name!r} exists already")
    os.replace(entry.path, target)
    settings = _settings()
    chosen = settings.get("chosen", {})
    if chosen.get(entry.task) == name:
        chosen[entry.task] = new_name
        _save_settings(settings)
    return read_entry(target, new_name)


def deletable(name: str, in_use: set[str] = frozenset()) -> ModelEntry:
    """The entry of a model the user made that no tab uses (`in_use`: the names the running app's tabs use; the
    task's chosen model counts as in use too); StudioError for a shipped one or one in use: choose another first."""
    entry = _user_entry(name, "deleted")
    if name in in_use or chosen_name(entry.task) == name:
        raise StudioError(f"{name} is the {entry.task} model the app uses: choose another {entry.task} model "
                          "first, then delete it")
    return entry


def delete(name: str, in_use: set[str] = frozenset()) -> None:
    """Delete a model the user made, when `deletable`."""
    entry = deletable(name, in_use)
    trash = entry.path.with_name(f".deleting-{entry.path.name}")
    os.replace(entry.path, trash)  # gone from the library at once, even if removing its files takes a while
    shutil.rmtree(trash, ignore_errors=True)
