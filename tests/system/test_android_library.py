"""The Android library (mobile/android/) on the JVM: its JUnit tests (`mvn -B -q test`) hold the pure-Kotlin
SentencePiece tokenizer to Python's ids and decoding on every line of the generated fixture, with the shipped
bundles' tokenizers read from assets/, and its text pipeline and protection to Python's answers (the web page's
fixtures and its own). Skipped with a message when Java or Maven is missing. The app's outputs the library must
give (mobile/android/src/test/resources/app-*.json) are checked to be what the models and the code make now."""

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ANDROID = Path(__file__).resolve().parents[2] / "mobile" / "android"
FIXTURE = ANDROID / "src" / "test" / "resources" / "tokenizer-cases.json"
JAVA, MAVEN = shutil.which("java"), shutil.which("mvn")

NEEDS_JAVA = pytest.mark.skipif(
    JAVA is None or MAVEN is None,
    reason="Java 17+ and Maven are needed for the Android library's JVM tests; install them "
           "(Debian: openjdk-17-jdk-headless maven)")


@NEEDS_JAVA
def test_the_kotlin_library_gives_the_apps_ids_text_and_decoding_on_the_jvm():
    from exporters import ensure_exported
    from studio.bundle import load_bundle

    for bundle in ("translator", "chatbot"):  # the graphs the decode tests run: from the graph packs, seconds
        ensure_exported(load_bundle(ANDROID.parents[1] / "assets" / bundle), ["onnx"], progress=lambda message: None)
    # nice: Maven and the Kotlin compiler take every core they see, and the rest of the suite runs beside them
    result = subprocess.run(["nice", "-n", "10", MAVEN, "-B", "-q", "test"], cwd=ANDROID, capture_output=True,
                            text=True, timeout=1200, env={**os.environ, "MAVEN_OPTS": "-Xmx1g"})
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    lines = len(fixture["texts"])
    for model in fixture["models"]:  # the comparisons ran, on every line
        assert f"{model}: ids of {lines} of {lines} fixture lines equal sentencepiece's" in output, output[-3000:]
    assert output.count("; identical ids: {") == 2, output[-3000:]  # the decode loop ran on both models' graphs


def test_the_app_outputs_the_library_is_held_to_are_what_the_models_and_code_make_now():
    spec = importlib.util.spec_from_file_location("app_fixture", ANDROID.parent / "scripts" / "app-fixture.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for task, bundle_dir in script.bundles().items():
        recorded = json.loads(script.fixture(task).read_text(encoding="utf-8"))["identity"]
        assert recorded == script.identity_now(bundle_dir), (
            f"the {task}'s model, the app's code or the golden texts changed: run "
            "`.venv/bin/python mobile/scripts/app-fixture.py` and commit mobile/android/src/test/resources/app-*.json")
