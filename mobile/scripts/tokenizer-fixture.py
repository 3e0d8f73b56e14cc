"""Writes mobile/android/src/test/resources/tokenizer-cases.json: what Python's SentencePiece answers (through
studio/text/tokenizers.py's SentencePieceTokenizer, so with the app's wrapper behaviour) for the lines that the
Android library's pure-Kotlin tokenizer (mobile/android/src/main/kotlin/transformerstudio/tokenizer/) must answer
alike; its JUnit tests check it. Rerun it after changing the shipped tokenizers, the wrapper or sentencepiece:

    .venv/bin/python mobile/scripts/tokenizer-fixture.py

Every line is composed here (seeded), never read from ../shared/data. The same lines go through each shipped
tokenizer (assets/*/tokenizer/shared.spm.model) and through two small models trained here with the options the
shipped ones do not use (no byte fallback, no charsmap, whitespace as suffix, kept extra whitespace), stored in the
fixture. Texts are JSON strings; a lone surrogate travels as a \\udxxx escape, which org.json reads back as it was.
Per model: "ids" (one list per text), "decoded" (the app's decode of those ids; null where it is the text itself)
and "decode_cases" (other id sequences, with specials, <unk> and broken UTF-8 byte pieces, and their decode).

tests/unit/test_mobile_fixtures.py fails while the committed file is not what this writes.
"""

import base64
import io
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "mobile" / "android" / "src" / "test" / "resources" / "tokenizer-cases.json"
MODELS = {"chatbot": "chatbot/tokenizer/shared.spm.model", "translator": "translator/tokenizer/shared.spm.model"}

KOREAN_SENTENCES = [
    "오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다.",
    "나는 학교에 간다.", "이 파일을 저장하시겠습니까?", "그는 책을 읽고 있었다.", "날씨가 좋다.", "영화 볼래?",
    "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?", "대학원 합격 하겠지?",
    "배고파", "오늘 너무 힘들었어", "주말에 뭐 하지?", "고마워", "안녕하세요", "고맙습니다", "서울",
    "정부는 내년 예산을 편성했다고 기획재정부가 발표했다.", "전문가들은 재원 마련이 가장 큰 과제라고 지적했다.",
    "경찰은 사고 원인을 조사하고 있다.", "이번 회의에서 두 나라 정상은 무역 문제를 논의했다.",
    "한국은행은 기준금리를 동결했다.", "삼성전자는 새 스마트폰을 공개했다.", "서울의 아파트 값이 다시 올랐다.",
    "어제 비가 많이 와서 길이 막혔어.", "우리 내일 같이 점심 먹을래?", "그 영화 진짜 재미있더라!",
    "시험 공부하느라 잠을 못 잤어.", "이 문제는 생각보다 훨씬 복잡하다.", "대통령은 기자회견에서 질문에 답했다.",
    "학생들은 도서관에서 공부하고 있었다.", "회사는 올해 직원을 더 뽑을 계획이다.", "아이들이 공원에서 뛰어논다.",
    "환경 단체는 플라스틱 사용을 줄이자고 호소했다.", "새로운 법안이 국회를 통과했다.", "그녀는 피아노를 잘 친다.",
    "왜 그렇게 생각해?", "진짜? 대박!", "ㅋㅋㅋ 진짜?", "ㅠㅠ 슬퍼", "헐... 어떡해", "음, 잘 모르겠어.",
    "북한은 동해상으로 탄도미사일을 발사했다고 합동참모본부가 밝혔다.", "코로나19 확진자가 다시 늘고 있다.",
    "올림픽 대표팀이 금메달을 땄다.", "주식 시장이 크게 흔들렸다.", "이 식당은 김치찌개가 맛있다.",
]
KOREAN_WORDS = {
    "subject": ["나는", "너는", "그는", "그녀는", "우리는", "정부는", "학생들은", "회사는", "경찰은", "시민들은",
                "대통령은", "선생님은", "친구가", "아이들이", "기자들은", "의사들은", "팀장님은", "엄마가"],
    "place": ["학교에서", "서울에서", "회사에서", "집에서", "공원에서", "도서관에서", "부산에서", "국회에서",
              "병원에서", "카페에서", "뉴욕에서", "제주도에서", "시장에서", "지하철에서"],
    "object": ["책을", "밥을", "커피를", "영화를", "음악을", "편지를", "보고서를", "법안을", "계획을", "사진을",
               "문제를", "예산을", "노래를", "숙제를", "김치를", "뉴스를"],
    "verb": ["읽었다", "먹었다", "마셨다", "봤다", "들었다", "썼다", "발표했다", "통과시켰다", "세웠다", "찍었다",
             "풀었다", "편성했다", "불렀다", "끝냈다", "만들었다", "전했다", "좋아한다", "기다린다"],
    "time": ["어제", "오늘", "내일", "지난주", "올해", "작년에", "아침에", "저녁에", "주말에", "요즘", "방금"],
    "end": [".", "?", "!", "...", "요.", "!!", " ㅋㅋ", ""],
}
ENGLISH_SENTENCES = [
    "Obama is the president.", "Citizens live in the city.", "Coffee is not needed.", "Seven people were killed.",
    "I go to school.", "Do you want to save this file?", "He was reading a book.", "The weather is nice.",
    "The government said on Tuesday that the budget would grow by 3.5 percent.", "Hello, world!",
    "Don't stop — it's e-mail.", "Café naïve façade résumé", "The quick brown fox jumps over the lazy dog.",
    "NASA launched the Perseverance rover to Mars.", "OpenAI's ChatGPT has more than 100 million users.",
    "The iPhone 15 Pro costs $999.", "He worked in New York in the 1990s.", "WHO issued new guidelines this week.",
    "According to the BBC, the temperature in London rose to 35 degrees Celsius.", "`` Solar Tree '' is a film 's hit",
]
ENGLISH_WORDS = ["the", "a", "government", "said", "people", "city", "president", "market", "today", "new", "data",
                 "Samsung", "Seoul", "Korea", "won", "trillion", "billion", "percent", "report", "police", "school",
                 "and", "of", "in", "to", "was", "were", "will", "not", "very", "quickly", "translation", "model",
                 "SentencePiece", "tokenizer", "Android", "Kotlin", "JVM", "GPU", "AI", "U.S.", "e-mail", "it's"]
