"""Writes web/test/protect-cases.json: Python's answers (studio/text/protect.py, numbers.py, transliteration.py and
translation.py's _unprotect) for the cases that web/src/protect.js, numbers.js and transliteration.js must answer alike
(web/test/protect.test.mjs checks it). Rerun it after changing term protection, and port the change:

    .venv/bin/python web/scripts/protect-fixture.py

tests/unit/test_web_fixtures.py fails while the committed file is not what this writes.
"""

import json
import re
import sys
import unicodedata
from pathlib import Path
from types import SimpleNamespace

FIXTURE = Path(__file__).resolve().parents[1] / "test" / "protect-cases.json"

SAMSUNG = "삼성전자\tSamsung Electronics\n삼성\tSamsung\n"

# (source, glossary TSV or None, auto)
PROTECT = [
    ("삼성전자는 Zoran Zaev 대표와 https://example.com/a?b=1 에서 5kg, $20, 3.5% 삼성", SAMSUNG, True),
    ("삼성전자 AIR", "성전\ttemple\nAI\tartificial intelligence\n", False),
    ("Xq1 회의는 Xq1", "회의\tsummit\n", True),
    ("Zoran Zaev 5kg", None, False),
    ("삼성 원자로 삼성", "삼성\tSamsung\n원자로\treactor\n", True),
    ("삼성(Samsung) 회의에서 만났다", "삼성\tSamsung\nSamsung\t삼성전자\n", True),  # a term inside another's bracket
    ("터키의 Yıldız Holding은 투자를 발표했다", None, True),
    ("자세한 내용은 https://example.com/news/2024/article 참고", None, True),
    ("How are you doing today?", None, True),
    ("I love Seoul in May", "Seoul\t서울\n", True),
    ("삼성 무게는 " + ", ".join(f"{i}kg를 가진 상자" for i in range(12)), "삼성\tSamsung\n", True),
    ("Xq7 회의는 열린다", None, True),
    ("영국의 통신사인 Tiscali와 BSkyB, 그리고 Virgin Media는 스위스 IOC 본부에서 만났다고 밝혔다", None, True),
    ("Seq1 팀과 국제올림픽위원회", "국제올림픽위원회\tIOC\n", False),
    ("삼성은 삼성에서 삼성이다", "삼성\tSamsung\n", False),
    ("삼성에서는 삼성과의 삼성이라는 삼성으로부터 삼성엔 삼성만의", "삼성\tSamsung\n", False),
    ("삼성전자 삼성동 삼성시장", "삼성\tSamsung\n", False),
    ("1" * 2000, None, True),
    ("가" * 1990 + " 30억 달러를", None, True),  # over MAX_PROTECTED_CHARS: as it is
    ("가" * 1986 + " 30억 달러를", None, True),  # 2,000 characters: protected
    ("😊" * 1000 + " 30억 달러", None, True),  # 1,007 code points, 2,007 UTF-16 units: protected
    *((f"정부는 {korean} 썼다", None, True) for korean in [
        "30억 달러를", "3조 5천억 원이", "1억1천만 달러", "12조3천억 번", "135만 톤", "6백만 파운드", "3백만불에", "1억 유로",
        "1만8500메가와트", "1만 2천 명", "3.5조 원", "10억원을", "1만 엔진", "3천5백만 달러를", "1조2천5백억원", "1만2천5백 명",
        "2만 3천 5백 원", "3만 원으로", "3조원대", "100만 3회", "5천만 위안을", "３０억 달러를", "123456789012,345,678,901,234.123456만 원을"]),
    *((korean, None, True) for korean in [
        "제3조에 따라", "제 3조에", "헌법 1조 1항", "형법 250조에", "2조로 나뉘어", "3만큼 더", "3만 2억", "2024년 5월", "유로존 국가",
        "연봉 1억 5천", "2억 500", "9" * 27 + "조 원", "1" * 40 + "만", "3원칙", "100엔진", "3불안", "위안부 2명"]),
    ("국영 철도 회사인 도이체반(Deutsche Bahn)의 파업", None, True),
    ("녹색 일자리 펀드 (Green Jobs Fund)를 받았다", None, True),
    ("화가 비센테 시소(Vicente Siso)의 작품", None, True),
    ("그레그스( Greggs )는", None, True),
    ("4세기에 쓰여진‘코덱스 시나이티쿠스(Codex Sinaiticus)’ 필사본", None, True),
    *((korean, None, True) for korean in [
        "국민 보건 서비스(NHS)의 몰락", "상장지수펀드(ETFs)", "웹사이트 (www.example.org)", "그는 (Deutsche Bahn) 말했다",
        "(Green Jobs Fund)", "3월(March)에", "'독일을 위한 대안'(AfD)은", "짐바브웨아프리카민족연맹-애국전선(ZANU-PF)",
        "'Fed'(Fed Reserve)"]),
    ("도이체반(Deutsche Bahn)", None, False),
    ("규모 6.8의 강진이 2011년에 2개 도시에서 배럴당 124.44, 25,000명", None, True),
    ("버전 1.2.3과 3.5%, 192.168.0.1에서", None, True),
    *((korean, None, True) for korean in [
        "물가는 3~4% 올랐다", "가격은 1.5~2.5배", "2020~2023년에", "10:30~11:45에", "$10~$20이다", "15 ~ 20℃로", "5∼10kg을",
        "오전 10:30에", "오후 2:00~3:30까지", "1995〜2005년 사이", "오후\u30002:00에",
        "오후 2시에", "오전 0시 26분 발생", "오후 2시 30분~4시까지", "오후 2시간 동안", "오전 8시부터", "오후 5:00~6시",
        "오후 ２시 ５분", "오후 0시 30분", "리셉션은 오후 6~8시에", "오전 0 ~ 2시 30분", "오후 6~8시간"]),
    *((korean, None, True) for korean in [
        "배럴당 127.95달러에", "가격은 5달러다", "1,000원을", "1,000,000원", "15,000원짜리", "10유로", "면적은 605.2 km²이다",
        "부피는 3m³", "좋아요😊👍", "▲ 첫째", "※ 참고: 화살표 → 방향", "· 첫째 항목", "가·나 다", "기온 30℃, 화씨 86°F",
        "₩5,000과 €10, £3.5, ¥100", "풍속 5m/s", "10:30:15에 시작", "3월 5일 오후 2시"]),
    ("제3조에 따르면 100만 원 이하의 벌금", None, True),
    ("회의는 100만 원 100만 원", None, True),
    ("브루스터 브라더스(Brewster Brothers)의 가게와 Tiscali의 망", None, True),
    ("삼성전자(Samsung Electronics)는 삼성전자와", "삼성전자\tSamsung Electronics\n", True),
    ("2024년 3월 31일에 Zoran Zaev는 말했다", None, True),
    *((korean, None, True) for korean in ["수출은 ▲3.5% 증가했다", "기온은 ±5도 변동했다", "크기 3×4 입니다", "😊5개를 샀다"]),
    ("국민보건서비스(" + "ab-cd ef " * 200, "국민보건서비스\tNHS\n", True),
    ("비센테 시소(Vicente Siso)의 작품이다(사진 제공: 비센테 시소).", None, True),
    ("ITV의 드라마 '베이트 씨 대 우체국(Mr Bates Vs The Post Office)'은 놀라운 일을 해내고 있다", None, True),
    ("프랑스 대통령 François Hollande는 독일 총리의 보좌관 José Müller와 함께 쾰른(Köln)에서 만났다", None, True),
    ("미 합동태풍경보센터(Joint Typhoon Warning Center, JTWC)가 전했다", None, True),
    ("국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다", "Deutsche Bahn\tDB\n", True),
    ("수출 비중은 3%, 3%, 5% 순이다", None, True),
    ("문의는 kim.lee@example.co.kr 또는 www.naver.com/help?q=1. 로", None, True),
    ("COVID-19 백신과 iPhone 15 Pro, Jean-Claude Van Damme의 A.I. 기술", None, True),
    ("İstanbul과 Ærø, Łódź에서", None, True),
    ("😊Köln에서 xq3와 XQ4를 보았다", None, True),
    ("Samsung의 Galaxy S24는 3.5%의 점유율", None, True),
    ("서울(Seoul)과 부산(Busan)에서 열린 회의", None, True),
    ("앙겔라 메르켈(Angela Merkel) 총리와 메르켈 총리는", None, True),
    ("東京タワーは高い", None, True),
    ("これは Samsung の 30억 달러", None, True),
    ("Xq1 Xq2 Xq3 안녕", None, True),
    ("회의는 12.5억 달러, 0.5조 원, 1.5만 명", None, True),
    ("유니코드 숫자 ١٢٫٥와 ３.５%, ２０２４.０３.１５", None, True),
    ("회의\u00a0참석자는 30\u00a0억 달러를", None, True),
]

