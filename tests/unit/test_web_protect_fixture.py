"""The web page protects terms with a port of studio/text/protect.py, numbers.py, transliteration.py and
document.py's unprotect (web/src/protect.js, numbers.js, transliteration.js), held to Python's answers in
web/test/protect-cases.json: that file must be what the Python modules answer now."""

import importlib.util
import json
import unicodedata
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "web" / "scripts" / "protect-fixture.py"


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0", reason="the fixture is Python 3.11's (Unicode 14.0)")
def test_the_web_protection_cases_are_what_protect_py_answers():
    spec = importlib.util.spec_from_file_location("protect_fixture", SCRIPT)
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    committed = json.loads(fixture.FIXTURE.read_text(encoding="utf-8"))
    assert committed == fixture.cases(), (
        "term protection (studio/text/protect.py, numbers.py, transliteration.py or document.py's unprotect) changed: "
        "run `.venv/bin/python web/scripts/protect-fixture.py`, port the change to web/src/protect.js (numbers.js, "
        "transliteration.js) and run `npm test` in web/")
