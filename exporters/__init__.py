"""Turn a trained bundle into the files of its exported variants (the table is `studio.variants.VARIANTS`):

    model.tflite / model.float16.tflite / model.int8.tflite   signatures `encode` and `decode_step`
    encode.onnx + decode_step.onnx (and *.int8.onnx)            one ONNX graph per signature
    ctranslate2/, ctranslate2-int8/                             CTranslate2 models, for `studio bench`
    golden/                                                     what other runtimes must compute (exporters.golden)
    manifest.json                                               names, shapes, ids, checksums, versions, parity

`export_bundle` writes every file under a temporary name and renames it into place, and writes the
manifest last: an interrupted export never leaves a file that looks current. Exporting some variants
keeps the manifest entries of the others when they were made from the same weights.
`ensure_exported` is the one place that builds what is missing or stale, on demand.

Each variant's format (`studio.variants.MODEL_FORMATS`) names its converter: a module of this package with
`export_variant(job, variant)`, which writes the variant's files into `job.work` (`ExportJob`) and returns the
details of their manifest entries. This module holds what every format shares: the traced model, the temporary
folder, the manifest.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from exporters.golden import write_golden
from exporters.verify import verify_exports
from studio.bundle import load_bundle
from studio.errors import StudioError
from studio.files import atomic_write_bytes, sha256_of
from studio.graph_pack import unpack
from studio.quiet_tf import import_tensorflow_quietly
from studio.runtimes.graph_state import source_buckets
from studio.variants import (EXPORT_FORMAT, EXPORTED_BACKENDS, MANIFEST, VARIANTS, Variant, export_dir_for,
                             export_identity, identity_reason, input_names, read_manifest, resolve, source_hashes,
                             stale_reasons)

# format (`studio.variants.MODEL_FORMATS`, those exported) -> the converter that writes its variants' files,
# `converter(job, variant) -> {file: manifest details}` into `job.work` (`ExportJob`); the manifest entry of each
# file is {"format", "quantization", **details}. Imported when used (ONNX's and CTranslate2's are heavy).
CONVERTERS = {"tflite": "exporters.tflite:export_variant", "onnx": "exporters.onnx:export_variant",
              "ctranslate2": "exporters.ctranslate2:export_variant"}

GOLDEN = "golden/golden.json"


def library_versions() -> dict[str, str]:
    versions = {}
    for name in ("tensorflow", "keras", "tf2onnx", "onnxruntime", "onnx", "ai-edge-litert", "ctranslate2"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _signature_table(config) -> dict:
    names = input_names(config.cache_depth)
    B, h, d = "batch", config.num_heads, config.head_dim
    S, C = "source_len", "cache_len"  # batch-1 graphs: batch 1, max_source_len, max_target_len
    cache = {"shape": [B, h, C, d], "dtype": "float32"}
    cross = {"shape": [B, h, S, d], "dtype": "float32"}
    step_inputs = {"tokens": {"shape": [B], "dtype": "int32"}, "position": {"shape": [], "dtype": "int32"}}
    step_inputs.update({n: cache for n in names["decode_step"] if n.startswith("cache_")})
    step_inputs.update({n: cross for n in names["decode_step"] if n.startswith("cross_")})
    step_inputs["source_mask"] = {"shape": [B, S], "dtype": "float32"}
    step_outputs = {"logits": {"shape": [B, config.tgt_vocab_size], "dtype": "float32"}}
    step_outputs.update({f"new_{n}": cache for n in names["decode_step"] if n.startswith("cache_")})
    encode_outputs = {"source_mask": {"shape": [B, S], "dtype": "float32"}}
    encode_outputs.update({n: cross for n in names["encode_outputs"] if n.startswith("cross_")})
    rows_inputs = dict(step_inputs, position={"shape": [B], "dtype": "int32"})
    return {"encode": {"inputs": {"source_ids": {"shape": [B, S], "dtype": "int32"}}, "outputs": encode_outputs},
            "decode_step": {"inputs": step_inputs, "outputs": step_outputs},
            # in the graphs of any batch size (not the batch-1 ones): one position per row
            "decode_rows": {"inputs": rows_inputs, "outputs": step_outputs}}


def _move_into_place(temp: Path, target: Path) -> None:
    if temp.is_dir():  # a CTranslate2 model folder: swap it in whole
        old = target.with_name(f".{target.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if target.exists():
            os.replace(target, old)
        os.replace(temp, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(temp, target)


def _previous_entries(out: Path, sources: dict[str, str]) -> tuple[dict, dict]:
    """Files and verification results of an earlier export from the same weights (kept when exporting others);
    `sources`: the bundle's `source_hashes`."""
    try:
        manifest = read_manifest(out)
    except StudioError:
        return {}, {}
    if manifest.get("format") != EXPORT_FORMAT or {k: manifest.get("source", {}).get(k) for k in sources} != sources \
            or identity_reason(manifest.get("identity")):
        return {}, {}
    files = {name: entry for name, entry in manifest.get("files", {}).items() if (out / name).is_file()}
    return files, dict(manifest.get("verification", {}))


