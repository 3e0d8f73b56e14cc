"""Every way to run a bundle, in one table, the folder its exported files live in, and the names of the
tensors their graphs take and give (`input_names`). Nothing here imports TensorFlow.

A *variant* is a backend a user can name (`--backend tflite-int8`, `studio bench --backends ctranslate2`):
its format, its quantization, and the files an export writes for it. The runtimes (`studio.runtimes`),
the converters (`exporters`), the CLI's choices and help, the benchmark and the tests all read this table.
A variant's *format* (`MODEL_FORMATS`: tf, tflite, onnx, ctranslate2) says whether its files are exported and run
step by step; the converters (`exporters.CONVERTERS`) and runtime classes (`studio.runtimes.RUNTIMES`) are named as
"module:attribute" strings that `resolve` imports only when one is used: this module stays cheap to import and names
no module of another layer. A new backend is one `ModelFormat` row, its `Variant` rows, a converter module in
`exporters/` with its `CONVERTERS` entry and a runtime module in `studio/runtimes/` with its `RUNTIMES` entry.

Exported files live in `<bundle>/exports`, or in the user cache when the bundle is read-only (a
pip-installed bundle). `manifest.json` beside them records each file's sha256 and the sha256 of the
bundle files it was made from and the identity of the code that traced and converted it (`export_identity`), so a
stale or damaged file, or one another version of the model code made, is never used (`stale_reasons`).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

from studio import paths
from studio.bundle import default_assets_dir
from studio.errors import BundleError
from studio.files import sha256_of

MANIFEST = "manifest.json"
# what the exported graphs hold; an export of another format is rebuilt (2: decode_rows, a position per row)
EXPORT_FORMAT = "transformer-studio-export/3"  # 3: dynamic source length
SOURCE_FILES = ("weights.npz", "config.json")  # what an export is made from
# the code an exported graph is traced and converted by (relative to the folder holding `studio` and `exporters`):
# a change to any of it, or another minor version of a converter, makes every export and graph pack stale
GRAPH_CODE = ("studio/model", "studio/runtimes/signatures.py", "studio/runtimes/graph_state.py",
              "exporters/tflite.py", "exporters/onnx.py")
# keras builds the traced layers; onnxruntime quantizes the int8 graphs
CONVERTERS = ("tensorflow", "keras", "tf2onnx", "onnx", "onnxruntime")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def export_identity() -> dict:
    """What an export's graphs depend on besides the weights: {"code": a hash of `GRAPH_CODE`'s files,
    "converters": {package: "major.minor"}}. Compared by `stale_reasons` and the graph packs; computed once."""
    with _IDENTITY_GUARD:
        if not _IDENTITY:
            _IDENTITY.update(code=_code_hash(), converters=_converter_versions())
        return dict(_IDENTITY)


_IDENTITY: dict = {}
_IDENTITY_GUARD = threading.Lock()


def _code_hash() -> str:
    """The sha256 of `GRAPH_CODE`'s files, named as listed there (the same in a checkout and an installed copy)."""
    digest = hashlib.sha256()
    for entry in GRAPH_CODE:
        path = PACKAGE_ROOT / entry
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            name = Path(entry) / file.relative_to(path) if path.is_dir() else Path(entry)
            digest.update(name.as_posix().encode() + b"\0" + file.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:16]


def _converter_versions() -> dict[str, str]:
    from importlib import metadata

    versions = {}
    for name in CONVERTERS:
        try:
            versions[name] = ".".join(metadata.version(name).split(".")[:2])
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def identity_reason(recorded: dict | None, converters: bool = True) -> str | None:
    """Why graphs recorded with `recorded` (a manifest's "identity") were made by other code (or, with `converters`,
    other converter versions); None when they match `export_identity()`. A graph pack is judged by the code alone:
    its files are rebuilt byte for byte as exported, whatever converters this computer has."""
    current = export_identity()
    if not isinstance(recorded, dict) or "code" not in recorded:
        return "the export records no code identity (made by an older version)"
    if recorded.get("code") != current["code"]:
        return "the model or export code changed since the export (its graphs would differ)"
    made_by = recorded.get("converters") if isinstance(recorded.get("converters"), dict) else {}
    changed = [f"{name} {made_by.get(name)} -> {version}" for name, version in current["converters"].items()
               if converters and made_by.get(name) != version]
    return f"the converters changed since the export ({', '.join(changed)})" if changed else None


def input_names(num_layers: int) -> dict[str, list[str]]:
    """The tensor names of the exported signatures (`studio.runtimes.signatures`) for `num_layers` decoder layers."""
    caches = [f"cache_{kv}_{i}" for i in range(num_layers) for kv in ("k", "v")]
    cross = [f"cross_{kv}_{i}" for i in range(num_layers) for kv in ("k", "v")]
    return {"encode": ["source_ids"],
            "decode_step": ["tokens", "position"] + caches + cross + ["source_mask"],
            "encode_outputs": ["source_mask"] + cross,
            "decode_step_outputs": ["logits"] + [f"new_{name}" for name in caches]}


