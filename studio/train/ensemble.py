"""`studio ensemble`: one bundle of several trained models, whose next-token log-probabilities are averaged at
every step (`studio.model.Ensemble`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from studio.bundle import Bundle, load_bundle, save_bundle, write_metrics
from studio.config import BundleConfig
from studio.errors import StudioError
from studio.files import atomic_write_bytes
from studio.inference import TextGenerator
from studio.tasks import task_named
from studio.train.card import model_card, sample_outputs
from studio.weights import assign_arrays

# what each member's metrics.json keeps of how it trained and scored (its own, in `ensemble_members`)
TRAINED = ("seed", "steps", "epochs_trained", "train_seconds", "train_target_tokens_per_second", "device",
           "weights", "initialized_from", "dev_loss", "dev_token_accuracy", "dev_chrf")
# what the members share (their data): taken from the first
SHARED = ("task", "text_pipeline", "source_weights", "subword_alpha", "train_pairs", "dev_pairs", "data_files",
          "synthetic_pairs", "synthetic_file", "train_throughput_benchmark")


def ensemble_bundle(paths: list[Path], out: Path) -> Path:
    """One bundle of the models at `paths`, whose next-token log-probabilities are averaged at every step
    (`studio.model.Ensemble`): models of one architecture, task, tokenizer and dev split, trained apart (other
    seeds). Scores are not carried over (the ensemble's are its own: `studio eval … --record`); each member's
    seed, training and dev figures are kept in metrics.json's `ensemble_members`."""
    from studio.model import build_model  # Keras: loaded by the commands that build a model, not at import

    out = Path(out)
    bundles = [load_bundle(Path(p)) for p in paths]
    check_members(bundles, out)
    first = bundles[0]
    config = BundleConfig.from_dict(first.config.to_dict())
    config.model = dataclasses.replace(config.model, members=len(bundles))
    model = build_model(config.model).build_weights()
    arrays = {f"member_{i}/{name.split('/', 1)[1]}": array
              for i, bundle in enumerate(bundles) for name, array in bundle.weights.items()}
    assign_arrays(model.weights, arrays)
    members = [{"bundle": bundle.path.name, "seed": bundle.config.train.seed,
                **{key: bundle.metrics[key] for key in TRAINED if key in bundle.metrics}} for bundle in bundles]
    metrics = {key: first.metrics[key] for key in SHARED if key in first.metrics}
    metrics.update(parameters=model.parameter_count(), ensemble_members=members)
    try:
        save_bundle(out, config, first.tokenizers, model, metrics, replies=first.replies)  # one data, one index
    except OSError as error:
        raise StudioError(f"cannot write {out}: {error.strerror or error}") from None
    generator = TextGenerator.open(Bundle(out, config, first.tokenizers, arrays, metrics), "tf", model=model)
    metrics["samples"] = sample_outputs(generator, task_named(config.task.task).prompts)
    write_metrics(out, metrics)
    atomic_write_bytes(out / "MODEL_CARD.md", model_card(config, metrics, config.task.sources).encode("utf-8"))
    return out


def _recorded(bundle: Bundle) -> dict:
    """The digests load_bundle has just checked its files against."""
    return json.loads((bundle.path / "checksums.json").read_text(encoding="utf-8"))


def _tokenizer(checksums: dict) -> dict:
    return {name: digest for name, digest in checksums.items() if name.startswith("tokenizer/")}


def _split(bundle: Bundle) -> tuple:
    """Which pairs its dev figures were measured on."""
    t = bundle.config.train
    return t.split_seed, t.dev_fraction, t.dev_split


def check_members(bundles: list[Bundle], out: Path) -> None:
    """Refuse what would not make an ensemble: fewer than two, an ensemble among them, another architecture,
    task, tokenizer or dev split, the same weights twice, or an `out` that would overwrite a member."""
    if len(bundles) < 2:
        raise StudioError("an ensemble needs two bundles or more")
    for bundle in bundles:
        if out.resolve() == bundle.path.resolve() or bundle.path.resolve() in out.resolve().parents:
            raise StudioError(f"--out {out} would overwrite the member {bundle.path}; choose another folder")
    if out.exists() and not out.is_dir():
        raise StudioError(f"--out {out} is a file; choose a folder")
    first = bundles[0]
    weights, first_tokenizer = set(), _tokenizer(_recorded(first))
    for bundle in bundles:
        checksums = _recorded(bundle)
        if bundle.config.model.members != 1:
            raise StudioError(f"{bundle.path} is an ensemble already; give its members' bundles instead")
        if bundle.config.model != first.config.model or bundle.config.task != first.config.task:
            raise StudioError(f"{bundle.path} has another architecture or task than {first.path}; the members of "
                              "an ensemble differ only in their training (their seed)")
        if _tokenizer(checksums) != first_tokenizer:
            raise StudioError(f"{bundle.path} has another tokenizer than {first.path}; the members of an ensemble "
                              "read and write the same pieces")
        if _split(bundle) != _split(first):
            raise StudioError(f"{bundle.path} held out other dev pairs than {first.path} (train.split_seed, "
                              "dev_fraction or dev_split differ), so neither its dev figures nor the ensemble's "
                              "would be measured on pairs no member trained on")
        digest = checksums["weights.npz"]
        if digest in weights:
            raise StudioError(f"{bundle.path} has the same weights as another member: the same model twice adds "
                              "nothing")
        weights.add(digest)


__all__ = ["ensemble_bundle", "check_members"]
