"""The Android library (mobile/android/) on the JVM: its JUnit tests (`mvn -B -q test`) hold the pure-Kotlin
SentencePiece tokenizer to Python's ids and decoding on every line of the generated fixture, with the shipped
bundles' tokenizers read from assets/, its text pipeline and protection to Python's answers (the web page's
fixtures and its own), and its stored replies to Python's best row and cosine on the shipped chatbot's index. Skipped
with a message when Java or Maven is missing. The app's outputs the library must give
(mobile/android/src/test/resources/app-*.json) and the stored replies' fixture (replies-cases.json) are checked to be
what the models and the code make now."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ANDROID = Path(__file__).resolve().parents[2] / "mobile" / "android"
FIXTURE = ANDROID / "src" / "test" / "resources" / "tokenizer-cases.json"
JAVA, MAVEN = shutil.which("java"), shutil.which("mvn")

NEEDS_JAVA = pytest.mark.skipif(
    JAVA is None or MAVEN is None,
    reason="Java 17+ and Maven are needed for the Android library's JVM tests; install them "
           "(Debian: openjdk-17-jdk-headless maven)")


# one worker runs both JVM tests, the library's tests first: its one Maven run builds what run-jvm.sh runs too (two
# Maven builds at once compiled the same sources twice, into one target/ folder)
JVM = pytest.mark.xdist_group("jvm")


EVERY = 3  # the default suite checks every third golden text and decode case; the slow tier, all of them

# Kotlin compiles in Maven's own process, not in a compile daemon that outlives the suite (~1 GB, idle) and whose
# time the suite never sees; a build run once gains nothing from the JIT's optimizing tier: Maven's JVM stops at
# the first (a cold build here: 151 -> 125 CPU-seconds, 97 -> 93 s). The tests' own JVM (surefire's) keeps both
# tiers: the golden decoding runs slower without the second (35 -> 44 s). run-jvm.sh's own build gets the same.
# With one tier the JVM reserves only 48 MB for compiled code, which the Kotlin compiler fills ("CodeCache is
# full. Compiler has been disabled."), interpreting the rest: 240 MB, the tiered default (test-compile here:
# 31.8 and 30.1 -> 22.0 and 22.0 CPU-seconds).
MAVEN_OPTS = "-Xmx1g -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -Dkotlin.compiler.daemon=false"


def _maven_env() -> dict:
    return {**os.environ, "MAVEN_OPTS": MAVEN_OPTS}


@NEEDS_JAVA
@pytest.mark.early
@JVM
def test_the_kotlin_library_gives_the_apps_ids_text_and_decoding_on_the_jvm():
    _library_tests(every=EVERY, goals=[
        # `package` after the tests, and the classpath: what run-jvm.sh builds when it finds no jar (the next test)
        "package", "org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath",
        f"-Dmdep.outputFile={ANDROID / 'target' / 'runtime-classpath.txt'}", "-Dmdep.includeScope=compile"])


@NEEDS_JAVA
@pytest.mark.slow
@JVM
def test_the_kotlin_library_gives_the_apps_output_for_every_golden_text_and_decode_case():
    _library_tests(every=1, goals=["test"])


def _resource(name: str) -> dict:
    return json.loads((ANDROID / "src" / "test" / "resources" / name).read_text(encoding="utf-8"))


def _library_tests(every: int, goals: list[str]) -> None:
    """The library's JUnit tests through Maven, checking every `every`th case of the golden fixtures."""
    from exporters import ensure_exported
    from studio.bundle import load_bundle

    for bundle in ("translator", "chatbot"):  # the graphs the decode tests run: from the graph packs, seconds
        ensure_exported(load_bundle(ANDROID.parents[1] / "assets" / bundle), ["onnx"], progress=lambda message: None)
    _script("replies-fixture.py").portable_copy()  # the shipped chatbot's stored replies, as a package has them
    # nice: Maven and the Kotlin compiler take every core they see, and the rest of the suite runs beside them
    result = subprocess.run(["nice", "-n", "10", MAVEN, "-B", "-q", f"-Dgolden.every={every}", *goals],
                            cwd=ANDROID, capture_output=True, text=True, timeout=1200, env=_maven_env())
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    lines = len(fixture["texts"])
    for model in fixture["models"]:  # the comparisons ran, on every line
        assert f"{model}: ids of {lines} of {lines} fixture lines equal sentencepiece's" in output, output[-3000:]
    for bundle in ("translator", "chatbot"):  # the decode loop ran on both models' graphs
        cases = len(_resource(f"decode/{bundle}.json")["cases"])
        checked = len(range(0, cases, every))
        assert f"{bundle}: {checked} of {cases} sources; identical ids: {{" in output, output[-3000:]
    translator, chatbot = (len(range(0, len(_resource(f"app-{task}.json")["cases"]), every))
                           for task in ("translator", "chatbot"))
    for ran in (f"translator: {translator} of {translator} identical", "translator document: identical",
                f"chatbot: {chatbot} of {chatbot} identical",
                f"chatbot (the model's replies): {chatbot} of {chatbot} identical",
                f"{chatbot} came from where the app's came",
                "replies: 600 of 600 messages find Python's row and cosine"):
        # the full pipeline gave the app's outputs (AppOutputsTest, RetrievalTest)
        assert ran in output, output[-3000:]


