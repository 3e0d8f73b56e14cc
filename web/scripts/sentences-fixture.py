"""Writes web/test/sentences-cases.json: Python's answers (studio/translation.py) for the cases that
web/src/sentences.js must answer alike (web/test/sentences.test.mjs checks it). Rerun it after changing
split_sentences, fit_to_length, finish_sentence, plan_lines or translate, and port the change:

    .venv/bin/python web/scripts/sentences-fixture.py

tests/unit/test_web_fixtures.py fails while the committed file is not what this writes.
"""

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

FIXTURE = Path(__file__).resolve().parents[1] / "test" / "sentences-cases.json"

# Python's and JavaScript's whitespace differ: U+0085 and U+001C-U+001F are Python's only, U+FEFF is JS's only
PARAGRAPHS = [
    "그는 Dr. Smith를 만났다. U.S. Steel은 컸다. J. Kim도 왔다!",
    "Mr. Kim met Mrs. Lee. Then Prof. Park left. e.g. this splits. i.e. so does this.",
    "가. 서론이다. 다음 문장.",
    "12. 개요다. 끝.",
    "123. 세 자리는 목록 번호로 보지 않는다. 끝.",
    "１２. 전각 숫자도 번호다. 끝.",  # Python's \d is every decimal digit
    "버전 2. 다음 문장. A. B. C. 순서다.",
    "삼성B. 다음 문장. 그는Dr. Smith였다.",  # a letter just before: no word boundary (Unicode \b)
    "첫 문장。 둘째？ 셋째！ 넷째。다섯째는 붙어 있다.",
    "  Hello world.   How are you?\tFine!  ",
    "First line.\n\nSecond line.\nThird.",
    "Wait... What?! Really?? Yes.",
    "He said \"Stop.\" Then he left.",
    "가격은 3.5달러다. 끝",
    "첫째다.\u3000둘째다.\u00a0셋째다.",
    "첫째다.\x85둘째다.\x1f셋째다.\ufeff넷째다.",
    "",
    "  \n\t ",
    "마침표 없는 한 문장",
]

# (sentence, tokenizer, limit); "words" counts whitespace-separated words, "characters" code points
FITS = [
    ("짧은 문장이다.", "words", 5),
    ("하나, 둘, 셋, 넷, 다섯 여섯 일곱.", "words", 3),
    ("하나, 둘 셋 넷 다섯 여섯 일곱 여덟, 아홉.", "words", 3),
    ("one two three four five six seven", "words", 3),
    ("비율은 3:1이다; 값은 2,000이다: 끝이다， 그리고 more words here.", "words", 3),
    ("a,\x85b c d e, f g h i", "words", 2),
    ("a,\ufeffb c d e, f g h i", "words", 2),
    ("one enormous", "words", 0),
    ("가나다라마바사아자차카타파하", "characters", 5),
    ("가나다 라마바사아자차카타파하 하", "characters", 6),
    ("가나, 다라마바, 사아", "characters", 6),
]

