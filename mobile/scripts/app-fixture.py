"""Writes mobile/android/src/test/resources/app-<task>.json: the app's outputs (`exporters.app_golden`: `studio
translate` / `studio chat` with their default decoding, protection on) on the shipped bundles' ONNX graphs, for the
task's golden texts — what the Android library's full pipeline must give on the JVM (AppOutputsTest). Rerun it after
changing the models, the app's text or decoding code, or the golden texts:

    .venv/bin/python mobile/scripts/app-fixture.py

Each file records a hash of what made it (`identity`); tests/system/test_android_library.py fails while a committed
file's is not what the code and models make now.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "mobile" / "android" / "src" / "test" / "resources"
VARIANT = "onnx"  # what ONNX Runtime Java runs on the JVM: the fp32 encode/decode_step graphs


def fixture(task: str) -> Path:
    return RESOURCES / f"app-{task}.json"


def bundles() -> dict[str, Path]:
    return {task: ROOT / "assets" / task for task in ("translator", "chatbot")}


def identity_now(bundle_dir: Path) -> str:
    """The identity the fixture of `bundle_dir` must record: its graphs', config's, tokenizer's and code's."""
    from exporters import ensure_exported
    from exporters.package import app_outputs_identity
    from studio.bundle import load_bundle

    bundle = load_bundle(bundle_dir)
    ensure_exported(bundle, ["tflite", VARIANT], progress=lambda message: None)
    return app_outputs_identity(bundle, VARIANT, progress=lambda message: None)


def write(task: str, bundle_dir: Path) -> None:
    from exporters import ensure_exported
    from exporters.package import package_app_outputs
    from studio.bundle import load_bundle

    bundle = load_bundle(bundle_dir)
    ensure_exported(bundle, ["tflite", VARIANT])  # from the bundle's graph pack: seconds
    fixture(task).write_bytes(package_app_outputs(bundle, "android", VARIANT))
    print(f"wrote {fixture(task)}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    for name, folder in bundles().items():
        write(name, folder)