@dataclass(frozen=True)
class ModelFormat:
    """What the variants of one format are: exported or not, run step by step or not. The code that writes and
    runs them names itself, each in its own layer: `exporters.CONVERTERS` (the converter of each exported format)
    and `studio.runtimes.RUNTIMES` (the runtime class of each format or variant); this table names neither."""
    name: str
    exported: bool = False  # False: nothing to export (the Keras model itself)
    stepwise: bool = True  # False: not run step by step here (CTranslate2 decodes whole sequences)
    description: str = ""


MODEL_FORMATS: dict[str, ModelFormat] = {f.name: f for f in (
    ModelFormat("tf", description="the Keras model, run by TensorFlow"),
    ModelFormat("tflite", exported=True, description="LiteRT"),
    ModelFormat("onnx", exported=True, description="ONNX Runtime"),
    ModelFormat("ctranslate2", exported=True, stepwise=False,
                description="CTranslate2, whose engine decodes whole sequences: `studio bench` runs it "
                            "(`studio.latency.ctranslate2_model`)"),
)}


def resolve(target: str):
    """The object a "module:attribute" name (`MODEL_FORMATS`, `Variant.runtime`) stands for, imported now."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Variant:
    name: str  # the backend name users type
    format: str  # a key of MODEL_FORMATS: tf, tflite, onnx, ctranslate2
    quantization: str  # the converter's setting: none, float16, dynamic-int8, int8
    label: str  # how tables show it: cached, naive, fp32, float16, dynamic-int8, int8
    files: tuple[str, ...] = ()  # written by an export, relative to the export folder; () = the Keras model
    serves: bool = True  # False: not served by the app/CLI (`studio bench` measures it; `studio web` ships it)
    description: str = ""
    batch: int | None = None  # a graph traced with this fixed batch size (None: any batch)

    @property
    def exported(self) -> bool:
        return bool(self.files)

    @property
    def model_format(self) -> ModelFormat:
        return MODEL_FORMATS[self.format]


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("tf", "tf", "none", "cached", description="the Keras model, cached decoder"),
    Variant("tf-naive", "tf", "none", "naive", description="the tutorials' loop that re-runs the model each step"),
    Variant("tflite", "tflite", "none", "fp32", ("model.tflite",), description="LiteRT"),
    Variant("tflite-float16", "tflite", "float16", "float16", ("model.float16.tflite",),
            description="LiteRT, float16 weights"),
    Variant("tflite-int8", "tflite", "dynamic-int8", "dynamic-int8", ("model.int8.tflite",),
            description="LiteRT, int8 weights"),
    Variant("onnx", "onnx", "none", "fp32", ("encode.onnx", "decode_step.onnx", "decode_rows.onnx"),
            description="ONNX Runtime"),
    Variant("onnx-int8", "onnx", "int8", "int8", ("encode.int8.onnx", "decode_step.int8.onnx", "decode_rows.int8.onnx"),
            description="ONNX Runtime, dynamic int8"),
    # LiteRT.js (and the simplest mobile code) need static shapes: the same graphs traced at batch 1
    Variant("tflite-b1", "tflite", "none", "fp32 b1", ("model.b1.tflite",), serves=False, batch=1,
            description="LiteRT, batch 1, static shapes (web page, mobile)"),
    Variant("tflite-b1-float16", "tflite", "float16", "float16 b1", ("model.b1.float16.tflite",), serves=False,
            batch=1, description="LiteRT, batch 1, float16 weights (the web page's default)"),
    Variant("tflite-b1-int8", "tflite", "dynamic-int8", "dynamic-int8 b1", ("model.b1.int8.tflite",), serves=False,
            batch=1, description="LiteRT, batch 1, int8 weights"),
    Variant("ctranslate2", "ctranslate2", "none", "fp32", ("ctranslate2/model.bin",), serves=False,
            description="CTranslate2, for comparison"),
    Variant("ctranslate2-int8", "ctranslate2", "int8", "int8", ("ctranslate2-int8/model.bin",), serves=False,
            description="CTranslate2 int8, for comparison"),
)}
DEFAULT_BACKEND = "tflite"  # what the app, `studio chat` and `studio translate` run when not told otherwise
BACKENDS = [v.name for v in VARIANTS.values() if v.serves]  # what the app, chat, translate and eval can run
EXPORTED_BACKENDS = [v.name for v in VARIANTS.values() if v.serves and v.exported]  # what `studio export` builds


def variant(name: str, serving: bool = True) -> Variant:
    """The variant called `name`; unknown names (or, with serving=True, bench-only ones) raise ValueError."""
    known = BACKENDS if serving else list(VARIANTS)
    if name not in known:
        raise ValueError(f"unknown backend {str(name)[:40]!r}; choose one of {', '.join(known)}")
    return VARIANTS[name]


def backends_help(serving: bool = True) -> str:
    return ", ".join(f"{v.name} ({v.description})" for v in VARIANTS.values() if v.serves or not serving)


def export_dir_for(bundle_path: Path) -> Path:
    """Where a bundle's exports live. A shipped bundle's (in `assets/`, or the installed `studio_assets`) in the
    user cache, keyed by its content: a checkout and an installed copy of the same model share one export,
    and nothing is written inside the installed package. Another bundle's in `<bundle>/exports`, or in the user
    cache keyed by its path when the bundle is read-only."""
    bundle_path = Path(bundle_path).resolve()
    if bundle_path.parent == default_assets_dir().resolve():
        return paths.cache_dir() / "exports" / f"{bundle_path.name}-{_content_key(bundle_path)}"
    local = bundle_path / "exports"
    if local.is_dir() and os.access(local, os.W_OK) or os.access(bundle_path, os.W_OK):
        return local
    key = hashlib.sha256(str(bundle_path).encode()).hexdigest()[:16]
    return paths.cache_dir() / "exports" / f"{bundle_path.name}-{key}"


def _content_key(bundle_path: Path) -> str:
    """16 hex digits that change when the bundle's weights, config or tokenizer do (its checksums.json)."""
    try:
        content = (bundle_path / "checksums.json").read_bytes()
    except OSError:
        content = "".join(source_hashes(bundle_path).values()).encode()
    return hashlib.sha256(content).hexdigest()[:16]