FINISHES = [
    # every date form of issue 41, the model's month wrong (studio/text/dates.py: repair_months)
    ("2018년 9월 30일 총리가 참여했다.", "On Aug. 30, 2018, the prime minister joined."),
    ("9월 30일에 만났다.", "They met on October 30."),
    ("2018년 9월에 시작했다.", "It began in June 2018."),
    ("1월 9일에는 파업을 시작했다.", "On the 9th of September, a strike began."),
    ("2018년부터 2020년까지 일했다.", "He worked from 2018 to 2020."),
    ("1월 9일과 2월 9일에 열렸다.", "It was held on Sept. 9 and Oct. 9."),  # one day, two months: left as written
    ("지난 2일 발표했다.", "It was announced on the 2nd."),
    ("12월 8일 정상 회담에서", "at the summit on august 8"),  # a lower-case month is no month name
    ("삼성전자는 30억 달러를 투자했다.", "samsung invested $3 billion"),
    ("《기생충》을 봤다!", "“parasite” was seen"),
    ("아이폰이다.", "iPhone is here"),
    ("회의는 오후 2시다.", "The meeting is at 2 p.m."),
    ("왜?", "why."),
    ("그는 \"안녕\"이라고 했다.", "He said \"hello\""),
    ("", ""),
    ("그는 “안녕”이라고 했다.", "“hello,” he said"),
    ("(참고) 내용이다.", "(note) content"),
    ("이베이에서 샀다.", "eBay sold it"),
    ("iOS와 macos를 썼다.", "macos was used"),
    ("길이다.", "ßtraße is the street"),
    ("단어다.", "ŉ is a letter"),
    ("단어다.", "ǆungla is a word"),
    ("에클레어다.", "éclair is sweet"),
    ("그리스어다.", "αβγ is greek"),
    ("데저렛이다.", "𐐨𐐯 is a word"),
    ("3개다.", "3 items"),
    ("안녕.", "   "),
    ("계속된다.", "it continues…"),
    ("다음과 같다.", "as follows:"),
    ("그리고.", "and;"),
    ("그래서.", "so,"),
    ("안녕하세요", "Hello,"),
    ("초안이다.", "explains in the draft draft of this plan"),
    ("많다.", "thousands in thousands thousands thousands, had had that that"),
    ("섬이다.", "Bora Bora is an island island"),
    ("단어다.", "éabc abc and abc abcd and abc_ abc and the the end"),
    ("단어다.", "Draft draft and DRAFT DRAFT and naïve naïve"),
    ("안녕하세요", "Hello ,"),
    ("사과, 배,", "apples, pears,"),
    ("사과; 배;", "apples; pears;"),
    ("사과, 배", "apples, pears ;"),
    ("네.", ","),
    ("그는 \"안녕\"이라고 했다.", "He said \"hello.\""),
    ("그가 \"안녕?\"", "he asked \"hello\""),
    ("끝났다!  ", "it is over"),
    ("끝이다。", "it is over"),
    ("“ 인용”이다.", "“ quote”"),
    ("네.", "”"),
    ("네.", "\x85yes"),
    ("네.", "\ufeffyes"),
    ("맥도날드다.", "mcDonald's it is"),
    ("물었다?", "  he asked  "),
]

# (source language, target language) of models other than the shipped Korean→English (studio.tasks.LanguagePair):
# FINISHES and TEXTS are finished and planned for each too
PAIRS = [("en", "de"), ("ko", "de"), ("de", "en")]
# what LanguagePair.has_text is asked, for every pair
LINES = ["한국어", "\u1112\u1161\u11ab", "English", "2024", "  # -- 3.5% --", "中文", "Привет", "ǅ", "Xq1", "", "ー"]
KINDS = ["url", "email", "time", "range", "amount", "number", "figure", "latin", "symbol", "named", "glossary"]

# (text, limit) for plan_lines and translate, with the "words" tokenizer
TEXTS = [
    ("첫 문장이다. 둘째 문장이다.\n\n셋째, 아주 긴 문장이 여기 있다, 넷째 다섯째 여섯째.\n", 4),
    ("\n한 줄이다\n   \n...\nDr. Smith는 왔다. 끝!", 10),
    ("Hello there. How are you?\niOS rules! “quoted” words, and more words after them.", 3),
    ("첫 줄이다.\n  # Introduction  \n2024\n둘째 줄, 'quoted' 이다.\n中文 句子。\n", 4),
    ("Only English here, and it is kept as it is written to the very last of its many words.", 4),
    ("\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165 \u1106\u116e\u11ab\u110c\u1161\u11bc. Hello.\n", 4),  # decomposed (NFD)
    ("", 4),
]
# for a model of another pair only: lines of placeholders or digits alone are kept, any letter is translated
PAIR_TEXTS = [
    ("Hello there. How are you?\n2024 -- 3.5%\nXq1 Xq2\n  \nGuten Tag! the the end.\n中文 句子。 12월 8일 회의", 4),
    ("첫 줄이다, on 9월 30일.\nOnly English here and it is the whole of one long line of words\n", 4),
]


