"""Exported graphs shipped inside a bundle at almost no size: a *graph pack*.

An exported graph (`model.tflite`, `encode.onnx`…) is mostly the bundle's own weights, written as float32 (or
float16) arrays, some of them transposed. A pack keeps each exported file as a *template* — the file with those
weight regions zeroed, zlib-compressed (a few hundred KB for a 50 MB graph) — and, for every region, which
weight of `weights.npz` fills it and how. Rebuilding a file from its template and the bundle's weights takes
about a second, needs no TensorFlow and no converter, and is checked byte for byte against the sha256 the export
recorded: so the shipped models answer on the default backend at once on a fresh install, and any damage or
change of weights simply falls back to a normal export.

`pack(bundle, export_dir)` writes `BUNDLE/graphs/` from a finished export (`studio export BUNDLE --pack`);
`unpack(bundle, export_dir, backends)` rebuilds what it can into an export folder (`exporters.ensure_exported`
calls it before converting anything)."""

from __future__ import annotations

import hashlib
import json
import logging
import zlib
from pathlib import Path

import numpy as np

from studio.errors import BundleError
from studio.files import atomic_write_bytes
from studio.variants import (EXPORT_FORMAT, MANIFEST, VARIANTS, export_identity, identity_reason, read_manifest,
                             source_hashes)
from studio.weights import load_npz

log = logging.getLogger(__name__)

PACK_DIR = "graphs"
INDEX = "graphs.json"
PACK_FORMAT = "transformer-studio-graphs/1"
MIN_BYTES = 4096  # smaller weights stay in the template: zlib keeps them small, and short runs match by chance
MIN_DISTINCT = 64  # nor an array of a few values (a LayerNorm's ones and zeros would match anywhere)
LAYOUTS = ("float32", "float32.T", "float16", "float16.T")  # how a weight can be written into an exported file


def _size(array: np.ndarray, layout: str) -> int:
    return array.size * np.dtype(layout.partition(".")[0]).itemsize


def _laid_out(array: np.ndarray, layout: str) -> bytes:
    dtype, _, transposed = layout.partition(".")
    array = array.astype(dtype)
    return np.ascontiguousarray(array.T if transposed else array).tobytes()


def _candidates(weights: dict[str, np.ndarray]) -> list[tuple[str, str, bytes]]:
    """(weight name, layout, bytes) of every weight worth finding in an exported file."""
    found = []
    for name, array in weights.items():
        if array.size * 2 < MIN_BYTES or np.unique(array).size < MIN_DISTINCT:  # its float16 size
            continue
        for layout in LAYOUTS:
            if layout.endswith(".T") and array.ndim != 2:
                continue
            found.append((name, layout, _laid_out(array, layout)))
    return found


def _regions(data: bytes, candidates) -> list[tuple[int, str, str]]:
    """[(offset, weight, layout)] of every place a candidate's bytes stand in `data`, not overlapping."""
    regions, taken = [], []
    for name, layout, raw in sorted(candidates, key=lambda c: -len(c[2])):  # the largest first
        start = data.find(raw)
        while start != -1:
            end = start + len(raw)
            if not any(start < b and a < end for a, b in taken):
                regions.append((start, name, layout))
                taken.append((start, end))
            start = data.find(raw, end)
    return sorted(regions)


def pack(bundle, export_dir: Path, backends: list[str] | None = None) -> dict:
    """Write `BUNDLE/graphs/` for the exported files of `backends` (default: every exported one whose file the
    weights mostly fill: fp32 and float16 graphs) in `export_dir`; returns the index."""
    manifest = read_manifest(export_dir)
    if identity_reason(manifest.get("identity")):  # a pack holds the graphs this code makes, or none
        raise BundleError(Path(export_dir) / MANIFEST, identity_reason(manifest.get("identity")),
                          f"studio export {bundle.path}")
    listed = manifest["files"]
    names = backends or [v.name for v in VARIANTS.values() if v.exported and v.quantization in ("none", "float16")
                         and all(f in listed for f in v.files) and v.format != "ctranslate2"]
    out = Path(bundle.path) / PACK_DIR
    out.mkdir(exist_ok=True)
    weights = load_npz(Path(bundle.path) / "weights.npz")  # as the model holds them (int8 embeddings expanded)
    candidates = _candidates(weights)
    files = {}
    for file in dict.fromkeys(f for name in names for f in VARIANTS[name].files):
        data = (Path(export_dir) / file).read_bytes()
        if hashlib.sha256(data).hexdigest() != listed[file]["sha256"]:
            raise BundleError(Path(export_dir) / file, "differs from its manifest (modified since the export)",
                              f"studio export {bundle.path}")
        regions = _regions(data, candidates)
        template = bytearray(data)
        for offset, name, layout in regions:
            size = _size(weights[name], layout)
            template[offset:offset + size] = bytes(size)
        stored = f"{file.replace('/', '_')}.zlib"
        atomic_write_bytes(out / stored, zlib.compress(bytes(template), 6))
        files[file] = {"template": stored, "bytes": len(data), "sha256": listed[file]["sha256"],
                       "regions": [[offset, name, layout] for offset, name, layout in regions]}
        log.debug("%s: %d weight regions, %.1f of %.1f MB from the weights", file, len(regions),
                  sum(_size(weights[n], lay) for _, n, lay in regions) / 2**20,
                  len(data) / 2**20)
    kept = {key: value for key, value in manifest.items()
            if key not in ("files", "verification", "golden", "export_seconds", "source")}
    source = {key: value for key, value in manifest["source"].items() if key != "bundle"}  # no path of this machine
    index = {"format": PACK_FORMAT, "backends": names, "source": source, "files": files,
             "manifest": kept | {"source": source, "files": {f: listed[f] for f in files}}}
    atomic_write_bytes(out / INDEX, (json.dumps(index, indent=1, ensure_ascii=False) + "\n").encode())
    for old in set(out.glob("*.zlib")) - {out / entry["template"] for entry in files.values()}:
        old.unlink()  # a template of a file this pack no longer holds
    return index