@dataclass
class ExportJob:
    """What a converter (`export_variant(job, variant)` of a format's module) works with: the bundle, the
    temporary folder its files go to, and what the variants of one export share."""
    bundle: object  # studio.bundle.Bundle
    work: Path  # the files are written here, then moved into `out` together
    out: Path  # the export folder
    sources: dict[str, str]  # the bundle's `source_hashes`
    previous: dict[str, dict]  # manifest entries of current files in `out` (made from the same weights)
    chosen: list[Variant]  # every variant of this export
    progress: Callable[[str], None] = print
    shared: dict = field(default_factory=dict)  # what a format's variants hand on (ONNX: the fp32 graphs)

    def traced(self, batch: int | None):
        """(the traced DecoderModule, its SavedModel folder) at `batch` (None: any batch), traced once."""
        return _traced(self.bundle, self.sources, batch, self.progress)


def export_bundle(bundle, out=None, backends=None, verify: bool = True, progress=print,
                  golden: bool = True) -> dict:
    """Export `bundle` (a loaded `studio.bundle.Bundle`, or its folder: `studio export`) for `backends` (names
    from `studio.variants.VARIANTS`; default: every backend the app serves); returns the manifest.
    `progress(message)` reports each stage. `golden`: also write golden/ (`write_golden_data`) when a .tflite was
    exported."""
    started = time.monotonic()
    chosen = [VARIANTS[name] for name in (backends or EXPORTED_BACKENDS)]
    unknown = [v.name for v in chosen if not v.exported]
    if unknown:
        raise ValueError(f"{', '.join(unknown)} run the Keras model: nothing to export")
    if isinstance(bundle, (str, os.PathLike)):
        bundle = load_bundle(Path(bundle))
    out = Path(out) if out else export_dir_for(bundle.path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".export-", dir=out))
    except OSError as error:
        raise StudioError(f"{out}: cannot write the export here ({error.strerror or error}); pass --out DIR") from None
    sources = source_hashes(bundle)
    files, verification = _previous_entries(out, sources)
    written: dict[str, dict] = {}
    try:
        job = ExportJob(bundle, work, out, sources, dict(files), chosen, progress)
        written = _convert(job)
        for name, entry in written.items():
            entry["bytes"] = (work / name).stat().st_size
            entry["sha256"] = sha256_of(work / name)
        for top in {name.split("/")[0] for name in written}:
            _move_into_place(work / top, out / top)
        _remember_converted(job, written)
    except Exception as error:  # noqa: BLE001 - TensorFlow reports a full disk as its own error type
        reason = _write_failure(error)
        if reason is None:
            raise
        raise StudioError(f"{out}: export failed while writing ({reason}); no incomplete file was left in place. "
                          "Free some space or pass --out DIR") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    files.update(written)
    for v in chosen:
        verification.pop(v.name, None)

    config = bundle.config.model
    manifest = {
        "format": EXPORT_FORMAT,
        "identity": export_identity(),
        "task": bundle.config.task.task,
        "signatures": _signature_table(config),
        "special_ids": {"pad": config.pad_id, "bos": config.bos_id, "eos": config.eos_id},
        "max_source_len": config.max_source_len,
        "max_target_len": config.max_target_len,
        # the graphs of any batch size take any source length up to max_source_len (padded with the pad id) and
        # caches of any length up to max_target_len; the batch-1 graphs exactly these, and also sources of each
        # bucket's length through encode_<L>/decode_step_<L>
        "batch_1_graph_shapes": {"batch": 1, "source_len": config.max_source_len, "cache_len": config.max_target_len,
                                 "source_buckets": source_buckets(config.max_source_len)},
        "vocab_size": config.tgt_vocab_size,
        "tokenizer": {"kind": bundle.config.tokenizer.kind, "shared": bundle.tokenizers.shared,
                      "files": sorted(str(p.relative_to(bundle.path)) for p in (bundle.path / "tokenizer").iterdir())},
        "source": {"bundle": str(bundle.path), **sources},
        "files": files,
        "versions": library_versions(),
        "export_seconds": round(time.monotonic() - started, 1),
    }
    if verification:
        manifest["verification"] = verification
    if "model.tflite" in files and "model.tflite" not in written and (out / GOLDEN).is_file():
        manifest["golden"] = GOLDEN  # written with that model.tflite, from these weights: still current
    _write_manifest(out, manifest)
    if verify and any(v.serves for v in chosen):
        progress("Verifying against TensorFlow...")
        manifest["verification"] = {**verification, **verify_exports(bundle, out, [v.name for v in chosen if v.serves])}
        _write_manifest(out, manifest)
    if golden and any(v.format == "tflite" for v in chosen) and (out / "model.tflite").is_file():
        manifest = write_golden_data(bundle, out, progress)
    progress(f"Exported to {out} in {time.monotonic() - started:.0f}s")
    return manifest


