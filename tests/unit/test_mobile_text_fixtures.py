"""The Android library's text code (mobile/android, package transformerstudio.text) is held to Python's answers by
generated files: its Unicode 14.0 table (mobile/scripts/unicode14-tables.py), its normalization fixtures
(mobile/scripts/normalization-fixture.py) and its language pair fixture (mobile/scripts/pair-fixture.py), read by its
JVM tests. Each committed file must be what its script
writes now; the protection, facts, dates and sentence fixtures it shares with the web page are checked by
tests/unit/test_web_fixtures.py."""

import importlib.util
import json
import unicodedata
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "mobile" / "scripts"
pytestmark = pytest.mark.skipif(unicodedata.unidata_version != "14.0.0",
                                reason="the fixtures are Python 3.11's (Unicode 14.0)")


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py").replace("-", "_"), SCRIPTS / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_unicode_table_is_what_the_script_writes():
    tables = _script("unicode14-tables.py")
    assert tables.TABLE.read_text(encoding="utf-8") == tables.table(), (
        "the Unicode table changed: run `.venv/bin/python mobile/scripts/unicode14-tables.py`")


@pytest.mark.parametrize("name", ["normalization-cases.json", "nfc-cases.json"])
def test_the_normalization_fixtures_are_what_the_python_code_answers(name):
    fixture = _script("normalization-fixture.py")
    committed = json.loads((fixture.RESOURCES / name).read_text(encoding="utf-8"))
    assert committed == json.loads(fixture.render(fixture.cases(name))), (
        f"{name} changed: run `.venv/bin/python mobile/scripts/normalization-fixture.py`, port the change to "
        "mobile/android/src/main/kotlin/transformerstudio/text/ and run `mvn test` in mobile/android")


def test_the_language_pair_fixture_is_what_the_python_steps_answer_for_each_pair():
    fixture = _script("pair-fixture.py")
    committed = json.loads(fixture.FIXTURE.read_text(encoding="utf-8"))
    assert committed == json.loads(fixture.render(fixture.cases())), (
        "what a language pair's steps answer changed (studio.tasks.LanguagePair, studio/translation.py, "
        "studio/text/protect.py): run `.venv/bin/python mobile/scripts/pair-fixture.py`, port the change to "
        "mobile/android/src/main/kotlin/transformerstudio/text/ and run `mvn test` in mobile/android")