NAMES = ["삼성전자(Samsung Electronics)", "바이든(Joe Biden)", "NASA", "BBC", "OpenAI", "ChatGPT", "BTS", "iPhone 15",
         "WHO", "LG", "K-pop", "Netflix", "YouTube", "뉴욕(New York)", "도이체반(Deutsche Bahn)", "McDonald's"]
# each a few characters that NFKC (the shipped models' nmt_nfkc charsmap) changes, odd spaces, invisible marks
FULL_WIDTH = "ＡＢＣｘｙｚ０１２３４５６７８９！？（）［］＠＃％＆＊＋－／：；＜＝＞～￥￦"
COMPATIBILITY = ["ｱ", "ｶﾞ", "ﾊﾟ", "①", "⑳", "㉑", "㎞", "㎏", "㎡", "ﬁ", "ﬂ", "²", "³", "½", "℃", "℉", "™", "Ⅻ",
                 "ⅷ", "㈜", "㍿", "㋀", "㌔", "ℌ", "𝐀", "𝕏", "ǆ", "ŉ", "ſ", "ﾡ", "ﾤ", "ㄱ", "ㅏ", "ㅋ", "ㅠ", "ㆍ", "…",
                 "‥", "〜", "・", "ｰ", "゛", "﹖", "︙", "Ａ", "ａ", "㊙", "🄰", "🅐", "⒜", "⑴", "⒈", "¼", "ℵ", "Å", "Ω"]
SPACES = ["\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\u00a0", "\u1680", "\u2000", "\u2002", "\u2003", "\u2009",
          "\u200a", "\u202f", "\u205f", "\u3000", "\u2028", "\u2029", "\x85", "  ", "   "]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\u200f", "\u202a", "\u202e",
             "\u2066", "\u2069", "\u180e", "\u034f", "\ufe0f", "\ufe0e", "\U000e0001", "\U000e0041", "\u3164",
             "\u115f", "\u1160", "\uffa0"]