def tokenizer(name):
    return (lambda text: len(text.split())) if name == "words" else len


def fake_translation(source: str) -> str:
    """What the fake model answers (sentences.test.mjs has the same): the source without its final marks and with
    an ASCII capital first letter in lower case, so that finish_sentence has both to put back."""
    text = re.sub(r"[.!?]+\Z", "", source)
    return text[:1].lower() + text[1:] if text[:1].isascii() else text


class FakeTranslator:
    def __init__(self, limit, pair=("ko", "en")):
        from studio.tasks import LanguagePair

        self.preprocessor = SimpleNamespace(source_limit=limit, count_tokens=tokenizer("words"),
                                            pair=LanguagePair(*pair))

    def generate(self, sources, options=None, scores=False):
        from studio.inference import Generation

        return [Generation(fake_translation(source), []) for source in sources]


def planned(text, limit, pair=None) -> dict:
    """plan_lines' and translate's answers for `text` (`pair`: a model's languages, else the shipped ones)."""
    from studio.translation import plan_lines, translate

    model = FakeTranslator(limit, *([pair] if pair else []))
    result = translate(model, text.split("\n"))
    return {"text": text, "limit": limit, **({"pair": list(pair)} if pair else {}),
            "plan": plan_lines(model.preprocessor, text.split("\n")), "translation": result.text,
            "warnings": result.warnings}


def pair_case(pair) -> dict:
    """What a LanguagePair says of itself, of the kinds term protection passes through, and of LINES."""
    from studio.tasks import LanguagePair

    language = LanguagePair(*pair)
    return {"pair": list(pair), "korean_source": language.korean_source,
            "korean_to_english": language.korean_to_english, "english_target": language.english_target, "source_text": language.source_text,
            "protects": {kind: language.protects(kind) for kind in KINDS},
            "has_text": {line: language.has_text(line) for line in LINES}}


def language_pairs() -> list:
    """language_pair's answer for configs as a bundle's config.json writes its task (None: no task written)."""
    from studio.config import TaskConfig
    from studio.tasks import language_pair

    configs = [None, {"task": "translator", "source_lang": "en", "target_lang": "de"},
               {"task": "translator", "source_lang": "ko", "target_lang": "en"},
               {"task": "translator", "source_lang": "", "target_lang": ""},
               {"task": "chatbot", "source_lang": "ko", "target_lang": "ko"},
               {"task": "chatbot", "source_lang": "en", "target_lang": "de"}]
    answers = [language_pair(TaskConfig(**task) if task else None) for task in configs]
    return [{"task": task, "pair": [pair.source, pair.target]} for task, pair in zip(configs, answers)]


def cases() -> dict:
    from studio.tasks import LanguagePair
    from studio.translation import finish_sentence, fit_to_length, split_sentences

    return {
        "format": "transformer-studio-web-sentences/1",
        "written_by": "web/scripts/sentences-fixture.py",
        "split_sentences": [{"paragraph": p, "sentences": split_sentences(p)} for p in PARAGRAPHS],
        "fit_to_length": [{"sentence": s, "tokenizer": t, "limit": n, "pieces": fit_to_length(s, tokenizer(t), n)}
                          for s, t, n in FITS],
        "finish_sentence": [{"source": s, "output": o, "finished": finish_sentence(s, o)} for s, o in FINISHES] + [
            {"source": s, "output": o, "pair": list(pair), "finished": finish_sentence(s, o, LanguagePair(*pair))}
            for pair in PAIRS for s, o in FINISHES],
        "plan_lines": [planned(text, n) for text, n in TEXTS] + [
            planned(text, n, pair) for pair in PAIRS for text, n in TEXTS + PAIR_TEXTS],
        "pairs": [pair_case(pair) for pair in [("ko", "en"), *PAIRS, ("ja", "en")]],
        "language_pair": language_pairs(),
    }


def render(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's `studio`
    FIXTURE.write_text(render(cases()), encoding="utf-8")
    print(f"wrote {FIXTURE}")
