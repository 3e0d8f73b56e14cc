"""Turn a trained bundle into the files of its exported variants (the table is `studio.exports.VARIANTS`):

    model.tflite / model.float16.tflite / model.int8.tflite   signatures `encode` and `decode_step`
    encode.onnx + decode_step.onnx (and *.int8.onnx)            one ONNX graph per signature
    ctranslate2/, ctranslate2-int8/                             CTranslate2 models, for `studio bench`
    golden/                                                     what other runtimes must compute (exporters.golden)
    manifest.json                                               names, shapes, ids, checksums, versions, parity

`export_bundle` writes every file under a temporary name and renames it into place, and writes the
manifest last: an interrupted export never leaves a file that looks current. Exporting some variants
keeps the manifest entries of the others when they were made from the same weights.
`ensure_exported` is the one place that builds what is missing or stale, on demand.
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
from pathlib import Path

from studio.errors import StudioError
from studio.exports import (EXPORT_FORMAT, EXPORTED_BACKENDS, MANIFEST, VARIANTS, export_dir_for, input_names,
                            read_manifest, source_hashes, stale_reasons)
from studio.files import atomic_write_bytes, sha256_of

GOLDEN = "golden/golden.json"


def library_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

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
    S, C = config.max_source_len, config.max_target_len
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
    if manifest.get("format") != EXPORT_FORMAT or {k: manifest.get("source", {}).get(k) for k in sources} != sources:
        return {}, {}
    files = {name: entry for name, entry in manifest.get("files", {}).items() if (out / name).is_file()}
    return files, dict(manifest.get("verification", {}))


def export_bundle(bundle_path, out=None, backends=None, verify: bool = True, progress=print,
                  golden: bool = True) -> dict:
    """Export `bundle_path` for `backends` (names from `studio.exports.VARIANTS`; default: every backend the
    app serves); returns the manifest. `progress(message)` reports each stage. `golden`: also write golden/
    (`write_golden_data`) when a .tflite was exported."""
    from studio.bundle import load_bundle

    started = time.monotonic()
    chosen = [VARIANTS[name] for name in (backends or EXPORTED_BACKENDS)]
    unknown = [v.name for v in chosen if not v.exported]
    if unknown:
        raise ValueError(f"{', '.join(unknown)} run the Keras model: nothing to export")
    bundle = load_bundle(Path(bundle_path))
    out = Path(out) if out else export_dir_for(bundle.path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".export-", dir=out))
    except OSError as error:
        raise StudioError(f"{out}: cannot write the export here ({error.strerror or error}); pass --out DIR") from None
    sources = source_hashes(bundle.path)
    files, verification = _previous_entries(out, sources)
    written: dict[str, dict] = {}
    try:
        quantizing_only = {v.quantization for v in chosen if v.format == "onnx"} == {"int8"}
        written = _convert(bundle, chosen, work, sources, progress,
                           _current_onnx_fp32(out, files, work) if quantizing_only else None)
        for name, entry in written.items():
            entry["bytes"] = (work / name).stat().st_size
            entry["sha256"] = sha256_of(work / name)
        for top in {name.split("/")[0] for name in written}:
            _move_into_place(work / top, out / top)
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
        "task": bundle.config.task.task,
        "signatures": _signature_table(config),
        "special_ids": {"pad": config.pad_id, "bos": config.bos_id, "eos": config.eos_id},
        "max_source_len": config.max_source_len,
        "max_target_len": config.max_target_len,
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
        from exporters.verify import verify_exports

        manifest["verification"] = {**verification, **verify_exports(bundle, out, [v.name for v in chosen if v.serves])}
        _write_manifest(out, manifest)
    if golden and any(v.format == "tflite" for v in chosen) and (out / "model.tflite").is_file():
        manifest = write_golden_data(bundle, out, progress)
    progress(f"Exported to {out} in {time.monotonic() - started:.0f}s")
    return manifest


def write_golden_data(bundle, export_dir: Path, progress=print) -> dict:
    """Write golden/ (`exporters.golden`) for the .tflite files in `export_dir` (model.tflite among them) and
    name it in the manifest; returns the manifest."""
    from exporters.golden import write_golden

    progress("Writing golden data for other runtimes (golden/)...")
    path = write_golden(bundle, export_dir)
    manifest = read_manifest(export_dir)
    manifest["golden"] = str(path.relative_to(export_dir))
    _write_manifest(export_dir, manifest)
    return manifest


# weights → (traced DecoderModule, its SavedModel): a later export of the same weights in this process (the
# app exports each backend when it is first chosen) skips tracing; the two most recent bundles are kept
_TRACED: OrderedDict[tuple, tuple] = OrderedDict()
_TRACED_LOCK = threading.Lock()
_TRACED_KEEP = 4  # two bundles, each at any batch and at batch 1


def _traced(bundle, sources: dict, batch: int | None, progress):
    key = (*sorted(sources.items()), batch)  # the same weights and config, wherever the bundle lies: one graph
    with _TRACED_LOCK:
        if key in _TRACED:
            _TRACED.move_to_end(key)
            return _TRACED[key]
        from studio.runtimes.signatures import DecoderModule

        progress("Tracing encode and decode_step" + (f" at batch {batch}..." if batch else "..."))
        module = DecoderModule(bundle.build_model(), batch)
        folder = Path(tempfile.mkdtemp(prefix="studio-saved-model-"))
        atexit.register(shutil.rmtree, folder, True)
        module.save(folder)
        _TRACED[key] = (module, folder)
        while len(_TRACED) > _TRACED_KEEP:
            _, (_, old) = _TRACED.popitem(last=False)
            shutil.rmtree(old, ignore_errors=True)
        return module, folder


def _current_onnx_fp32(out: Path, files: dict, work: Path) -> tuple[Path, ...] | None:
    """Copies in `work` of the fp32 ONNX graphs already in `out`, if they are current (`files`:
    `_previous_entries`) and intact: an int8 export quantizes them instead of converting the model again (in
    `work`, since the quantizer writes beside its input)."""
    names = VARIANTS["onnx"].files
    if not all(name in files and sha256_of(out / name) == files[name].get("sha256") for name in names):
        return None
    copies = tuple(work / f".fp32.{name}" for name in names)
    for name, copy in zip(names, copies):
        shutil.copyfile(out / name, copy)
    return copies


def _convert(bundle, chosen, work: Path, sources: dict, progress, onnx_fp32=None) -> dict[str, dict]:
    """Write the files of the `chosen` variants into `work`; returns their manifest entries. `onnx_fp32`:
    current fp32 ONNX graphs to quantize from (when missing, they are converted here)."""
    written: dict[str, dict] = {}
    for v in chosen:
        if v.format == "tflite":
            from exporters import tflite as tflite_export

            name = v.files[0]
            _, saved_model = _traced(bundle, sources, v.batch, progress)
            progress(f"Converting {name} (TFLite, quantization: {v.quantization})...")
            content = tflite_export.convert(saved_model, v.quantization, rows=v.batch is None)
            extra = tflite_export.non_builtin_operators(content)
            if extra:
                raise StudioError(f"{name}: the graph needs non-builtin ops {extra}; a mobile app could not run it")
            (work / name).write_bytes(content)
            written[name] = {"format": "tflite", "quantization": v.quantization,
                             "operators": tflite_export.operators(content)}
        elif v.format == "onnx":
            from exporters import onnx as onnx_export

            if onnx_fp32 is None or v.quantization == "none":  # the int8 graphs are quantized from the fp32 ones
                module, _ = _traced(bundle, sources, None, progress)
                progress("Converting encode.onnx, decode_step.onnx and decode_rows.onnx (tf2onnx)...")
                onnx_fp32 = tuple(work / f".fp32.{name}.onnx" for name in ("encode", "decode_step", "decode_rows"))
                for function, path in zip((module.encode, module.decode_step, module.decode_rows), onnx_fp32):
                    onnx_export.convert(function, path)
            for base, name in zip(onnx_fp32, v.files):
                if v.quantization == "int8":
                    progress(f"Quantizing {name} (ONNX dynamic int8)...")
                    onnx_export.quantize_int8(base, work / name)
                else:
                    shutil.copyfile(base, work / name)
                written[name] = {"format": "onnx", "quantization": v.quantization, "opset": onnx_export.OPSET}
        elif v.format == "ctranslate2":
            from exporters import ctranslate2 as ct2_export

            folder = v.files[0].split("/")[0]
            progress(f"Converting {folder}/ (CTranslate2, quantization: {v.quantization})...")
            ct2_export.convert(bundle, work / folder, v.quantization)
            written[v.files[0]] = {"format": "ctranslate2", "quantization": v.quantization}
    return written


_EXPORT_LOCKS: dict[str, threading.Lock] = {}
_EXPORT_LOCKS_GUARD = threading.Lock()


def _export_lock(export_dir: Path) -> threading.Lock:
    with _EXPORT_LOCKS_GUARD:
        return _EXPORT_LOCKS.setdefault(str(Path(export_dir).resolve()), threading.Lock())


def ensure_exported(bundle, backends, export_dir: Path | None = None, progress=print) -> Path:
    """Build the files of `backends` that are missing or stale (one export at a time per folder; callers
    that asked meanwhile find them built); returns the export folder."""
    directory = Path(export_dir) if export_dir else export_dir_for(bundle.path)
    if not any(stale_reasons(bundle.path, backends, directory).values()):
        return directory
    with _export_lock(directory):  # another thread may have built them meanwhile: look again
        missing = {name: reason for name, reason in stale_reasons(bundle.path, backends, directory).items() if reason}
        if missing:
            first = next(iter(missing.values()))
            progress(f"{first}\nExporting {', '.join(missing)} now (once; this takes a little while)...")
            export_bundle(bundle.path, directory, list(missing), verify=False, progress=progress, golden=False)
    return directory


def _write_failure(error: BaseException) -> str | None:
    """The reason if `error` is a failed write (disk full, read-only, permission), else None."""
    if isinstance(error, OSError):
        return error.strerror or str(error)
    import tensorflow as tf

    if isinstance(error, (tf.errors.ResourceExhaustedError, tf.errors.PermissionDeniedError,
                          tf.errors.FailedPreconditionError, tf.errors.UnavailableError)):
        return str(error.message).rsplit(";", 1)[-1].strip() or type(error).__name__
    return None


def _write_manifest(out: Path, manifest: dict) -> None:
    atomic_write_bytes(out / MANIFEST, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