# (source, glossary TSV or None, auto, (source language, target language)): a model of another pair protects
# addresses and the glossary's terms only (studio.tasks.LanguagePair.protects), and only a Korean source is left as
# written when it looks like another language
PAIR_PROTECT = [
    ("Visit https://example.com/a?b=1 or write to kim.lee@example.com: 5kg, $20, 3.5% for Zoran Zaev at 2:00",
     None, True, ("en", "de")),
    ("Samsung Electronics met Zoran Zaev in 2024, 30 years on", "Samsung Electronics\tSamsung\n", True, ("en", "de")),
    ("See https://example.com/a", None, False, ("en", "de")),
    ("삼성전자는 Zoran Zaev 대표와 https://example.com/a?b=1 에서 5kg, 30억 달러, 오후 2시에 만났다", SAMSUNG, True,
     ("ko", "de")),
    ("How are you doing today? https://example.com/a", None, True, ("ko", "de")),
    ("How are you doing today? https://example.com/a", None, True, ("en", "de")),
    ("도이체반(Deutsche Bahn)은 2024년 9월 3일 30% 올랐다", None, True, ("ko", "ja")),
    ("Die Bahn kostet 6,8 Mrd. Euro: https://bahn.de", None, True, ("de", "en")),
]

# (document, glossary TSV or None, auto, later sentences to protect)
REMEMBER = [
    ("터키 기업 일디즈(Yıldız)가 발표했다. 일디즈(YILDIZ)는 컸다.", None, True, ["일디즈(YILDIZ)는 컸다.", "일디즈는 컸다."]),
    ("국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다.\n\n도이체반과 그레그스는 만났다\n"
     "녹색 일자리 펀드 (Green Jobs Fund)를 받았다. 녹색 일자리 펀드는 컸다.\n그레그스(Greggs)의 가격은 올랐다.", None, True,
     ["도이체반과 그레그스는 만났다", "녹색 일자리 펀드는 컸다.", "그레그스(Greggs)의 가격은 올랐다."]),
    ("국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다.\n도이체반과 그레그스는 만났다\n그레그스(Greggs)의 가격", None, False,
     ["도이체반과 그레그스는 만났다"]),
    ("국영 철도 회사인 도이체반(Deutsche Bahn)은 파업했다.\n도이체반과 그레그스는 만났다\n그레그스(Greggs)의 가격",
     "도이체반\tDB\n", True, ["도이체반과 그레그스는 만났다"]),
    ("텍스트 (richtext)로 쓴다. 선(Zen)을 배운다.", None, True, ["텍스트로 쓴 선"]),
    ("국제 인권단체 휴먼라이츠워치(Human Rights Watch)가 성명을 냈다.", None, True,
     ["휴먼라이츠워치(HRW)는 중국 정부를 다시 비판했다.", "휴먼라이츠워치(Human Rights Watch)는 다시 비판했다."]),
    ("일본 나라(Nara)현의 사슴. 빵집 그레그스(Greggs). 다시 그레그스(Gregs).", None, True, ["이 나라의 경제는 그레그스를 닮았다"]),
    ("가나 " * 300 + "(" + " ".join(["Gana"] * 300) + ")", None, True, ["가나의 경제"]),
    ("회담에는\n앙겔라\n메르켈(Angela Merkel) 총리가 왔다.", None, True, ["앙겔라 메르켈 총리는 말했다", "메르켈은 말했다"]),
    ("회담에는 앙겔라\t메르켈(Angela Merkel) 총리가 왔다.", None, True, ["앙겔라 메르켈 총리는 말했다", "메르켈은 말했다"]),
    ("화가 비센테 시소(Vicente Siso)의 작품. 이후 시소(Seesaw)를 탔다. 그레그스(Greggs)와 그레그스 (GREGGS)",
     None, True, ["비센테 시소는 그레그스에 갔다"]),
    ("축구 선수 킬리안 음바페(Kylian Mbappé)와 크리스티아누 호날두(Cristiano Ronaldo)", None, True,
     ["음바페와 호날두, 킬리안 음바페는 뛰었다"]),
    ("베를린의 그로세 슈트라세(Große Strasse)에서", None, True, ["그로세 슈트라세(GROSSE STRASSE)에서 만났다"]),
]

