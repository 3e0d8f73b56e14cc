"""Writes the Android library's normalization fixtures (mobile/android/src/test/resources/): Python's answers for
what its Kotlin text pipelines (transformerstudio.text) must answer alike, checked by the JVM tests
(NormalizationTest, NfcTest).

- normalization-cases.json: each text pipeline (tutorial source, tutorial target lower-cased, translator source,
  both outputs) on `exporters.golden.normalization_cases()`'s strings and a few hundred generated hostile ones
  (controls, every kind of space, combining marks, decomposed Hangul, lone surrogates, characters unassigned in
  Unicode 14.0, full-width forms, brackets, middle dots, Penn Treebank quotes...).
- nfc-cases.json: NFC of every code point it changes, and of sequences built to be tricky (marks out of order,
  blocked and excluded compositions, Hangul syllables built from jamo).

Run it with the Python that serves the models, and rerun after changing the pipelines:

    .venv/bin/python mobile/scripts/normalization-fixture.py

tests/unit/test_mobile_text_fixtures.py fails while the committed files are not what this writes.
"""

import json
import random
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "mobile" / "android" / "src" / "test" / "resources"
FIXTURES = {"normalization-cases.json": "normalization", "nfc-cases.json": "nfc"}

# pieces the hostile strings are made of: each a trap for a port on another language's strings or Unicode
PIECES = [
    "가", "한국어", "ㅋㅋ", "ㅠ", "\u1112\u1161\u11ab", "\u1100\u1161", "\u11a8", "\uac00\u11a8", "\u115f", "\u3164",
    "a", "Z", "word", "Don't", "e-mail", "İ", "ı", "K", "ß", "ﬁ", "Σ", "ΟΔΥΣΣΕΥΣ", "Ǆ", "ǅ", "ẞ", "ŉ", "\u0130stanbul",
    "0", "42", "３", "٣", "১২", "𝟘", "²", "①", "½", "Ⅻ", "%", "?", ".", "!", ",", "'", "-", "--", "...", "?!",
    " ", "  ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u1680", "\u2000", "\u200a",
    "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u180e", "\u200b", "\u200c", "\u200d", "\u2060",
    "\u202e", "\u2066", "\xad", "\x00", "\x07", "\x1b", "\x7f", "\x9f", "\ue000", "\U000f0000", "\U000e0001",
    "\ud800", "\udfff", "\U0001fae8", "\U00031350", "\u0378", "\U0001f600", "👍🏽", "🇰🇷", "👨‍👩‍👧", "\U00020000",
    "e\u0301", "\u00e9", "a\u0323\u0302", "a\u0302\u0323", "\u1e9b\u0323", "\u212b", "\u2126", "\u0344", "\u0958",
    "\u0f73", "\u0301", "\u0327", "\u05b0", "Ａ", "ｚ", "！", "～", "（全角）", "｡", "ﾊ", "「", "」", "『", "』", "《",
    "》", "〈", "〉", "·", "・", "∙", "‧", "6·25", "a·b", "가·나", "·", "``", "''", "`` x ''", " 's", "film 's", "'s",
    "1995 --2005", "3 -- 4", "“", "”", '"', "‘", "’", "«", "»", "$", "€", "@", "#", "&", "_", "<", ">", "(", ")",
]

SEQUENCES = [
    "a\u0301\u0323", "a\u0323\u0301", "a\u0301\u0301", "\u0301a", "\u0301\u0323", "a\u0308\u0304", "a\u035c\u0301",
    "e\u0302\u0300", "o\u031b\u0301", "o\u0301\u031b", "\u1100\u1161\u11a8", "\u1100\u1161", "\uac00\u11a8",
    "\uac01\u11a8", "\u1100\u1161\u0301\u11a8", "\u1100\u11a8", "\u1161\u11a8", "\u115f\u1161", "\u1100\u1176",
    "\u1112\u1161\u11ab\u1100\u1173\u11af", "\u0958", "\u0915\u093c", "\u2126", "\u212b", "A\u030a", "\u0344",
    "\u0308\u0301", "\u0f73", "\u0f71\u0f72", "\u0f72\u0f71", "\u0b47\u0b3e", "\u0b47\u0300\u0b3e", "\u1025\u102e",
    "\u0627\u0653", "\u09c7\u09be", "\u0cc6\u0cd5\u0cd6", "\u1b05\u1b35", "\U0001d15e", "\U0001d157\U0001d165",
    "\U00011099\U000110ba", "\U0001133b", "\U00011347\U0001133e", "\u05d0\u05b0\u05b7", "\u05d0\u05b7\u05b0",
    "\u0061\u0315\u0300\u05ae\u0300\u0062", "\u0061\u0300\u0315\u0300\u05ae\u0062", "\ufb2c", "\u2adc",
    "\u1fc1", "\u1fee", "\u00a8\u0301", "\u0385", "\u1e9b\u0323", "\u1e0a\u0323", "\u1e0c\u0307", "D\u0307\u0323",
    "\u0041\u030a\u0323", "\u01c4", "\ufb01", "\u3131\u314f", "\ud800\u0301", "\u0301\udfff", "\U0001fae8\u0301",
    "\u0e40\u0e01", "\u0cbf\u0cd5", "\u0d46\u0d3e", "\u0dd9\u0dca", "\u0dd9\u0dcf\u0dca", "\u1b3a\u1b35",
    "\U000114b9\U000114ba", "\U000115b8\U000115af", "\U00011935\U00011930",
]


def hostile_texts() -> list[str]:
    rng = random.Random(56)
    texts = []
    while len(texts) < 400:
        pieces = [rng.choice(PIECES) for _ in range(rng.randint(1, 12))]
        text = "".join(pieces)
        if re.search("[\ud800-\udbff][\udc00-\udfff]", text):
            continue  # two lone surrogates in a row read as one character in UTF-16: not a case for the JVM
        texts.append(text)
    return texts


def normalization() -> list[dict]:
    sys.path.insert(0, str(ROOT))
    from exporters.golden import NORMALIZATION_CASES, normalization_cases

    return normalization_cases(tuple(NORMALIZATION_CASES) + tuple(hostile_texts()))


def nfc() -> dict:
    rng = random.Random(14)
    marks = [c for c in range(0x300, 0x370)] + [0x1100, 0x1161, 0x11a8, 0x0b3e, 0x0b47, 0x05b0, 0x0323, 0x031b]
    built = ["".join(chr(rng.choice(marks)) for _ in range(rng.randint(2, 6))) for _ in range(200)]
    return {
        "unicode": unicodedata.unidata_version,
        "changed": [[code, unicodedata.normalize("NFC", chr(code))] for code in range(0x110000)
                    if unicodedata.normalize("NFC", chr(code)) != chr(code)],
        "sequences": [[text, unicodedata.normalize("NFC", text)] for text in SEQUENCES + built],
    }


def render(data) -> str:
    """JSON as UTF-8 text, a lone surrogate (which UTF-8 cannot hold) written as its escape."""
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group(0)):04x}", text)


def cases(name: str):
    return {"normalization": normalization, "nfc": nfc}[FIXTURES[name]]()


if __name__ == "__main__":
    if unicodedata.unidata_version != "14.0.0":
        sys.exit(f"expected Unicode 14.0.0 (Python 3.11), this Python has {unicodedata.unidata_version}")
    RESOURCES.mkdir(parents=True, exist_ok=True)
    for name in FIXTURES:
        (RESOURCES / name).write_text(render(cases(name)), encoding="utf-8")
        print(f"wrote {RESOURCES / name}")
