"""Turn a trained bundle into graphs that decode one token per call with a key/value cache:

    model.tflite / model.float16.tflite / model.int8.tflite   signatures `encode` and `decode_step`
    encode.onnx + decode_step.onnx (and *.int8.onnx)            one ONNX graph per signature
    manifest.json                                               names, shapes, ids, checksums, versions, parity

`export_bundle` writes every file under a temporary name and renames it into place, and writes the
manifest last: an interrupted export never leaves a file that looks current.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from exporters.manifest import MANIFEST, library_versions
from exporters.signatures import input_names
from studio.errors import StudioError

TFLITE_FILES = {"none": "model.tflite", "float16": "model.float16.tflite", "dynamic-int8": "model.int8.tflite"}
ONNX_FILES = {"none": ("encode.onnx", "decode_step.onnx"), "int8": ("encode.int8.onnx", "decode_step.int8.onnx")}
BACKEND_OF = {"model.tflite": "tflite", "model.float16.tflite": "tflite-float16", "model.int8.tflite": "tflite-int8",
              "encode.onnx": "onnx", "encode.int8.onnx": "onnx-int8"}


def _signature_table(config) -> dict:
    names = input_names(config.decoder_depth)
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
    return {"encode": {"inputs": {"source_ids": {"shape": [B, S], "dtype": "int32"}}, "outputs": encode_outputs},
            "decode_step": {"inputs": step_inputs, "outputs": step_outputs}}


def _move_into_place(temp: Path, target: Path) -> None:
    os.replace(temp, target)


def export_bundle(bundle_path, out=None, tflite=("none", "float16", "dynamic-int8"), onnx=("none", "int8"),
                  verify: bool = True, progress=print) -> dict:
    """Export `bundle_path`; returns the manifest. `progress(message)` reports each stage."""
    from studio.bundle import load_bundle
    from studio.data.sources import sha256_of
    from studio.runtimes import export_dir_for

    started = time.monotonic()
    bundle = load_bundle(Path(bundle_path))
    out = Path(out) if out else export_dir_for(bundle.path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".export-", dir=out))
    except OSError as error:
        raise StudioError(f"{out}: cannot write the export here ({error.strerror or error}); pass --out DIR") from None
    files: dict[str, dict] = {}
    try:
        from exporters import onnx as onnx_export
        from exporters import tflite as tflite_export
        from exporters.signatures import DecoderModule

        progress("Tracing encode and decode_step...")
        module = DecoderModule(bundle.build_model())
        module.save(work / "saved_model")
        for variant in tflite:
            name = TFLITE_FILES[variant]
            progress(f"Converting {name} (TFLite, quantization: {variant})...")
            content = tflite_export.convert(work / "saved_model", variant)
            extra = tflite_export.non_builtin_operators(content)
            if extra:
                raise StudioError(f"{name}: the graph needs non-builtin ops {extra}; a mobile app could not run it")
            (work / name).write_bytes(content)
            files[name] = {"format": "tflite", "quantization": variant, "operators": tflite_export.operators(content)}
        if onnx:
            progress("Converting encode.onnx and decode_step.onnx (tf2onnx)...")
            onnx_export.convert(module.encode, work / ONNX_FILES["none"][0])
            onnx_export.convert(module.decode_step, work / ONNX_FILES["none"][1])
            for variant in onnx:
                for base, name in zip(ONNX_FILES["none"], ONNX_FILES[variant]):
                    if variant == "int8":
                        progress(f"Quantizing {name} (ONNX dynamic int8)...")
                        onnx_export.quantize_int8(work / base, work / name)
                    files[name] = {"format": "onnx", "quantization": variant, "opset": onnx_export.OPSET}
        for name, entry in files.items():
            entry["bytes"] = (work / name).stat().st_size
            entry["sha256"] = sha256_of(work / name)
        for name in files:
            _move_into_place(work / name, out / name)
    except Exception as error:  # noqa: BLE001 - TensorFlow reports a full disk as its own error type
        reason = _write_failure(error)
        if reason is None:
            raise
        raise StudioError(f"{out}: export failed while writing ({reason}); no incomplete file was left in place. "
                          "Free some space or pass --out DIR") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)

    config = bundle.config.model
    manifest = {
        "format": "transformer-studio-export/1",
        "task": bundle.config.task.task,
        "signatures": _signature_table(config),
        "special_ids": {"pad": config.pad_id, "bos": config.bos_id, "eos": config.eos_id},
        "max_source_len": config.max_source_len,
        "max_target_len": config.max_target_len,
        "vocab_size": config.tgt_vocab_size,
        "tokenizer": {"kind": bundle.config.tokenizer.kind, "shared": bundle.tokenizers.shared,
                      "files": sorted(str(p.relative_to(bundle.path)) for p in (bundle.path / "tokenizer").iterdir())},
        "source": {"bundle": str(bundle.path), "weights.npz": sha256_of(bundle.path / "weights.npz"),
                   "config.json": sha256_of(bundle.path / "config.json")},
        "files": files,
        "versions": library_versions(),
        "export_seconds": round(time.monotonic() - started, 1),
    }
    _write_manifest(out, manifest)
    if verify:
        progress("Verifying against TensorFlow...")
        from exporters.verify import verify_exports

        manifest["verification"] = verify_exports(bundle, out)
        _write_manifest(out, manifest)
    progress(f"Exported to {out} in {time.monotonic() - started:.0f}s")
    return manifest


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
    from studio.weights import atomic_write_bytes

    atomic_write_bytes(out / MANIFEST, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