# REMEMBER's cases for a model of another pair: it remembers no names
PAIR_REMEMBER = [(*REMEMBER[1], ("ko", "de")), (*REMEMBER[0], ("en", "de"))]

ORIGINS = "미 합동태풍경보센터(Joint Typhoon Warning Center, JTWC)가 전했다"
TISCALI = "영국의 통신사인 Tiscali와 BSkyB, 그리고 Virgin Media는 스위스 IOC 본부에서 만났다고 밝혔다"
DRAMA = "ITV의 드라마 '베이트 씨 대 우체국(Mr Bates Vs The Post Office)'은 놀라운 일을 해내고 있다"

# (source, glossary TSV or None, auto, model outputs)
RESTORE = [
    (PROTECT[0][0], SAMSUNG, True, ["xq1 met Xq2 at Xq3; Xq6 Xq7 Xq10", "Xq1 Xq2 Xq3 Xq4 Xq5 Xq6 Xq7", ""]),
    ("Xq1 회의는 Xq1", "회의\tsummit\n", True, ["Xq1 is Xq1", "Xq1 Xq2 is Xq1 Xq1"]),
    ("삼성 원자로 삼성", "삼성\tSamsung\n원자로\treactor\n", True, ["Xq1 went", "Xq1 Xq2 Xq1 Xq1"]),
    (PROTECT[8][0], "삼성\tSamsung\n", True, ["Xq1 Xq10 Xq99 ok", "with theXq1) and AXq99"]),
    ("Xq7 회의는 열린다", None, True, ["Xq7 Xq8", "Xq7 and 1Xq7"]),
    (TISCALI, None, True, ["Seq1, X Q2 and X-q3 at the \"raq4 Xq4 headquarters, Aq9", "ETq1 and X q2 and Xq3 and Xq4",
                           "ſq1 and İq2 and \u212aq3 and ıq4", "Seq1 Seq1 Xq2", "SEQ1 x-Q2 XQ3 xq4",
                           "İABCq1 and X2İ and Xq3 ıX4", "ABCq1 and X2 and Xq3 aX4"]),
    ("Sq1 팀과 국제올림픽위원회", "국제올림픽위원회\tIOC\n", False, ["ſq1 team and Xq1", "SQ1 team and Xq1"]),
    ("Seq1 팀과 국제올림픽위원회", "국제올림픽위원회\tIOC\n", False, ["Seq1 team and Xq1", "Seq2 team"]),
    ("정부는 30억 달러를 썼다", None, True, ["He Xq1", "He spent Xq1 and Xq1", "Xq1Xq1", "He spent X q1."]),
    ("제3조에 따르면 100만 원 이하의 벌금", None, True, ["For Xq1, below XQ1", "Xq1 is below Xq1 .", "Xq1 and Xq1",
                                              "Xq1 only"]),
    ("회의는 100만 원 100만 원", None, True, ["Xq1 Xq1 Xq1", "Xq1 Xq1"]),
    ("브루스터 브라더스(Brewster Brothers)의 가게와 Tiscali의 망", None, True,
     ["Xq1's shop and Xq2's network", "Xq1’s shop and Xq2’s network"]),
    ("2024년 3월 31일에 Zoran Zaev는 말했다", None, True, ["Under the 1Xq124 bill, he said", "Xq1 said 𐐨Xq1 and éXq1"]),
    ("Xq7 회의", None, True, ["Xq7 and 1Xq7"]),
    (DRAMA, None, True, ["Xq1's drama 'Xq2 'Xq2' is surprising", "the drama Xq2 “Xq2” is", "the drama 'Xq2' 'Xq2'"]),
    (ORIGINS, None, True, ["the center (X1q1, X2) said, as the franc (X23) did", "Xq1 and Xq2 saw X2q and x2",
                           "X1 said X2 and X3", "the center ( Xq9 ) and Xq1 ."]),
    ("수출 비중은 3%, 3%, 5% 순이다", None, True, ["Xq1, Xq1, Xq2 in order", "Xq1 Xq1 Xq1 Xq2"]),
    ("회의는 오후 2:00에 열린다", None, True, ["The meeting is at Xq1.", "The meeting is at Xq1..", "At Xq1... ok"]),
    ("수출은 ▲3.5% 증가했다", None, True, ["Exports rose Xq1 Xq2", "Exports rose Xq1Xq2"]),
    ("Samsung의 Galaxy S24는 3.5%의 점유율", None, True, ["Xq1's Xq2 has Xq3 share", "Xq", "The Xq1 met X", "Xq1 Xq"]),
    ("회의는 삼성에서 열린다", "삼성\tSamsung\n", True, ["the meeting is held at", "Xq1\u00a0\u3000,\tXq1"]),
    ("유니코드 숫자 ３.５%", None, True, ["Xq１ and Xq1", "X q１"]),
    # an article before a restored span agrees with it ("an Xq1" -> "a 3.5 trillion won"), its capital kept
    ("정부는 3조 5천억 원이 썼다", None, True, ["The government spent an Xq1", "An Xq1 budget", "It spent Xq1", "Dan Xq1",
                                          "a\tXq1", "an X q1", "an Xq9 and AN Xq1", "𐐨an Xq1", "anXq1"]),
    ("정부는 800만 원을 썼다", None, True, ["It spent a Xq1", "A Xq1 budget", "(a Xq1)"]),
    ("삼성의 새 휴대폰 Galaxy S24는 애플의 iPhone 15보다 훨씬 싸다", None, True,
     ["an Xq1 is cheaper than a Xq2", "A Xq2 and a Xq1", "Xq1a Xq2"]),
    ("수출은 ▲3.5% 증가했다", None, True, ["an Xq1 an Xq2", "An Xq2Xq1"]),
]

