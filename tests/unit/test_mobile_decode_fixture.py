"""The Android library's decode loop (mobile/android, transformerstudio.decode) is held to the app's ids by a generated
fixture (mobile/android/src/test/resources/decode/<bundle>.json, checked by DecodeFixtureTest on the JVM): each file
must be what mobile/scripts/decode-fixture.py writes now from the app's own code on the exported ONNX graphs."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "mobile" / "scripts" / "decode-fixture.py"


def fixture_script():
    spec = importlib.util.spec_from_file_location("decode_fixture", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unusable_export(bundle: str) -> str | None:
    """Why the bundle's ONNX export cannot be used here (absent or stale), or None."""
    pytest.importorskip("onnxruntime", reason="the fixture is ONNX Runtime's output: onnxruntime is not installed")
    from studio.bundle import load_bundle
    from studio.variants import export_dir_for, stale_reasons

    loaded = load_bundle(ROOT / "assets" / bundle)
    directory = export_dir_for(loaded.path)
    reason = stale_reasons(loaded, ["onnx"], directory)["onnx"]
    return f"the {bundle}'s ONNX export in {directory} cannot be used ({reason}): run `studio export assets/{bundle}`" \
        if reason else None


@pytest.mark.parametrize("bundle", ["translator", "chatbot"])
def test_the_mobile_decode_fixture_is_what_the_python_code_answers(bundle):
    reason = unusable_export(bundle)
    if reason:
        pytest.skip(reason)
    script = fixture_script()
    committed = json.loads((script.FIXTURES / f"{bundle}.json").read_text(encoding="utf-8"))
    assert committed == script.cases(bundle), (
        f"the {bundle}'s decoding changed (studio/generate, studio/runtimes or the export): run "
        f"`PYTHONPATH=. .venv/bin/python {SCRIPT.relative_to(ROOT)}`, port the change to "
        "mobile/android/src/main/kotlin/transformerstudio/decode and run `mvn test` in mobile/android")
