"""Writes web/test/replies-cases.json: the Android library's fixture (mobile/scripts/replies-fixture.py: Python's
normalized text, best row and cosine of hundreds of messages on the shipped chatbot's stored replies), which
web/src/retrieval.js must give alike (web/test/retrieval.test.mjs), and the index's portable form in the user cache,
where that test reads it. Rerun it after changing the shipped index, retrieval or the messages:

    .venv/bin/python web/scripts/replies-fixture.py

tests/unit/test_web_fixtures.py fails while the committed file is not what this writes.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "web" / "test" / "replies-cases.json"


def _mobile():
    spec = importlib.util.spec_from_file_location("replies_fixture", ROOT / "mobile" / "scripts" / "replies-fixture.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def cases() -> dict:
    return {**_mobile().cases(), "written_by": "web/scripts/replies-fixture.py"}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from exporters.replies import dumps

    FIXTURE.write_bytes(dumps(cases()))
    print(f"wrote {FIXTURE}; the portable index is in {_mobile().portable_copy()}")