# texts restored after an article: how each is read aloud decides "a" or "an" (article_for)
ARTICLES = ["8", "11", "18", "80", "89%", "800", "8.5", "11 million won", "8,000", "11000", "18,000", "800,000", "$8",
            "8:30 p.m.", "3.5 trillion won", "100", "1,000", "1,100", "110", "181", "0.8", "$5", "€ 10", "12,34", "08",
            "FBI", "NHS", "A.I.", "US", "BBC", "NASA", "iPhone 15", "Oslo", "Galaxy S24", "COVID-19", "Uber", "X-ray",
            "▲", "“Parasite”", "Élysée", "３", "", " 8", "$", "8" * 40]

MEETING = "회의는 100만 원 만났다"
# (source, glossary TSV or None, the first pass's output, the second's)
SECOND_PASS = [
    ("터키의 Yıldız Holding은 투자를 발표했다", None, "Turkey's company announced an investment",
     "Turkey's Yildiz Holding announced an investment"),
    (MEETING, None, "the meeting is Xq1 Xq1 met", "the meeting is 1 million won met"),
    (MEETING, None, "the meeting is Xq1 Xq1 met", "the meeting is 1 million won and 1 million won met"),
    (MEETING, None, "the meeting is Xq1 Xq1 met", "the meeting is met"),
    ("회의는 삼성 에서 열린다", "삼성\tSamsung\n", "the meeting is at held", "the meeting is Samsung at held"),
    ("회의는 삼성 에서 열린다", "삼성\tSamsung\n", "the meeting is at held", "the meeting is at held"),
    ("삼성 애플 만났다", "삼성\tSamsung\n애플\tApple\n", "Xq1 met", "met"),
    ("삼성 애플 만났다", "삼성\tSamsung\n애플\tApple\n", "Xq1 met", "Xq1 met apple"),
    ("정부는 30억 달러를 3%에 썼다", None, "Xq1 Xq1 at Xq2 Xq2", "Xq1 at 3%"),
    ("정부는 30억 달러를 3%에 썼다", None, "Xq1 Xq1 at Xq2", "$3 billion at Xq2"),
]