RUNNER_LINES = ["삼성전자(Samsung Electronics)는 3조 5천억 원을 투자했다.", "", "No Korean on this line.",
                "2024년 7월 1일부터 요금이 5% 인상된다. 날씨가 좋다.",
                "도이체반(Deutsche Bahn)은 파업했다. 도이체반은 사과했다.", "오후 3시 30분에 https://example.com 에서 만나요."]


def _package_folder(bundle: str, folder: Path) -> Path:
    """A package laid out as `studio export --zip` lays one out (manifest.json with its `package`, `tokenizer` and
    `text_pipeline` sections, config.json, tokenizer/, the ONNX graphs), linked to the bundle's export and files."""
    from exporters import ensure_exported
    from studio.bundle import load_bundle
    from studio.variants import export_dir_for

    bundle_dir = ANDROID.parents[1] / "assets" / bundle
    ensure_exported(load_bundle(bundle_dir), ["onnx"], progress=lambda message: None)
    export = export_dir_for(bundle_dir)
    (folder / "tokenizer").mkdir(parents=True)
    for name in ("encode.onnx", "decode_step.onnx"):
        (folder / name).symlink_to(export / name)
    (folder / "config.json").symlink_to(bundle_dir / "config.json")
    (folder / "tokenizer" / "shared.spm.model").symlink_to(bundle_dir / "tokenizer" / "shared.spm.model")
    manifest = json.loads((export / "manifest.json").read_text(encoding="utf-8"))
    manifest["package"] = {"model": "encode.onnx", "decode_step": "decode_step.onnx"}
    manifest["tokenizer"].update(source="tokenizer/shared.spm.model", target="tokenizer/shared.spm.model")
    manifest["text_pipeline"] = {"config": "config.json"}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


@NEEDS_JAVA
@pytest.mark.early
@JVM
def test_run_jvm_translates_stdin_as_studio_translate_does(tmp_path):
    folder = _package_folder("translator", tmp_path / "translator")
    # and bytes as a pipe may bring them: Korean in CP949, and what neither UTF-8 nor CP949 reads
    data = ("\n".join(RUNNER_LINES) + "\n").encode("utf-8") + "삼성전자는 투자했다.\n".encode("cp949") + (
        b"\xed\xa0\x80 hello \xe4\xb8 \xc3\x28 \xf4\x90\x80\x80 \xf0\x9f\x98\x80\n")
    jvm = subprocess.run(["nice", "-n", "10", str(ANDROID / "run-jvm.sh"), "translate", str(folder)], input=data,
                         capture_output=True, timeout=900, env=_maven_env())
    assert jvm.returncode == 0, jvm.stderr.decode("utf-8", "replace")[-3000:]
    app = subprocess.run([sys.executable, "-m", "studio.cli", "translate", "--backend", "onnx"], input=data,
                         capture_output=True, timeout=600, cwd=ANDROID.parents[1])
    assert app.returncode == 0, app.stderr.decode("utf-8", "replace")[-3000:]
    assert len(jvm.stdout.decode("utf-8").splitlines()) == len(RUNNER_LINES) + 2
    assert jvm.stdout.decode("utf-8") == app.stdout.decode("utf-8")

    def warnings(stderr: bytes) -> list[str]:  # what each line's bytes were read as, when not UTF-8; lines kept
        return [line for line in stderr.decode("utf-8").splitlines() if line.startswith("warning: ")]
    assert warnings(jvm.stderr) == warnings(app.stderr) and len(warnings(app.stderr)) == 3


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py").replace("-", "_"),
                                                  ANDROID.parent / "scripts" / name)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_stored_replies_the_library_is_held_to_are_what_python_finds_now():
    script = _script("replies-fixture.py")
    committed = json.loads(script.FIXTURE.read_text(encoding="utf-8"))
    assert committed == script.cases(), (
        "the shipped index, retrieval or its messages changed: run `.venv/bin/python "
        "mobile/scripts/replies-fixture.py` and `web/scripts/replies-fixture.py`, and commit both replies-cases.json")


def test_the_app_outputs_the_library_is_held_to_are_what_the_models_and_code_make_now():
    script = _script("app-fixture.py")
    for task, bundle_dir in script.bundles().items():
        recorded = json.loads(script.fixture(task).read_text(encoding="utf-8"))["identity"]
        assert recorded == script.identity_now(bundle_dir), (
            f"the {task}'s model, the app's code or the golden texts changed: run "
            "`.venv/bin/python mobile/scripts/app-fixture.py` and commit mobile/android/src/test/resources/app-*.json")