def packed_backends(bundle) -> list[str]:
    """The backends this bundle's pack can rebuild (none without a pack, or one from other weights)."""
    index = _index(bundle)
    return list(index["backends"]) if index else []


def _index(bundle) -> dict | None:
    """The bundle's pack index when it can be used: readable, of this format, made from these weights for exports
    of the current format; else None."""
    path = Path(bundle.path) / PACK_DIR / INDEX
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
        if index["format"] != PACK_FORMAT or index["manifest"]["format"] != EXPORT_FORMAT:
            return None
        other_code = identity_reason(index["manifest"].get("identity"), converters=False)
        if other_code:  # graphs that other model or export code made
            log.debug("%s: not used (%s)", path, other_code)
            return None
        for name in index["backends"]:
            for file in VARIANTS[name].files:
                entry = index["files"][file]
                if not (isinstance(entry["bytes"], int) and isinstance(entry["sha256"], str)
                        and all(isinstance(o, int) and o >= 0 and isinstance(w, str) and l in LAYOUTS
                                for o, w, l in entry["regions"])):
                    raise ValueError(f"{file}: a malformed entry")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        log.debug("%s: not used (%s)", path, error)
        return None
    hashes = source_hashes(bundle)
    if any(index.get("source", {}).get(name) != digest for name, digest in hashes.items()):
        log.debug("%s: the graph pack was made from other weights; not used", path)
        return None
    return index


def unpack(bundle, export_dir: Path, backends: list[str]) -> list[str]:
    """Rebuild the files of `backends` the bundle's pack holds into `export_dir` and list them in its
    manifest; returns the backends rebuilt. A file that does not come out byte for byte as exported is not
    written (its backend is then exported as usual)."""
    index = _index(bundle)
    if index is None:
        return []
    wanted = [name for name in backends if name in index["backends"]]
    built, rebuilt = {}, []
    try:
        weights = load_npz(Path(bundle.path) / "weights.npz")
    except ValueError:
        return []
    for name in wanted:
        files = VARIANTS[name].files
        for file in files:
            if file not in built:
                built[file] = _rebuilt(bundle, index["files"][file], weights)
        if all(built[file] is not None for file in files):
            rebuilt.append(name)
    if not rebuilt:
        return []
    export_dir = Path(export_dir)
    export_dir.mkdir(parents=True, exist_ok=True)
    written = {file for name in rebuilt for file in VARIANTS[name].files}
    for file in written:
        (export_dir / file).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(export_dir / file, built[file])
    _merge_manifest(export_dir, index, written, Path(bundle.path))
    log.debug("rebuilt %s from the graph pack of %s", ", ".join(rebuilt), bundle.path)
    return rebuilt


def _rebuilt(bundle, entry: dict, weights) -> bytes | None:
    """One file from its template and the weights, or None (with a debug line) if it does not match."""
    try:
        data = bytearray(zlib.decompress((Path(bundle.path) / PACK_DIR / entry["template"]).read_bytes()))
        for offset, name, layout in entry["regions"]:
            raw = _laid_out(weights[name], layout)
            data[offset:offset + len(raw)] = raw
    except (OSError, zlib.error, KeyError, ValueError, TypeError) as error:
        log.debug("%s: the pack cannot rebuild it (%s)", entry.get("template"), error)
        return None
    if len(data) != entry["bytes"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        log.debug("%s: rebuilt, but not as exported (sha256 differs); exported instead", entry.get("template"))
        return None
    return bytes(data)


def _merge_manifest(export_dir: Path, index: dict, written: set[str], bundle_path: Path) -> None:
    """The export folder's manifest with the rebuilt files listed (kept entries of other files when it was made
    from these weights)."""
    try:
        manifest = read_manifest(export_dir)
        if manifest.get("format") != EXPORT_FORMAT or identity_reason(manifest.get("identity")) or any(
                manifest.get("source", {}).get(k) != v for k, v in index["source"].items()):
            raise ValueError("made from other weights, or by another version")
    except (BundleError, ValueError):  # missing, corrupted or stale: start from the pack's
        manifest = {key: value for key, value in index["manifest"].items() if key != "files"} | {"files": {}}
        # the pack's graphs were accepted by the code that made them (`_index`), rebuilt byte for byte: they stand
        # for what this code exports, whatever converters this computer has
        manifest["identity"] = export_identity()
    manifest["source"] = {**manifest.get("source", {}), "bundle": str(bundle_path)}
    manifest["files"] = {**manifest.get("files", {}), **{f: index["manifest"]["files"][f] for f in written}}
    atomic_write_bytes(Path(export_dir) / MANIFEST,
                       (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())