WORDS = {"회의는": "the meeting is", "에서": "at", "열린다": "held", "대표와": "with CEO", "만났다": "met",
         "가격은": "the price is", "무게는": "the weight is"}


class WordTranslator:
    """Translates known words, copies everything else (protect.test.mjs has the same): "drops" leaves out the
    placeholders of a source it has not seen before (a model that forgets them once), "repeats" writes each
    placeholder twice in its first call (a model that repeats a number)."""

    def __init__(self, kind: str, pair=("ko", "en")):
        from studio.tasks import LanguagePair

        self.kind, self.seen, self.calls = kind, set(), 0
        self.preprocessor = SimpleNamespace(source_limit=1000, count_tokens=lambda text: len(text.split()),
                                            pair=LanguagePair(*pair))

    def generate(self, sources, options=None, scores=False):
        from studio.inference import Generation

        self.calls += 1
        results = []
        for source in sources:
            if self.kind == "repeats":
                words = [f"{w} {w}" if w.startswith("Xq") and self.calls == 1 else WORDS.get(w, w) for w in source.split()]
            else:
                words = [WORDS.get(w, w) for w in source.split()]
                if self.kind == "drops" and re.search(r"Xq\d", source) and source not in self.seen:
                    self.seen.add(source)
                    words = [w for w in words if not re.fullmatch(r"Xq\d+\W*", w)]
            results.append(Generation(" ".join(words), []))
        return results