def write_golden_data(bundle, export_dir: Path, progress=print) -> dict:
    """Write golden/ (`exporters.golden`) for the .tflite files in `export_dir` (model.tflite among them) and
    name it in the manifest; returns the manifest."""
    progress("Writing golden data for other runtimes (golden/)...")
    path = write_golden(bundle, export_dir)
    manifest = read_manifest(export_dir)
    manifest["golden"] = str(path.relative_to(export_dir))
    _write_manifest(export_dir, manifest)
    return manifest


# weights → the SavedModel of their traced DecoderModule (`signatures.shared_module`, shared with the TF runtime):
# a later export of the same weights in this process (the app exports each backend when it is first chosen) skips
# tracing and saving; the two most recent bundles are kept
_SAVED: OrderedDict[tuple, Path] = OrderedDict()
_SAVED_LOCK = threading.Lock()
_SAVED_KEEP = 4  # two bundles, each at any batch and at batch 1


def _traced(bundle, sources: dict, batch: int | None, progress):
    key = (*sorted(sources.items()), batch)  # the same weights and config, wherever the bundle lies: one graph
    from studio.runtimes.signatures import shared_module  # deferred: it imports TensorFlow

    with _SAVED_LOCK:
        module = shared_module(bundle, batch)
        if key in _SAVED:
            _SAVED.move_to_end(key)
            return module, _SAVED[key]
        progress("Tracing encode and decode_step" + (f" at batch {batch}..." if batch else "..."))
        folder = Path(tempfile.mkdtemp(prefix="studio-saved-model-"))
        atexit.register(shutil.rmtree, folder, True)
        module.save(folder)
        _SAVED[key] = folder
        while len(_SAVED) > _SAVED_KEEP:
            shutil.rmtree(_SAVED.popitem(last=False)[1], ignore_errors=True)
        return module, folder


def _convert(job: ExportJob) -> dict[str, dict]:
    """Write the files of the variants of `job` into `job.work`, each by its format's converter (or copied from
    an export of the same weights, `_copy_converted`); returns their manifest entries."""
    written: dict[str, dict] = {}
    for v in job.chosen:
        copied = _copy_converted(job, v)
        if copied is not None:
            job.progress(f"{', '.join(v.files)}: copied from {copied[1]} (the same weights, code and converters)")
            written.update(copied[0])
            continue
        export_variant = resolve(CONVERTERS[v.format])
        for name, details in export_variant(job, v).items():
            written[name] = {"format": v.format, "quantization": v.quantization, **details}
    return written


# (weights and config, variant, graph code and converters) -> {file: (where an export of this process wrote it,
# its manifest entry)}: the same inputs make the same bytes, so a later export of those weights (a copy of the
# bundle, an export rebuilt after damage, another --out) copies a variant's files, once their sha256 shows them
# unchanged, instead of converting it again (a tiny model's TFLite file: ~4 CPU-seconds; the shipped ones: ~20)
_CONVERTED: OrderedDict[tuple, dict[str, tuple[Path, dict]]] = OrderedDict()
_CONVERTED_LOCK = threading.Lock()
_CONVERTED_KEEP = 64  # variants: a few bundles' worth


