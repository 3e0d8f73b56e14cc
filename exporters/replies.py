"""A chatbot package's stored replies (`studio.replies`): the bundle's index in its portable form, which every chatbot
package (python, android, ios, web) carries when the bundle has one, and the fixture a port's retrieval is held to:
hundreds of messages of every kind (Korean, spaced otherwise, mixed with Latin, digits, emoji and other scripts,
decomposed Hangul, capital sigmas, nothing readable, thousands of characters) with Python's normalization, best row
and cosine on an index (`replies_cases`). The Android library's and the web page's tests read it for the shipped
chatbot (mobile/scripts/replies-fixture.py, web/scripts/replies-fixture.py); the ios package carries it for its own
index (`fixtures/replies-cases.json`)."""

from __future__ import annotations

import hashlib
import json
import random
import re
import unicodedata
from functools import lru_cache

from studio.replies import PORTABLE_FILES, manifest_section, portable_replies
from studio.tasks import task_named
from studio.text.retrieval import RetrievalIndex, normalize

CASES_FORMAT = "transformer-studio-replies-cases/1"
REPLIES_CASES = "fixtures/replies-cases.json"  # in the ios package
MESSAGES = [
    "", " ", "\t\n", "!!!", "?", "...", "😊", "😊😊😊", "👍 좋아", "ㅋㅋㅋㅋ", "ㅠㅠ", "ㅎㅎ", "ㅋ", "영화 볼래?",
    "지칠때 어떡하면 좋을까", "지칠 때 어떡하면 좋을까?", "오늘 날씨는 어때?", "넌 누구야?", "대학원 합격 하겠지?",
    "너 좋아하는 사람 있어?", "배고파", "배 고 파", "심심해", "헤어졌어", "사랑해", "안녕", "안녕하세요!", "hello",
    "Hello World", "HELLO", "ok", "OK ㅋㅋ", "sns 중독", "SNS", "pc방 가자", "PC방", "카톡 해", "KakaoTalk", "COVID-19",
    "1", "12", "2024", "2024년 7월 1일", "３시", "Ⅻ월", "x²", "½", "\u212a", "\u212b", "ﬁle", "İstanbul", "ß",
    "ΣΟΦΟΣ", "ὈΔΥΣΣΕΎΣ", "σς Σ", "AΣ", "AΣ'", "AΣ\u0301b", "Σa", "a\u0387Σ", "ʕΣ", "DŽΣ", "A\u02b0Σ", "\U0001171eΣ",
    "\u1100\u1161\u11a8", "\u110b\u1167\u11bc\u1112\u116a \u1107\u1169\u11af\u1105\u1162", "ㅇㅕㅇㅎㅘ", "가\u0301",
    "\u200b영화\u200b", "영화\u00a0볼래", "영화\n볼래", "영화　볼래", "你好", "こんにちは", "مرحبا", "สวัสดี", "Привет",
    "𝐀𝐁𝐂", "𐐀𐐁", "𠀀𠀁 영화", "🫨 영화", "\U0001faf8", "\ud800영화", "영화\udfff", "\x00\x01영화", "영화" * 40,
    "ㅋ" * 3000, "안녕 hello 123 😊 σ", "_영화_", "영화-볼래", "영화'볼래", "'영화'",
]
POOL = ("가나다라마바사아자차카타파하영화사랑이별친구학교회사밥술잠꿈돈일집ㄱㅋㅎㅠㅜ abcxyzABC0123456789 "
        "!?.,~^^;:'\"-_()😊😢❤️ΣσςİΑβ\u0301\u200b\u3000")


def package_index(bundle) -> RetrievalIndex | None:
    """The stored replies a package of `bundle` carries: its index, for a task that replies with them."""
    return bundle.replies if task_named(bundle.config.task.task).reply_modes else None


def replies_files(bundle, prefix: str = "") -> dict[str, bytes]:
    """{path in the package: content} of the portable index (`PORTABLE_FILES`, under `prefix`), or {}."""
    index = package_index(bundle)
    return portable_replies(index, prefix) if index is not None else {}


def replies_manifest(bundle, files, prefix: str = "") -> dict:
    """{"replies": the manifest section} when `files` (a package's paths) hold the portable index, else {}."""
    index = package_index(bundle)
    if index is None or prefix + PORTABLE_FILES["index"] not in files:
        return {}
    return {"replies": manifest_section(index, task_named(bundle.config.task.task).reply_modes, prefix)}


def port_fixture(bundle, payload: dict) -> dict[str, bytes]:
    """The ios package's `REPLIES_CASES` for the index its `payload` carries ({} without one)."""
    index = package_index(bundle)
    files = {name: payload[name] for name in PORTABLE_FILES.values() if name in payload}
    return {REPLIES_CASES: dumps(replies_cases(index, files))} if index is not None and files else {}