# (text, translator, glossary TSV or None, auto): one piece per call where the translator's answers depend on calls
TRANSLATE = [
    ("회의는 삼성 에서 열린다", "drops", "삼성\tSamsung\n", True),
    (MEETING, "repeats", None, True),
    (REMEMBER[0][0], "words", None, True),
    (REMEMBER[0][0], "words", None, False),
    (REMEMBER[0][0], "words", "도이체반\tDB\n", True),
    (REMEMBER[0][0], "drops", None, True),
    ("가격은 30억 달러다. 회의는 오후 2:00에 열린다.\n\n무게는 5kg, 3~4% 이다!", "drops", None, True),
    ("삼성 애플 만났다", "drops", "삼성\tSamsung\n애플\tApple\n", True),
    ("회의는 Zoran Zaev 대표와 만났다. Xq9 회의는 열린다", "words", None, True),
]

# TRANSLATE's, with a model's (source language, target language)
PAIR_TRANSLATE = [
    ("The meeting met Zoran Zaev at https://example.com/a. 30 Xq9 items\n\n2024\nXq1 Xq2\nsee kim.lee@example.com!",
     "drops", "meeting\tTreffen\n", True, ("en", "de")),
    ("회의는 삼성 에서 열린다. 가격은 30억 달러다\nHello there\n도이체반(Deutsche Bahn)과 도이체반은 만났다", "drops",
     "삼성\tSamsung\n", True, ("ko", "de")),
]

# (korean, latin)
SOUNDS = [
    ("도이체반", "Deutsche Bahn"), ("그레그스", "Greggs"), ("휴먼라이츠워치", "Human Rights Watch"),
    ("비욘드 디이즈 월즈", "Beyond These Walls"), ("시나이티쿠스", "Codex Sinaiticus"), ("통신", "Australia Associated Press"),
    ("녹색 일자리 펀드", "Green Jobs Fund"), ("트리", "Solar Tree"), ("시간", "time"), ("트위터", "Twitter"),
    ("크리스티아누 호날두", "Cristiano Ronaldo"), ("이스탄불", "İstanbul"), ("뮌헨", "München"), ("슈바르츠", "Schwarz"),
    ("크라이슬러", "Chrysler"), ("", "Empty"), ("가나", ""), ("ㄱㄴ", "Gn"), ("오디세우스", "ΟΔΥΣΣΕΥΣ Odysseus"),
    ("카터", "Carter"), ("보르도", "Bordeaux"), ("마르틴 루터", "Martin Luther"), ("베르사유", "Versailles"),
]

LANGUAGE = ["How are you doing today?", "안녕하세요", "OK", "BTS", "Hello 안녕", "Привет, мир", "東京タワー",
            "Xq1 Xq2 Xq3 안녕", "https://example.com/some/long/path 안녕", "ㄱㄴㄷ abcdefg", "ﾡﾢﾣ abc", "ᄀᄂᄃ abcdef",
            "Samsung Galaxy는 좋다", "iPhone 15 Pro를 샀다", "", "123 456", "kim.lee@example.com 메일"]

