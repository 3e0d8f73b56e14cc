"""The web page splits and finishes sentences with a port of studio/document.py (web/src/sentences.js), held to
Python's answers in web/test/sentences-cases.json: that file must be what document.py answers now."""

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "web" / "scripts" / "sentences-fixture.py"


def test_the_web_sentence_cases_are_what_document_py_answers():
    spec = importlib.util.spec_from_file_location("sentences_fixture", SCRIPT)
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    committed = json.loads(fixture.FIXTURE.read_text(encoding="utf-8"))
    assert committed == fixture.cases(), (
        "studio/document.py's sentence splitting or finishing changed: run `.venv/bin/python "
        "web/scripts/sentences-fixture.py`, port the change to web/src/sentences.js and run `npm test` in web/")
