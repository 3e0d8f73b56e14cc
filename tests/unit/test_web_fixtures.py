"""The web page's ports of studio/translation.py's sentence handling (web/src/sentences.js), of the facts of a text
(web/src/facts.js: studio/text/facts.py), of the figure guard and dates (figures.js, dates.js) and of term protection
(web/src/protect.js, numbers.js, transliteration.js: studio/text/protect.py, numbers.py, transliteration.py and
document.py's unprotect) and of stored replies (web/src/retrieval.js: studio/text/retrieval.py) are held to Python's
answers in generated fixtures (web/test/*-cases.json, checked by `npm test`): each file must be what the Python code
answers now."""

import importlib.util
import json
import unicodedata
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "web" / "scripts"


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0", reason="the fixtures are Python 3.11's (Unicode 14.0)")
@pytest.mark.parametrize("script, what", [
    ("sentences-fixture.py", "studio/translation.py's sentence splitting or finishing"),
    ("figures-fixture.py", "the figure guard or the date handling (studio/generate/figures.py, studio/text/dates.py)"),
    ("facts-fixture.py", "how years, months, numbers, amounts or names are recognised (studio/text/facts.py)"),
    ("protect-fixture.py", "term protection (studio/text/protect.py, numbers.py, transliteration.py or translation.py's "
                           "_unprotect)"),
    ("tokenizer-fixture.py", "an imported model's tokenizers (studio/importers/marian_vocab.py) or the tokenizer "
                             "(studio/text/tokenizers.py)"),
    ("replies-fixture.py", "stored replies (studio/text/retrieval.py, exporters/replies.py or the shipped index)")])
def test_the_web_fixtures_are_what_the_python_code_answers(script, what):
    spec = importlib.util.spec_from_file_location(script.removesuffix(".py").replace("-", "_"), SCRIPTS / script)
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    committed = json.loads(fixture.FIXTURE.read_text(encoding="utf-8"))
    assert committed == fixture.cases(), (
        f"{what} changed: run `.venv/bin/python web/scripts/{script}`, port the change to web/src/ and run "
        "`npm test` in web/")