GLOSSARIES = [
    ("# terms\n삼성\tSamsung\n\n삼성전자\t Samsung  Electronics \n", "glossary"),
    ("삼성\tSamsung\r\n애플\tApple\r\n삼성\tSamsung Group\n", "glossary"),
    ("삼성\tSamsung\n원자로 reactor\n", "terms.tsv"),
    ("삼성\tSamsung\n\t'quoted' \"too\"\\\n", "terms.tsv"),
    ("삼성\tSamsung\n원자로\treactor\tthird\n", "g.tsv"),
    ("가" * 201 + "\tlong\n", "g.tsv"),
    ("   # 주석\n\t\n삼성\u3000\tSamsung\u00a0Electronics\x85애플\tApple\u2028", "glossary"),
    ("삼성 = Samsung\n원자로→reactor\n중성자 -> neutron\n등식\tE = mc²\n 빈칸 =  two  words \n", "glossary"),
    ("삼성 = Samsung = Group\n", "glossary"),
    ("삼성 =\n", "glossary"),
    ("-> reactor\n", "glossary"),
    ("원자로 - > reactor\n", "glossary"),
    ("원자로 => reactor\n중성자=>neutron\n", "glossary"),
]


def span(s) -> dict:
    return {"placeholder": s.placeholder, "original": s.original, "english": s.english, "kind": s.kind}


def placeholders(spans) -> list:
    return [s.placeholder for s in spans]


def protector(glossary, auto, pair=None):
    """The protector of a request (`pair`: a model's (source, target) languages, else the shipped Korean→English)."""
    from studio.tasks import KOREAN_ENGLISH, LanguagePair
    from studio.text.protect import Glossary, Protector

    chosen = Protector(Glossary.parse(glossary) if glossary else Glossary(), auto=auto)
    return chosen.for_pair(LanguagePair(*pair) if pair else KOREAN_ENGLISH)


def with_pair(pair) -> dict:
    """A case's "pair" when it is not the shipped Korean→English (protect.test.mjs reads it)."""
    return {"pair": list(pair)} if pair else {}


def protected(p) -> dict:
    return {"text": p.text, "spans": [span(s) for s in p.spans], "written": sorted(p.written)}


def translate(text, kind, glossary, auto, pair=None) -> dict:
    from studio.translation import translate as translated

    model = WordTranslator(kind, *([pair] if pair else []))
    result = translated(model, text.split("\n"), protector=protector(glossary, auto))
    return {"text": text, "translator": kind, "glossary": glossary, "auto": auto, **with_pair(pair),
            "outputs": result.lines, "report": [[span(s), applied] for s, applied in result.report],
            "warnings": result.warnings}