CONTROLS = [chr(c) for c in range(0x00, 0x20)] + ["\x7f", "\x80", "\x9b", "\x9f", "\x1b[31m", "\x1b]0;x\x07"]
EMOJI = ["😀", "🙂", "😂", "🥲", "🤖", "🔥", "❤️", "❤", "👍", "👍🏽", "👍🏿", "👩‍👩‍👧‍👦", "👨‍👩‍👧", "🏳️‍🌈", "🏴‍☠️",
         "🇰🇷", "🇺🇸", "🇯🇵", "🇪🇺", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "1️⃣", "#️⃣", "©️", "™️", "⌚️", "⏰", "🧑‍💻", "👩🏻‍🔬",
         "🫠", "🫶", "🪿", "🫨", "🩷", "🧌", "🐈‍⬛", "❤️‍🔥", "😶‍🌫️", "🤌🏼"]
CJK = ["漢字", "中华人民共和国", "你好世界", "こんにちは、世界", "東京都", "カタカナ", "ひらがな", "日本語の文章です。",
       "大韓民國", "學校", "𠀀", "𪚥", "𠮷野家", "丽", "﨑", "塚", "〇", "々", "ヶ", "ゟ", "㐀", "鿿", "豈", "晴れ時々曇り"]
COMBINING = ["e\u0301", "a\u0308", "n\u0303", "가\u0301", "\u1112\u1161\u11ab\u1100\u1173\u11af", "\u1100\u1161\u11a8",
             "ᄀᄁᄂ", "Z̸̢͖̓a̷̠͗l̵͚̈́g̴̙̋o̵̘̊", "o\u0338", "\u0915\u094d\u0937", "a\u20dd", "x\u0332\u0332",
             "\u0301", "\u0301\u0302\u0303", "i\u0307", "ﬃ\u0301", "Å", "A\u030a"]
# characters Unicode added after 14.0 (Python 3.11's tables): 15.0, 15.1 and 16.0
NEWER_UNICODE = ["\U0001fae8", "\U0001f6dc", "\U0001fa75", "\U0001f426\u200d\u2b1b", "\U00031350", "\U000323af",
                 "\U00011f00", "\U0001e030", "\U00011b00", "\U0002ebf0", "\u2ffc", "\u31ef", "\U0001fae9",
                 "\U0001fa89", "\U0001fadf", "\U00016d40", "\U0001ccd6", "\u1c89", "\U000105c0", "\U0001f8b2"]
SPECIAL_TEXTS = ["<s>", "</s>", "<pad>", "<unk>", "<bt>", "<0x41>", "<bt><bt>", "<BT>", "<b t>", "<bt", "bt>",
                 "\u2581", "\u2581\u2581", " \u2581 ", "a\u2581b", "\u2581hello", "\u2047", " \u2047 "]
LONE_SURROGATES = ["\ud800", "\udfff", "안녕\udcff", "\ud83d", "a\ud800b\udc00c", "\udc00\ud800", "\udfff😀",
                   "😀\ud800", "\ud800 \udc00", "가\udb40나", "\ud800\ud800", "\udc00\udc00x", " \ud800 ", "\ud83d!"]


def korean_sentence(rng: random.Random) -> str:
    w = KOREAN_WORDS
    parts = [rng.choice(w["time"]), rng.choice(w["subject"]), rng.choice(w["place"]), rng.choice(w["object"]),
             rng.choice(w["verb"])]
    if rng.random() < 0.3:
        parts.insert(rng.randrange(len(parts)), rng.choice(NAMES))
    return " ".join(parts) + rng.choice(w["end"])


def english_sentence(rng: random.Random) -> str:
    words = [rng.choice(ENGLISH_WORDS) for _ in range(rng.randint(1, 14))]
    words[0] = words[0][:1].upper() + words[0][1:]
    return " ".join(words) + rng.choice([".", "?", "!", "", ",", ";", "..."])


