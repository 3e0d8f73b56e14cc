"""The two registries: model formats (`studio.variants.MODEL_FORMATS`: each names its converter in `exporters` and
its runtime class in `studio.runtimes`, imported only when used) and document formats (`studio.formats`: one
record per format, from which the CLI's checks and the help texts are made). Read without importing TensorFlow."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from studio.formats import DOCUMENT_FORMATS, FORMATS, listed, same_format
from studio.variants import MODEL_FORMATS, VARIANTS, source_hashes

ROOT = Path(__file__).resolve().parents[2]


def definition(target: str) -> ast.AST | None:
    """The top-level class or function a "module:attribute" name stands for, read from its source file."""
    module, _, attribute = target.partition(":")
    path = ROOT.joinpath(*module.split("."))
    path = path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return next((node for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))
                 and node.name == attribute), None)


def test_every_format_names_a_converter_and_a_runtime_class_that_exist():
    from exporters import CONVERTERS
    from studio.runtimes import RUNTIMES, runtime_class

    assert set(CONVERTERS) == {name for name, fmt in MODEL_FORMATS.items() if fmt.exported}
    for name, converter in CONVERTERS.items():
        assert converter.startswith("exporters.") and isinstance(definition(converter), ast.FunctionDef), name
    assert all(runtime.startswith("studio.runtimes.") for runtime in RUNTIMES.values())
    for v in VARIANTS.values():
        assert v.format in MODEL_FORMATS, v.name
        assert v.exported == v.model_format.exported, v.name  # files to write <=> a converter writes them
        assert (runtime_class(v) is not None) == v.model_format.stepwise, v.name
        if v.serves:  # what the app and the CLI run has a runtime class, made by its `load` classmethod
            runtime = definition(runtime_class(v))
            assert isinstance(runtime, ast.ClassDef), v.name
            assert any(isinstance(node, ast.FunctionDef) and node.name == "load" for node in runtime.body), v.name
    assert runtime_class(VARIANTS["tf-naive"]) != runtime_class(VARIANTS["tf"])


def test_the_tables_import_no_converter_runtime_or_reader():
    code = ("import sys, studio.variants, studio.formats; print(sorted(m for m in sys.modules if m.startswith("
            "('exporters', 'studio.runtimes', 'tensorflow', 'onnxruntime', 'studio.formats.'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['studio.formats.base']"


def test_a_loaded_bundle_is_hashed_once_a_folder_each_time(tmp_path, monkeypatch):
    import studio.variants as exports

    for name in ("config.json", "weights.npz"):
        (tmp_path / name).write_bytes(name.encode())
    hashed = []
    real = exports.sha256_of
    monkeypatch.setattr(exports, "sha256_of", lambda path: hashed.append(Path(path).name) or real(path))
    class Loaded:  # a Bundle, as far as hashing goes
        path = tmp_path

    bundle = Loaded()
    first = source_hashes(bundle)
    assert source_hashes(bundle) == first == source_hashes(tmp_path)
    assert sorted(hashed) == ["config.json", "config.json", "weights.npz", "weights.npz"]
    source_hashes(Loaded())  # another load of the same files
    assert len(hashed) == 6


def test_the_document_formats_make_the_help_texts_and_the_lists():
    assert ", ".join(FORMATS) == ".txt, .srt, .md, .html, .htm, .docx"
    assert listed(how=True) == ".txt (line by line), .srt, .md, .html, .docx (structure kept)"
    assert listed() == ".txt, .srt, .md, .html, .docx"
    assert listed(layout=True, last=" or ") == ".txt (one paragraph per line), .srt, .md, .html or .docx"
    assert FORMATS[".htm"] is FORMATS[".html"] and same_format(".HTM") == ".html" and same_format(".jsonl") == ".jsonl"
    assert [f.suffix for f in DOCUMENT_FORMATS if f.binary] == [".docx"]
    assert all(callable(f.load_reader()) for f in DOCUMENT_FORMATS)


def test_the_cli_checks_go_by_the_document_formats(tmp_path, monkeypatch):
    from studio.cli import text as cli
    from studio.errors import StudioError

    monkeypatch.setattr(sys, "stdout", SimpleNamespace(isatty=lambda: True))
    with pytest.raises(StudioError, match="a Word document is binary; give --out FILE.docx"):
        cli._check_output(tmp_path / "a.docx", Path("-"), json_lines=False)
    cli._check_output(tmp_path / "a.md", Path("-"), json_lines=False)  # text goes to a terminal
    cli._check_output(tmp_path / "a.htm", tmp_path / "b.html", json_lines=False)  # one format, two suffixes
    cli._check_output(tmp_path / "a.html", tmp_path / "b.HTM", json_lines=False)
    with pytest.raises(StudioError, match="give a name ending in .htm"):
        cli._check_output(tmp_path / "a.htm", tmp_path / "b.md", json_lines=False)


def test_a_shipped_models_exports_are_shared_by_every_copy_of_it(tmp_path, monkeypatch):
    """The README's two install modes (an installed copy in site-packages, the checkout's assets/) find one
    export of a shipped model in the user cache; another bundle keeps its exports beside it."""
    import shutil

    from studio import variants

    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    installed = tmp_path / "site-packages" / "studio_assets"
    (installed / "chatbot").mkdir(parents=True)
    shutil.copy(ROOT / "assets" / "chatbot" / "checksums.json", installed / "chatbot")
    checkout = variants.export_dir_for(ROOT / "assets" / "chatbot")
    monkeypatch.setenv("STUDIO_ASSETS", str(installed))
    assert variants.export_dir_for(installed / "chatbot") == checkout
    assert checkout.is_relative_to(tmp_path / "cache") and "site-packages" not in str(checkout)
    (installed / "chatbot" / "checksums.json").write_text("{}")  # other weights: another export
    assert variants.export_dir_for(installed / "chatbot") != checkout
    (tmp_path / "runs" / "mine").mkdir(parents=True)
    assert variants.export_dir_for(tmp_path / "runs" / "mine") == tmp_path / "runs" / "mine" / "exports"
