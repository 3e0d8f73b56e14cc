"""The Android library's pure-Kotlin SentencePiece tokenizer (mobile/android/) is held to Python's answers in a
generated fixture (mobile/android/src/test/resources/tokenizer-cases.json, checked by its JUnit tests): the file must
be what the app's tokenizer (studio/text/tokenizers.py on the installed sentencepiece) answers now."""

import importlib.util
import json
import unicodedata
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "mobile" / "scripts" / "tokenizer-fixture.py"


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0", reason="the fixture is Python 3.11's (Unicode 14.0)")
def test_the_tokenizer_fixture_is_what_the_apps_tokenizer_answers():
    import sentencepiece

    spec = importlib.util.spec_from_file_location("tokenizer_fixture", SCRIPT)
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    committed = json.loads(fixture.FIXTURE.read_text(encoding="utf-8"))
    assert committed == fixture.cases(), (
        f"the shipped tokenizers, SentencePieceTokenizer or sentencepiece changed (the fixture was written with "
        f"sentencepiece {committed['sentencepiece']}, this is {sentencepiece.__version__}): run "
        "`.venv/bin/python mobile/scripts/tokenizer-fixture.py`, port any change to "
        "mobile/android/src/main/kotlin/transformerstudio/tokenizer/ and run `mvn -q test` in mobile/android/")