def amount(rng: random.Random) -> str:
    """Numbers, Korean amounts, dates and times as Korean news writes them."""
    n = rng.randint
    return rng.choice([
        f"{n(1, 999)}조 {n(1, 9)}천억 원", f"{n(1, 99):,}조 {n(1, 9999):,}억 원", f"{n(1, 9999):,}명",
        f"{n(1900, 2030)}년 {n(1, 12)}월 {n(1, 31)}일", f"{n(1, 12)}월 {n(1, 31)}일", f"오후 {n(1, 12)}시 {n(0, 59)}분",
        f"{n(0, 23):02d}:{n(0, 59):02d}", f"{n(1, 99)}.{n(0, 99)}%", f"${n(1, 99999):,}.{n(0, 99):02d}",
        f"{n(1, 999)}만 {n(1, 9999)}천 원", f"{n(1990, 2010)}~{n(2011, 2030)}년", f"{n(1, 100)}배", f"섭씨 {n(-30, 45)}도",
        f"{n(1, 9)}억 {n(1000, 9999)}만 달러", f"{n(1, 999_999_999):,}", f"{n(0, 10**12)}", f"{n(1, 99)}세",
        f"제{n(1, 30)}회", f"{n(1, 9)}.{n(0, 9)}km", f"{n(1, 99)}kg", f"{n(1, 9999)}㎡",
        f"0{n(10, 99)}-{n(100, 9999)}-{n(1000, 9999)}", f"{n(1, 4)}분기", f"{n(1, 99)}개", f"{n(1, 100)}번째", "1,500명",
        "3조 5천억 원", "2018년 9월 30일",
        "9조 1,000억 원", "656조 9천억 원", "6·25 전쟁", "3.14159", "-1", "1e308", "12345678901234567890", "٣٤٥", "一二三"])


def placeholder_line(rng: random.Random) -> str:
    """The placeholders the app's protection puts in a source (Xq1, Xq12, ...)."""
    marks = [f"Xq{rng.randint(1, 40)}" for _ in range(rng.randint(1, 4))]
    words = korean_sentence(rng).split()
    for mark in marks:
        words.insert(rng.randrange(len(words) + 1), rng.choice([mark, mark + "는", mark + "의", f"({mark})", mark + ","]))
    return " ".join(words)


def newer_unicode(rng: random.Random) -> str:
    return rng.choice(KOREAN_SENTENCES)[: rng.randint(0, 8)] + rng.choice(NEWER_UNICODE) + rng.choice(["", " 좋아", "!"])


def random_code_points(rng: random.Random) -> str:
    """A few code points from anywhere (assigned or not, any plane), surrogates aside."""
    out = []
    for _ in range(rng.randint(1, 6)):
        top = rng.choice([0x7F, 0x800, 0x3400, 0x10000, 0x30000, 0x110000])
        code = rng.randrange(top)
        out.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "\ufffd")
    return "".join(out)


def nfkc_changes(rng: random.Random, count: int) -> list[str]:
    """`count` characters whose NFKC differs, drawn from all of them, each in a short context."""
    changed = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
               and unicodedata.normalize("NFKC", chr(c)) != chr(c)]
    picks = rng.sample(changed, count)
    return [rng.choice(["", "가", "a ", "1"]) + char + rng.choice(["", "나", " b", "2"]) for char in picks]


def mix(rng: random.Random, pools: list[list[str]]) -> str:
    text = "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(2, 7)))
    return re.sub("(?<=[\ud800-\udbff])(?=[\udc00-\udfff])", " ", text)  # two lone surrogates, not a pair


def long_lines(rng: random.Random) -> list[str]:
    """Very long lines: a paragraph, runs of one character, a long random mix, and path scores past -100,000."""
    paragraph = " ".join(rng.choice(KOREAN_SENTENCES) for _ in range(120))
    pools = [KOREAN_SENTENCES, ENGLISH_SENTENCES, EMOJI, CJK, COMPATIBILITY, SPACES, list(FULL_WIDTH)]
    mixed = "".join(rng.choice(rng.choice(pools)) for _ in range(700))
    return [paragraph[:6000], "가" * 3000, "a" * 5000, "ㅋ" * 1500, "😀" * 800, "1" * 3000, "." * 2000, "?!" * 1500,
            " ".join(amount(rng) for _ in range(300)), mixed[:5000], "오바마는 대통령이다. " * 300,
            "가 나 다 라 " * 1000, "https://example.com/" + "a" * 3000, "\u3000" * 500 + "끝" + " " * 500,
            # unknown one-byte characters until the path scores pass -100,000, where sentencepiece rebases them, then
            # splits that float rounding decides: without the rebase the chatbot's (2279) and the translator's (1892)
            # would split the tail differently
            *("\\|" * n + " 1,000,000,000,000 2,000,000 ...... ........ 3000년 ㅋㅋㅋㅋㅋㅋ !!!! ???? 하하하하하"
              for n in (2279, 1892))]


