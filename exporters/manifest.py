"""`manifest.json` beside the exported graphs: what a runtime (or a mobile app) needs to call them, and
what proves they are current: sha256 of every file, and of the bundle weights they were made from."""

from __future__ import annotations

import json
from pathlib import Path

from studio.data.sources import sha256_of
from studio.errors import BundleError

MANIFEST = "manifest.json"


def library_versions() -> dict[str, str]:
    versions = {}
    for module, name in (("tensorflow", "tensorflow"), ("keras", "keras"), ("tf2onnx", "tf2onnx"),
                         ("onnxruntime", "onnxruntime"), ("onnx", "onnx"), ("ai_edge_litert", "ai-edge-litert")):
        try:
            from importlib.metadata import version

            versions[name] = version(name)
        except Exception:  # not installed
            versions[name] = "not installed"
    return versions


def read_manifest(export_dir: Path) -> dict:
    path = Path(export_dir) / MANIFEST
    if not path.is_file():
        raise BundleError(path, "missing: this bundle has not been exported",
                          f"studio export {Path(export_dir).parent}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise BundleError(path, f"corrupted ({error})", f"studio export {Path(export_dir).parent}") from None


def stale_reason(bundle_dir: Path, export_dir: Path, files: list[str]) -> str | None:
    """Why the exported `files` cannot be used as they are, or None if they match the bundle."""
    try:
        manifest = read_manifest(export_dir)
    except BundleError as error:
        return str(error).splitlines()[0]
    source = manifest.get("source", {})
    for name in ("weights.npz", "config.json"):
        if source.get(name) != sha256_of(Path(bundle_dir) / name):
            return f"{name} changed since the export (the export was made from other weights)"
    for name in files:
        path = Path(export_dir) / name
        if name not in manifest.get("files", {}):
            return f"{name} was not exported"
        if not path.is_file():
            return f"{path} is missing"
        if sha256_of(path) != manifest["files"][name]["sha256"]:
            return f"{path} is corrupted or was modified (its sha256 differs from the manifest)"
    return None
