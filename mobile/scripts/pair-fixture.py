"""Writes mobile/android/src/test/resources/pair-cases.json: Python's answers for the steps of the translation path
that follow a model's language pair (studio.tasks.LanguagePair) — which lines are translated and what is said about
those kept (studio.translation.plan_lines, kept_warning), how an output is finished (finish_sentence) and what
automatic term protection passes through (Protector.for_pair(pair).protect, remembering) — for the shipped models'
Korean→English and for imported models' other pairs. The Android library's LanguagePairTest must answer alike.
Rerun it after changing a step's rules:

    .venv/bin/python mobile/scripts/pair-fixture.py

tests/unit/test_mobile_text_fixtures.py fails while the committed file is not what this writes.
"""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "mobile" / "android" / "src" / "test" / "resources" / "pair-cases.json"

# (source, target): the shipped translator's, an imported model's, one into English and one from Korean elsewhere
PAIRS = [("ko", "en"), ("en", "de"), ("de", "en"), ("ko", "ja")]

# a package config.json's `task` section -> the pair (a chatbot's is the shipped translator's)
TASKS = [
    {"task": "translator", "source_lang": "en", "target_lang": "de"},
    {"task": "translator", "source_lang": "ko", "target_lang": "en"},
    {"task": "translator", "source_lang": "", "target_lang": ""},
    {"task": "translator", "source_lang": "de", "target_lang": ""},
    {"task": "chatbot", "source_lang": "en", "target_lang": "de"},
]

TEXTS = [
    "Hello world. How are you?\n삼성전자는 투자했다.\n\n12345 !!\nXq1 Xq2\nhttps://example.com",
    "Der Zug kommt um 9 Uhr. Er ist spät.\n— 2024 —",
    "안녕하세요. 반갑습니다.\n  \nOnly English here, kept by a Korean model and long enough to be cut short.",
    "Ünïcode wörter: Ωμέγα and 東京\n①②③ ★ 42%",
]

# (source, the model's output)
OUTPUTS = [
    ("1월 9일에 만나자.", "we meet on September 9"),
    ("Ich komme morgen.", "i will come tomorrow"),
    ("Hello there.", "  hallo hallo da da  "),
    ("안녕하세요", "Hello,"),
    ("Was ist das?", "what what is that"),
    ("The draft is ready!", "der entwurf entwurf ist fertig"),
]

# (source, glossary TSV or None)
SOURCES = [
    ("삼성전자는 30억 달러를 투자했다. 자세한 내용은 https://samsung.com 참조.", None),
    ("Samsung invested $3 billion at 9:30 on 2024-05-01; mail info@samsung.com or see https://samsung.com.", None),
    ("The ±5% range (3~5) of BTS and iPhone 15 costs 1,200 dollars ★", None),
    ("도이체반(Deutsche Bahn)은 오전 9시~11시에 파업했다.", None),
    ("Mostly English text with 한국어 in it: version 2.0 of Deutsche Bahn", "Deutsche Bahn\tDB\n한국어\tKorean"),
    ("Deutsche Bahn fährt 3,5 Mio. Züge, siehe www.bahn.de", "Deutsche Bahn\tDB"),
]

# (document, a later sentence): names the document introduced, remembered where the pair protects them
DOCUMENTS = [("도이체반(Deutsche Bahn)은 파업했다.\n도이체반은 사과했다.", "도이체반은 오늘 사과했다.")]


def _pair(pair):
    from studio.tasks import LanguagePair

    return LanguagePair(*pair)


def _protected(shield) -> dict:
    return {"text": shield.text,
            "spans": [{"placeholder": s.placeholder, "original": s.original, "english": s.english, "kind": s.kind}
                      for s in shield.spans]}


def _protector(glossary):
    from studio.text.protect import Glossary, Protector

    return Protector(Glossary.parse(glossary) if glossary else Glossary(), auto=True)


def planned(pair, text: str) -> dict:
    """What `translate` plans for `text` (a word a token, 8 at most a piece) and the warning about its kept lines."""
    from studio.translation import kept_warning, plan_lines

    lines = text.split("\n")
    preprocessor = SimpleNamespace(source_limit=8, count_tokens=lambda piece: len(piece.split()), pair=pair)
    plan = plan_lines(preprocessor, lines)
    kept = [line for line, pieces in zip(lines, plan) if not pieces and line.strip()]
    return {"text": text, "plan": plan, "warnings": [kept_warning(kept, pair)] if kept else []}


def pair_cases(pair) -> dict:
    from studio.translation import finish_sentence

    language_pair = _pair(pair)
    return {
        "source": pair[0], "target": pair[1],
        "protects": [kind for kind in ("url", "email", "time", "range", "amount", "number", "figure", "latin",
                                       "symbol", "named") if language_pair.protects(kind)],
        "plan_lines": [planned(language_pair, text) for text in TEXTS],
        "finish_sentence": [{"source": source, "output": output,
                             "finished": finish_sentence(source, output, language_pair)} for source, output in OUTPUTS],
        "protect": [{"source": source, "glossary": glossary,
                     **_protected(_protector(glossary).for_pair(language_pair).protect(source))}
                    for source, glossary in SOURCES],
        "remembering": [{"document": document, "source": source, "names": memory.names.entries,
                         **_protected(memory.protect(source))}
                        for document, source in DOCUMENTS
                        for memory in [_protector(None).for_pair(language_pair).remembering(document)]],
    }


def cases() -> dict:
    from studio.config import TaskConfig
    from studio.tasks import language_pair

    configs = [{"task": task, "pair": list(vars(language_pair(TaskConfig(**task))).values())} for task in TASKS]
    return {"format": "transformer-studio-pair/1", "written_by": "mobile/scripts/pair-fixture.py",
            "language_pair": configs, "pairs": [pair_cases(pair) for pair in PAIRS]}


def render(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    FIXTURE.write_text(render(cases()), encoding="utf-8")