def lines() -> list[str]:
    """The lines every tokenizer encodes (a fixed list from a seeded generator; no lone surrogate pair can form)."""
    sys.path.insert(0, str(ROOT))
    from studio.tasks import task_named

    rng = random.Random(56)
    golden = [text for task in ("chatbot", "translator") for text in task_named(task).golden]
    found = golden + KOREAN_SENTENCES + ENGLISH_SENTENCES + SPECIAL_TEXTS + LONE_SURROGATES + CJK + COMBINING
    found += ["", " ", "  ", "\t", "\n", "\r\n", "   \n\t  ", "\u3000", "\u200b", "\u00a0\u00a0", "\ufeff", "\x00",
              "\x00" * 20, " a ", "\u3000가\u3000", "\ufffd", "\ufffd" * 3, "\U0010ffff", "\ue000\uf8ff", "\U000f0000"]
    found += EMOJI + NEWER_UNICODE + COMPATIBILITY + list(FULL_WIDTH) + CONTROLS + SPACES + INVISIBLE
    found += [korean_sentence(rng) for _ in range(420)]
    found += [english_sentence(rng) for _ in range(260)]
    found += [f"{korean_sentence(rng)} {english_sentence(rng)}" for _ in range(120)]
    found += [f"{rng.choice(KOREAN_WORDS['subject'])} {amount(rng)}{rng.choice(['을', '를', '이', '가', ' 늘었다.', ''])}"
              for _ in range(260)]
    found += [placeholder_line(rng) for _ in range(80)] + ["Xq1", "Xq12", "Xq1 Xq12", "xq1", "XQ12", "Xq1Xq2"]
    found += [f"<bt> {korean_sentence(rng)}" for _ in range(30)] + [f"{korean_sentence(rng)}<bt>{amount(rng)}"
                                                                  for _ in range(10)]
    found += [mix(rng, [EMOJI, KOREAN_SENTENCES, [" "]]) for _ in range(120)]
    found += [mix(rng, [CJK, KOREAN_SENTENCES, COMPATIBILITY, list(FULL_WIDTH)]) for _ in range(100)]
    found += [mix(rng, [SPACES, INVISIBLE, CONTROLS, KOREAN_SENTENCES, ENGLISH_WORDS]) for _ in range(160)]
    found += [mix(rng, [COMBINING, NEWER_UNICODE, SPECIAL_TEXTS, KOREAN_WORDS["object"]]) for _ in range(80)]
    found += [mix(rng, [LONE_SURROGATES, KOREAN_SENTENCES, EMOJI]) for _ in range(40)]
    found += [newer_unicode(rng) for _ in range(60)]
    found += nfkc_changes(rng, 260)
    found += [random_code_points(rng) for _ in range(200)]
    found += long_lines(rng)
    for text in found:  # a high surrogate before a low one would come back from JSON as one character
        assert not re.search("[\ud800-\udbff][\udc00-\udfff]", text), ascii(text)
    return found


