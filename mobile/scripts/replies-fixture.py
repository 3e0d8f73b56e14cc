"""Writes mobile/android/src/test/resources/replies-cases.json: Python's normalized text, best row and cosine of
hundreds of messages on the shipped chatbot's stored replies (`exporters.replies.replies_cases`) — what the Android
library's retrieval must give (RetrievalTest) — and the index's portable form where the tests read it:
`<user cache>/transformer-studio/replies/chatbot-<key>/` (STUDIO_CACHE_DIR, XDG_CACHE_HOME or ~/.cache; the key is
the start of replies.npz's sha256). web/scripts/replies-fixture.py writes the web page's copy. Rerun it after
changing the shipped index, retrieval (studio/text/retrieval.py) or the messages (exporters/replies.py):

    .venv/bin/python mobile/scripts/replies-fixture.py

tests/system/test_android_library.py fails while the committed file is not what this writes, and writes the
portable copy before the JVM tests run.
"""

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "mobile" / "android" / "src" / "test" / "resources" / "replies-cases.json"
BUNDLE = ROOT / "assets" / "chatbot"


def _index():
    sys.path.insert(0, str(ROOT))
    from studio.replies import REPLIES_FILE, portable_replies
    from studio.text.retrieval import RetrievalIndex

    path = BUNDLE / REPLIES_FILE
    index = RetrievalIndex.load(path)
    key = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return index, portable_replies(index), f"replies/{BUNDLE.name}-{key}"


def portable_copy() -> Path:
    """The folder of the shipped index's portable form in the user cache, written when missing or different."""
    from studio import paths
    from studio.files import atomic_write_bytes

    _, files, folder = _index()
    target = paths.cache_dir() / folder
    for name, content in files.items():
        if not (target / name).is_file() or (target / name).read_bytes() != content:
            target.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(target / name, content)
    return target


def cases() -> dict:
    from exporters.replies import replies_cases

    index, files, folder = _index()
    return {**replies_cases(index, files), "written_by": "mobile/scripts/replies-fixture.py", "bundle": BUNDLE.name,
            "cache": folder}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from exporters.replies import dumps

    FIXTURE.write_bytes(dumps(cases()))
    print(f"wrote {FIXTURE}; the portable index is in {portable_copy()}")