def messages(index: RetrievalIndex, count: int = 600, seed: int = 58) -> list[str]:
    """`MESSAGES`, then messages made from the index's own questions (as asked, unspaced, with typos, with emoji
    and Latin around them, repeated, run together; those asked twice, whose ties go to the lower row) and random
    text of Hangul, jamo and the `POOL`, `count` in all."""
    rng = random.Random(seed)
    found = list(MESSAGES)
    questions = index.questions or ["영화 볼래?"]
    keys: dict[str, list[int]] = {}
    for row, question in enumerate(questions):
        keys.setdefault(normalize(question), []).append(row)
    twice = [rows[0] for rows in keys.values() if len(rows) > 1]
    found += [questions[row] + rng.choice(["", "?", "!!", " ㅋㅋ"]) for row in rng.sample(twice, min(20, len(twice)))]
    makers = [lambda q: q, lambda q: q.replace(" ", ""), lambda q: " ".join(q), _typo(rng),
              lambda q: f"😊 {q} 😊", lambda q: f"hey {q} OK 2024", lambda q: q * rng.randint(5, 30),
              lambda q: q + " " + rng.choice(questions), lambda q: q[: max(1, len(q) // 2)],
              lambda q: unicodedata.normalize("NFD", q), lambda q: q.upper()]
    while len(found) < count * 3 // 4:
        found.append(rng.choice(makers)(rng.choice(questions)))
    while len(found) < count:
        kind = rng.random()
        if kind < 0.4:
            found.append("".join(chr(rng.randint(0xAC00, 0xD7A3)) for _ in range(rng.randint(1, 12))))
        elif kind < 0.55:
            found.append("".join(chr(rng.randint(0x3131, 0x3163)) for _ in range(rng.randint(1, 8))))
        else:
            found.append("".join(rng.choice(POOL) for _ in range(rng.randint(1, 40))))
    return found[:count]


def _typo(rng: random.Random):
    def typo(question: str) -> str:
        at = rng.randrange(len(question)) if question else 0
        return question[:at] + rng.choice(["", "ㅋ", question[at:at + 1] * 2]) + question[at + 1:]
    return typo


def replies_cases(index: RetrievalIndex, files: dict[str, bytes], texts: list[str] | None = None) -> dict:
    """The fixture: for each message its `normalized` text (`studio.text.retrieval.normalize`), the best `row`
    (null when no training question shares an n-gram: the model writes that reply), its cosine `match` and how many
    rows share that cosine (`ties`: the lowest row wins); `files` are the portable index's (their sha256 are
    recorded); `final_sigma` gives the code points Python's str.lower() reads as cased and as case-ignorable
    around a capital sigma (Σ → ς at a word's end)."""
    cases = []
    for text in messages(index) if texts is None else texts:
        scores = index.scores(*index.vector(text)) if index.questions else []
        row, match = index.query(text, 1)[0] if index.questions else (0, 0.0)
        cases.append({"text": text, "normalized": normalize(text), "row": row if match > 0 else None,
                      "match": match, "ties": int((scores == scores[row]).sum()) if match > 0 else 0})
    return {"format": CASES_FORMAT, "written_by": "exporters/replies.py", "unicode": unicodedata.unidata_version,
            "analyzer": index.analyzer, "rows": len(index.questions), "terms": len(index.vocabulary),
            "sha256": {name.rpartition("/")[2]: hashlib.sha256(content).hexdigest() for name, content in files.items()},
            "final_sigma": final_sigma(), "cases": cases}


@lru_cache(maxsize=1)
def final_sigma() -> dict[str, list[list[int]]]:
    """The ranges of code points (assigned in Python's Unicode) that str.lower() skips as case-ignorable, and those
    it reads as cased (and not case-ignorable), when it chooses between σ and ς for a capital sigma: σ unless a
    cased letter comes before it and none after it, case-ignorable ones skipped. Read from its answers."""
    cased, ignorable = [], []
    for code in range(0x110000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF or unicodedata.category(char) == "Cn":
            continue
        after_letter = ("A" + char + "Σ").lower()[-1] == "ς"  # ς: `char` is cased, or skipped to reach the A
        before_letter = ("AΣ" + char + "a").lower()[1] == "σ"  # σ: `char` is cased, or skipped to reach the a
        skipped = after_letter and before_letter and ("1" + char + "Σ").lower()[-1] == "σ"
        if skipped:
            ignorable.append(code)
        elif after_letter:
            cased.append(code)
    return {"cased": _ranges(cased), "case_ignorable": _ranges(ignorable)}


def _ranges(codes: list[int]) -> list[list[int]]:
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return ranges


def dumps(value) -> bytes:
    """The fixture as UTF-8 JSON, lone surrogates (which UTF-8 cannot carry) as \\udxxx escapes."""
    text = json.dumps(value, ensure_ascii=False, indent=1)
    return (re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group(0)):04x}", text) + "\n").encode("utf-8")