def decode_cases(tokenizer, texts: list[str], rng: random.Random, count: int) -> list[list[int]]:
    """Id sequences to decode: encodings with specials and <unk> put in, random pieces (byte pieces that form
    valid, cut or broken UTF-8, pieces starting with the space mark), and out-of-order mixes."""
    pieces = [tokenizer.id_to_piece(i) for i in range(tokenizer.vocab_size)]
    ids_of = {piece: i for i, piece in enumerate(pieces)}
    bytes_ids = [i for i, piece in enumerate(pieces) if re.fullmatch("<0x[0-9A-F]{2}>", piece)] or [tokenizer.unk_id]
    spaced = [i for i, piece in enumerate(pieces) if piece.startswith("\u2581")]
    found = []
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:
            ids = tokenizer.encode(rng.choice(texts)[:200])
            for _ in range(rng.randint(1, 3)):
                ids.insert(rng.randint(0, len(ids)), rng.choice([0, 1, 2, 3, 3]))
        elif kind == 1:
            ids = [rng.choice(bytes_ids) for _ in range(rng.randint(1, 8))]
        elif kind == 2:
            utf8 = rng.choice(texts)[:20].encode("utf-8", "replace")
            ids = [ids_of.get(f"<0x{b:02X}>", tokenizer.unk_id) for b in utf8[rng.randint(0, 2):]]
            ids = ids[: rng.randint(0, len(ids))] if rng.random() < 0.5 else ids
            ids.insert(rng.randint(0, len(ids)), rng.choice(spaced + [3, 0, 1]))
        else:
            ids = [rng.choice([rng.randrange(len(pieces)), rng.choice(spaced), rng.choice(bytes_ids), 3])
                   for _ in range(rng.randint(0, 12))]
        found.append(ids)
    return found


def variant_models(texts: list[str]) -> dict[str, bytes]:
    """Two small models trained here on the lines, with the options the shipped ones do not use."""
    import sentencepiece as spm

    corpus = [t for t in texts if re.fullmatch("[가-힣A-Za-z0-9 .,?!'()$%~:-]{1,300}", t)]
    common = dict(vocab_size=1000, model_type="unigram", pad_id=0, bos_id=1, eos_id=2, unk_id=3, num_threads=1,
                  hard_vocab_limit=False, minloglevel=2, character_coverage=0.98, shuffle_input_sentence=False)
    options = {
        # no byte fallback (unknown characters merge into one <unk>), no charsmap, user symbols inside words
        "plain-unk": dict(normalization_rule_name="identity", byte_fallback=False, user_defined_symbols=["<bt>", "Xq"]),
        # whitespace as suffix, extra whitespace kept, no dummy prefix, byte fallback
        "suffix-spaces": dict(normalization_rule_name="identity", byte_fallback=True, treat_whitespace_as_suffix=True,
                              remove_extra_whitespaces=False, add_dummy_prefix=False, user_defined_symbols=["<bt>"]),
    }
    models = {}
    for name, extra in options.items():
        buffer = io.BytesIO()
        spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_writer=buffer, **common, **extra)
        models[name] = buffer.getvalue()
    return models


def answers(tokenizer, texts: list[str], decode_ids: list[list[int]]) -> dict:
    encoded = [tokenizer.encode(text) for text in texts]
    decoded = [tokenizer.decode(ids) for ids in encoded]
    return {"ids": encoded, "decoded": [None if text == back else back for text, back in zip(texts, decoded)],
            "decode_cases": [{"ids": ids, "decoded": tokenizer.decode(ids)} for ids in decode_ids]}


def cases() -> dict:
    sys.path.insert(0, str(ROOT))
    import sentencepiece as spm

    from studio.text.tokenizers import SentencePieceTokenizer

    texts = lines()
    models = {}
    for name, path in MODELS.items():
        tokenizer = SentencePieceTokenizer((ROOT / "assets" / path).read_bytes())
        models[name] = {"model": path, **answers(tokenizer, texts, decode_cases(tokenizer, texts, random.Random(name),
                                                                                   400))}
    for name, proto in variant_models(texts).items():
        tokenizer = SentencePieceTokenizer(proto)
        models[name] = {"model_base64": base64.b64encode(proto).decode("ascii"),
                        **answers(tokenizer, texts, decode_cases(tokenizer, texts, random.Random(name), 200))}
    return {"format": "transformer-studio-tokenizer-cases/1", "written_by": "mobile/scripts/tokenizer-fixture.py",
            "sentencepiece": spm.__version__, "unicode": unicodedata.unidata_version, "texts": texts, "models": models}


def _dumps(value) -> str:
    """JSON as UTF-8 text, one list item per line for short diffs; lone surrogates (which UTF-8 cannot carry) as
    \\udxxx escapes."""
    if isinstance(value, dict):
        return "{" + ",\n".join(f"{json.dumps(k)}: {_dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and value and not isinstance(value[0], int):
        return "[\n" + ",\n".join(_dumps(item) for item in value) + "]"
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group(0)):04x}", text)


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(_dumps(cases()) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size:,} bytes)")