def read_manifest(export_dir: Path) -> dict:
    path = Path(export_dir) / MANIFEST
    if not path.is_file():
        raise BundleError(path, "missing: this bundle has not been exported",
                          f"studio export {Path(export_dir).parent}")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
        return manifest
    except ValueError as error:
        raise BundleError(path, f"corrupted ({error})", f"studio export {Path(export_dir).parent}") from None


# id(bundle) -> (a weak reference to it, its source_hashes): a loaded bundle's weights are hashed once
_HASHED: dict[int, tuple[weakref.ref, dict[str, str]]] = {}
_HASHED_GUARD = threading.Lock()


def _folder(bundle) -> Path:
    return Path(bundle) if isinstance(bundle, (str, os.PathLike)) else Path(bundle.path)


def source_hashes(bundle) -> dict[str, str]:
    """The sha256 of the files an export is made from (`SOURCE_FILES`). `bundle`: a folder, hashed now, or a
    loaded `Bundle`, hashed once: it stands for the files it was loaded from (`ServedModel.shared` loads a bundle
    again when its files change), so whether its exports are current is decided once per load."""
    if isinstance(bundle, (str, os.PathLike)):
        return {name: sha256_of(Path(bundle) / name) for name in SOURCE_FILES}
    key = id(bundle)
    with _HASHED_GUARD:
        entry = _HASHED.get(key)
        if entry is not None and entry[0]() is bundle:
            return dict(entry[1])
    hashes = source_hashes(_folder(bundle))
    try:
        reference = weakref.ref(bundle, lambda _, key=key: _HASHED.pop(key, None))
    except TypeError:  # an object without weak references: hashed each time
        return hashes
    with _HASHED_GUARD:
        _HASHED[key] = (reference, hashes)
    return dict(hashes)


def stale_reasons(bundle, backends, export_dir: Path | None = None) -> dict[str, str | None]:
    """{backend: why its exported files cannot be used as they are, or None if they match the bundle}. The
    manifest is read and the bundle's weights hashed once for all of them (`bundle`: a loaded Bundle, whose
    weights are hashed once per load, or a bundle folder: `source_hashes`). Keras backends are always None."""
    directory = Path(export_dir) if export_dir else export_dir_for(_folder(bundle))
    exported = [name for name in backends if VARIANTS[name].exported]
    reasons: dict[str, str | None] = {name: None for name in backends}
    if not exported:
        return reasons
    try:
        manifest = read_manifest(directory)
    except BundleError as error:
        return reasons | {name: str(error).splitlines()[0] for name in exported}
    if manifest.get("format") != EXPORT_FORMAT:
        return reasons | {n: f"the export was made by an older version ({manifest.get('format')}, not "
                             f"{EXPORT_FORMAT})" for n in exported}
    other_code = identity_reason(manifest.get("identity"))
    if other_code:
        return reasons | {n: other_code for n in exported}
    source = manifest.get("source", {})
    for name, digest in source_hashes(bundle).items():
        if source.get(name) != digest:
            return reasons | {n: f"{name} changed since the export (the export was made from other weights)"
                              for n in exported}
    listed = manifest.get("files", {})
    for backend in exported:
        for name in VARIANTS[backend].files:
            path = directory / name
            if name not in listed:
                reasons[backend] = f"{name} was not exported"
            elif not path.is_file():
                reasons[backend] = f"{path} is missing"
            elif sha256_of(path) != listed[name]["sha256"]:
                reasons[backend] = f"{path} is corrupted or was modified (its sha256 differs from the manifest)"
            if reasons[backend]:
                break
    return reasons


def usable_backends(bundle, export_dir: Path | None = None, serving: bool = True) -> list[str]:
    """The backends that can run now: the Keras ones, and exported ones whose files are current (`bundle`: a
    loaded Bundle or a bundle folder, as in `stale_reasons`)."""
    names = [v.name for v in VARIANTS.values() if v.serves or not serving]
    return [name for name, reason in stale_reasons(bundle, names, export_dir).items() if reason is None]
