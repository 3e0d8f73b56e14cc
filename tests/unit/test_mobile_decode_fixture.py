"""The Android library's decode loop (mobile/android, transformerstudio.decode) is held to the app's ids by a generated
fixture (mobile/android/src/test/resources/decode/<bundle>.json, checked by DecodeFixtureTest on the JVM): each file
must be made by mobile/scripts/decode-fixture.py from the app's code and the ONNX graphs as they are now (the hash it
records, `identity`; regenerating all of it takes a minute)."""

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


def exported(bundle: str) -> None:
    """The bundle's ONNX graphs in its export folder: rebuilt from its graph pack when missing (seconds)."""
    pytest.importorskip("onnxruntime", reason="the fixture is ONNX Runtime's output: onnxruntime is not installed")
    from exporters import ensure_exported
    from studio.bundle import load_bundle

    ensure_exported(load_bundle(ROOT / "assets" / bundle), ["onnx"], progress=lambda message: None)


@pytest.mark.parametrize("bundle", ["translator", "chatbot"])
def test_the_mobile_decode_fixture_is_what_the_python_code_answers(bundle):
    exported(bundle)
    script = fixture_script()
    committed = json.loads((script.FIXTURES / f"{bundle}.json").read_text(encoding="utf-8"))
    assert committed["identity"] == script.identity(bundle), (
        f"the {bundle}'s decoding changed (studio/generate, studio/runtimes or the export): run "
        f"`PYTHONPATH=. .venv/bin/python {SCRIPT.relative_to(ROOT)}`, port the change to "
        "mobile/android/src/main/kotlin/transformerstudio/decode and run `mvn test` in mobile/android")
