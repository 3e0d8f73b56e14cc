"""Faults: every file of a bundle and of its exports deleted, truncated or overwritten in turn; a full or
read-only disk during export (training killed with SIGKILL: tests/system/test_processes.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import FAULTS, damage, tmpfs

from studio.bundle import load_bundle
from studio.errors import BundleError, StudioError
from studio.runtimes import ExportError, load_runtime
from studio.variants import VARIANTS

REQUIRED = ["config.json", "weights.npz", "checksums.json", "tokenizer/tokenizer.json", "tokenizer/shared.spm.model"]


def test_the_bundle_has_the_files_this_suite_damages(tiny_bundle):
    present = {str(p.relative_to(tiny_bundle)) for p in Path(tiny_bundle).rglob("*") if p.is_file()}
    assert set(REQUIRED) <= present


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", REQUIRED)
def test_a_damaged_bundle_file_is_named_with_the_rebuild_command(bundle_copy, name, fault):
    damage(bundle_copy / name, fault)
    with pytest.raises(BundleError) as error:
        load_bundle(bundle_copy)
    message = str(error.value)
    assert str(bundle_copy / name) in message or (name.startswith("tokenizer/") and "tokenizer" in message), message
    assert "studio train chatbot" in message or "studio train chatbot|translator" in message


@pytest.mark.parametrize("fault", FAULTS)
def test_damaged_metrics_or_model_card_do_not_stop_the_model(bundle_copy, fault):
    damage(bundle_copy / "metrics.json", fault)
    if (bundle_copy / "MODEL_CARD.md").exists():
        damage(bundle_copy / "MODEL_CARD.md", fault)
    bundle = load_bundle(bundle_copy)
    assert bundle.build_model() is not None
    if fault != "delete":
        assert any("metrics.json" in warning for warning in bundle.warnings)


# ---------------------------------------------------------------- exports

EXPORT_FILES = {file: name for name in ("tflite", "onnx") for file in VARIANTS[name].files} | {"manifest.json": "tflite"}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("name", list(EXPORT_FILES))
def test_a_damaged_export_file_is_named_with_the_export_command(exported_copy, name, fault):
    damage(exported_copy / "exports" / name, fault)
    with pytest.raises(ExportError) as error:
        load_runtime(load_bundle(exported_copy), EXPORT_FILES[name])
    message = str(error.value)
    assert name in message and f"studio export {exported_copy}" in message, message


def test_a_damaged_export_is_rebuilt_on_demand_and_then_agrees_with_tf(exported_copy):
    from studio.inference import TextGenerator
    from studio.serving import ServedModel

    damage(exported_copy / "exports" / "decode_step.onnx", "truncate")
    bundle = load_bundle(exported_copy)
    messages = []
    generator = ServedModel(bundle, progress=messages.append).generator("onnx")
    assert any("decode_step.onnx" in m for m in messages)
    reference = TextGenerator.open(bundle, "tf")
    for prompt in ("나는 커피를 좋아해?", "너는 영화를 봤어?"):
        assert generator(prompt) == reference(prompt)


# ---------------------------------------------------------------- disk full / read-only

@pytest.fixture
def small_disk(tmp_path):
    """A real 300 KB filesystem: room for the first graph of an export (~260 KB), not the second."""
    yield from tmpfs(tmp_path / "full", "size=300k")


@pytest.fixture
def read_only_disk(tmp_path):
    yield from tmpfs(tmp_path / "ro", "size=1m,ro")


def test_a_full_disk_during_export_gives_a_clear_error_and_leaves_no_partial_file(exported, small_disk):
    from exporters import export_bundle

    out = small_disk / "exports"
    with pytest.raises(StudioError, match=r"No space left on device|disk is full") as error:
        export_bundle(exported[0], out=out, verify=False, progress=lambda _: None)
    assert "Traceback" not in str(error.value)
    left = sorted(p.name for p in out.rglob("*")) if out.exists() else []
    assert left == [] or set(left) <= {"model.tflite", "model.float16.tflite", "model.int8.tflite"}, left
    for name in left:  # anything moved into place is complete: it was renamed only after being written
        assert (out / name).stat().st_size > 1000
    assert not (out / "manifest.json").exists()  # so no runtime ever takes the folder for a finished export
    with pytest.raises(ExportError, match="manifest.json: missing"):
        load_runtime(load_bundle(exported[0]), "tflite", export_dir=out)


def test_a_read_only_output_folder_gives_a_clear_error(exported, read_only_disk):
    from exporters import export_bundle

    with pytest.raises(StudioError, match=r"cannot write the export here \(Read-only file system\); pass --out"):
        export_bundle(exported[0], out=read_only_disk / "exports", verify=False, progress=lambda _: None)


def test_bench_on_a_read_only_bundle_builds_its_models_in_the_user_cache(exported, tmp_path, monkeypatch):
    """The tiny bundle's files, copied from `exported` without its exports: the test runs on that fixture's
    worker, where exporting reuses the graphs already traced from these weights."""
    from studio.latency.bench import run_benchmark

    disk = next(tmpfs(tmp_path / "installed", "size=8m"))
    shutil.copytree(exported[0], disk / "bundle", ignore=shutil.ignore_patterns("checkpoints", "exports"))
    assert subprocess.run(["mount", "-o", "remount,ro", str(disk)], capture_output=True).returncode == 0
    try:
        monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
        rows = run_benchmark(load_bundle(disk / "bundle"), ["tflite", "ctranslate2"], lengths=(2,), repeats=1,
                             threads=1, progress=lambda message: None)
        assert {r["runtime"]: r["outputs_match_tf"] for r in rows} == {"tflite": 1.0, "ctranslate2": 1.0}
        assert list((tmp_path / "cache" / "exports").glob("bundle-*/ctranslate2/model.bin"))
        assert not (disk / "bundle" / "exports").exists()
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