def _converted_key(sources: dict, variant: Variant) -> tuple:
    return (*sorted(sources.items()), variant.name, json.dumps(export_identity(), sort_keys=True))


def _copy_converted(job: ExportJob, variant: Variant) -> tuple[dict[str, dict], Path] | None:
    """`variant`'s files copied into `job.work` from an export of the same weights in this process: (their
    manifest entries, the folder they came from); None when there is none or its files changed since."""
    if any("/" in name for name in variant.files):  # a folder (CTranslate2's) holds more than its listed file
        return None
    with _CONVERTED_LOCK:
        found = _CONVERTED.get(_converted_key(job.sources, variant))
    if found is None or not all(path.is_file() for path, _ in found.values()):
        return None
    for name, (path, entry) in found.items():
        shutil.copyfile(path, job.work / name)
        if sha256_of(job.work / name) != entry["sha256"]:  # damaged or written again since: convert
            for copied in found:
                (job.work / copied).unlink(missing_ok=True)
            return None
    return {name: dict(entry) for name, (_, entry) in found.items()}, next(iter(found.values()))[0].parent


def _remember_converted(job: ExportJob, written: dict[str, dict]) -> None:
    """Note where the variants of `job` now lie (moved into `job.out`), for `_copy_converted`."""
    with _CONVERTED_LOCK:
        for v in job.chosen:
            if all(name in written for name in v.files):
                key = _converted_key(job.sources, v)
                _CONVERTED[key] = {name: (job.out / name, dict(written[name])) for name in v.files}
                _CONVERTED.move_to_end(key)
        while len(_CONVERTED) > _CONVERTED_KEEP:
            _CONVERTED.popitem(last=False)


_EXPORT_LOCKS: dict[str, threading.Lock] = {}
_EXPORT_LOCKS_GUARD = threading.Lock()


def _export_lock(export_dir: Path) -> threading.Lock:
    with _EXPORT_LOCKS_GUARD:
        return _EXPORT_LOCKS.setdefault(str(Path(export_dir).resolve()), threading.Lock())


def ensure_exported(bundle, backends, export_dir: Path | None = None, progress=print) -> Path:
    """Build the files of `backends` that are missing or stale (one export at a time per folder; callers
    that asked meanwhile find them built); returns the export folder."""
    directory = Path(export_dir) if export_dir else export_dir_for(bundle.path)
    if not any(stale_reasons(bundle, backends, directory).values()):
        return directory
    with _export_lock(directory):  # another thread may have built them meanwhile: look again
        missing = {name: reason for name, reason in stale_reasons(bundle, backends, directory).items() if reason}
        try:  # the bundle may ship these graphs as a pack: rebuilt from its weights in about a second
            rebuilt = unpack(bundle, directory, list(missing)) if missing else []
        except OSError:  # the folder cannot be written: the export below says so in its words
            rebuilt = []
        if rebuilt:
            progress(f"{', '.join(rebuilt)}: rebuilt from the bundle's graph pack")
            missing = {name: reason for name, reason in stale_reasons(bundle, list(missing), directory).items()
                       if reason}
        if missing:
            first = next(iter(missing.values()))
            progress(f"{first}\nExporting {', '.join(missing)} now (once; this takes a little while)...")
            import_tensorflow_quietly()  # the converters need it; without its start-up chatter
            export_bundle(bundle, directory, list(missing), verify=False, progress=progress, golden=False)
    return directory


def _write_failure(error: BaseException) -> str | None:
    """The reason if `error` is a failed write (disk full, read-only, permission), else None."""
    if isinstance(error, OSError):
        return error.strerror or str(error)
    import tensorflow as tf  # loaded already: the error came from a TensorFlow export

    if isinstance(error, (tf.errors.ResourceExhaustedError, tf.errors.PermissionDeniedError,
                          tf.errors.FailedPreconditionError, tf.errors.UnavailableError)):
        return str(error.message).rsplit(";", 1)[-1].strip() or type(error).__name__
    return None


def _write_manifest(out: Path, manifest: dict) -> None:
    atomic_write_bytes(out / MANIFEST, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