def cases() -> dict:
    from studio.translation import _restored, _second_pass_wins
    from studio.text.numbers import AMOUNT
    from studio.text.protect import Glossary, Span, article_for, describe, language_sample
    from studio.text.script import looks_like
    from studio.text.transliteration import korean_sounds, latin_sounds, likeness, sounds_like

    restore = []
    for source, glossary, auto, outputs in RESTORE:
        shield = protector(glossary, auto).protect(source)
        answers = []
        for output in outputs:
            text, applied, dropped = shield.restore(output)
            repeated = shield.repeated(output)
            answers.append({"output": output, "text": text, "applied": placeholders(applied),
                            "dropped": placeholders(dropped), "repeated": placeholders(repeated),
                            "once": shield._once(output), "inline": shield.inline(dropped + repeated)})
        restore.append({"source": source, "glossary": glossary, "auto": auto, "protected": protected(shield),
                        "counts": shield._counts(), "outputs": answers})

    second = []
    for source, glossary, first_output, second_output in SECOND_PASS:
        shield = protector(glossary, True).protect(source)
        first = shield.restore(first_output)
        repeated = shield.repeated(first_output)
        written_in = first[2] + repeated
        again = _restored(shield, second_output, written_in)
        second.append({"source": source, "glossary": glossary, "first_output": first_output,
                       "second_output": second_output, "written_in": placeholders(written_in),
                       "inline": shield.inline(written_in),
                       "second": {"text": again[0], "applied": placeholders(again[1]), "dropped": placeholders(again[2])},
                       "wins": _second_pass_wins(shield, first, again, second_output, repeated)})

    translated = [translate(*case) for case in TRANSLATE + PAIR_TRANSLATE]
    amounts = sorted({m.group(0) for text, _, _ in PROTECT for m in re.finditer(AMOUNT, text)} | {
        "3만 2억", "2조", "2조 원", "250조", "3.5조", "0만 원", "1만", "3천5백만", "1,000,000,000,000,000,000,000,000만",
        "999999999999,999,999,999,999.999999조 달러", "1.000001만", "0.01만", "1.005억", "2천 500만 엔",
        "𝟛𝟘억 달러", "123456789012,345,678,901,234.123250만 원", "123456789012,345,678,901,234.123350만 원"})
    spans = [Span(f"Xq{i}", f"항목{i % 14}", f"item {i % 14}", "named" if i % 3 else "amount") for i in range(1, 30)]
    glossary_spans = [Span("Xq1", "삼성", "Samsung", "glossary"), Span("Xq2", "원자로", "reactor", "glossary")]
    reports = [case["report"] for case in translated] + [
        [[span(s), (i + 1) % 7 == 0] for i, s in enumerate(spans)],
        [[span(glossary_spans[0]), True], [span(glossary_spans[0]), False], [span(glossary_spans[1]), False]],
        [[span(Span("Xq1", "127.95달러", "$127.95", "amount")), False]],
        [[span(Span("Xq1", "127.95", "127.95", "figure")), False], [span(Span("Xq1", "127.95", "127.95", "figure")), False]],
    ]

    def glossary_case(text, name):
        try:
            return {"text": text, "name": name, "entries": [list(e) for e in Glossary.parse(text, name).entries]}
        except Exception as error:  # DataError: its message
            return {"text": text, "name": name, "error": str(error)}

    def remembered(document, glossary, auto, sentences, pair=None):
        memory = protector(glossary, auto, pair).remembering(document)
        return {"document": document, "glossary": glossary, "auto": auto, **with_pair(pair),
                "names": [list(e) for e in memory.names.entries],
                "protected": [{"source": s, **protected(memory.protect(s))} for s in sentences]}

    return {
        "format": "transformer-studio-web-protect/1",
        "written_by": "web/scripts/protect-fixture.py",
        "unicode": unicodedata.unidata_version,
        # letters (str.isalpha) whose Unicode name starts with HANGUL: what looks_like counts as Korean
        "hangul_letters": _ranges(lambda c: chr(c).isalpha() and unicodedata.name(chr(c), "").startswith("HANGUL")),
        "protect": [{"source": source, "glossary": glossary, "auto": auto, **with_pair(pair),
                     **protected(protector(glossary, auto, pair).protect(source))}
                    for source, glossary, auto, pair in [(*case, None) for case in PROTECT] + PAIR_PROTECT],
        "remembering": [remembered(*case) for case in REMEMBER + PAIR_REMEMBER],
        "restore": restore,
        "second_pass": second,
        "translate_lines": translated,
        "describe": [{"report": report, "line": describe([(Span(**s), applied) for s, applied in report])}
                     for report in reports],
        "amount_in_english": [{"text": text, "english": _amount(text)} for text in amounts],
        "sounds": [{"korean": k, "latin": latin, "korean_sounds": korean_sounds(k), "latin_sounds": latin_sounds(latin),
                    "likeness": likeness(k, latin), "sounds_like": sounds_like(k, latin)} for k, latin in SOUNDS],
        "language": [{"text": text, "sample": language_sample(text), "not_korean": bool(looks_like(language_sample(text)))}
                     for text in LANGUAGE],
        "glossaries": [glossary_case(text, name) for text, name in GLOSSARIES],
        "article_for": [{"text": text, "article": article_for(text)} for text in ARTICLES],
    }


def _amount(text):
    from studio.text.numbers import amount_in_english

    return amount_in_english(text)


def _ranges(wanted) -> list:
    ranges = []
    for code in range(0x110000):
        if wanted(code):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return ranges


def render(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository's `studio`
    FIXTURE.write_text(render(cases()), encoding="utf-8")
    print(f"wrote {FIXTURE}")
