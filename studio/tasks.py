"""What is particular to each task (chatbot, translator): the tutorials' prompts and sentences, the sample
inputs exports are verified on, and the words the app uses for them. Nothing here imports TensorFlow."""

from __future__ import annotations

from dataclasses import dataclass

from studio.generate.options import DecodeOptions
from studio.text.script import has_hangul


# how sampling draws when asked for without settings: both models were trained with label smoothing (0.1), which
# leaves a thin tail of probability over the whole vocabulary; a nucleus cut alone (top-p 0.9) reaches into it and
# writes words never seen in training (a quarter of the chatbot's sampled words), a top-k cut keeps the draw among
# the likely tokens (docs/chatbot-training.md, "Sampling defaults")
SAMPLING = (("temperature", 0.7), ("top_k", 20), ("top_p", 0.9))
MIN_DISTINCT = 0.2  # below this share of distinct outputs on its dev split, a model says one thing to everything


@dataclass(frozen=True)
class Task:
    name: str
    prompts: tuple[str, ...]  # the tutorials' own examples: UI examples, smoke tests, training's sample outputs
    samples: tuple[str, ...]  # a few more inputs, for export verification and benchmarks
    golden: tuple[str, ...]  # what other runtimes (web, mobile) must decode exactly as Python does
    empty_input: str  # what the app says to an empty input
    reads: str  # what the model takes, for the hint shown when an input looks like another language
    long_input_hint: str  # appended when an input is over the character limit
    # how the product decodes when the user asks for nothing else (the CLI, the tab, the API): keywords of
    # DecodeOptions, chosen on the dev sets (docs/translator-training.md, docs/chatbot-training.md)
    decoding: tuple[tuple[str, object], ...] = (("strategy", "greedy"), *SAMPLING)
    # cap each output by its source's length (`studio.generate.guards.length_cap`): a translation's length follows
    # its source's; a chat reply's does not (a two-word question can deserve a sentence), so the chatbot's replies
    # are bounded only by the model's capacity and the loop guard
    length_follows_source: bool = False
    # its outputs write only the numbers their source has (`studio.generate.figures`): a translation may not
    # change a year or a figure; a chat reply may bring its own
    keeps_figures: bool = False
    # its input is text to translate line by line and sentence by sentence, with protected terms
    # (`studio.translation.translate`); a chatbot replies to each input whole
    translates: bool = False
    # the inputs whose outputs a model card shows (`studio eval --record` decodes them the default way); the
    # tutorials' prompts unless a task names more
    showcase: tuple[str, ...] = ()
    # the input the Compare and Explore tabs show first (one of `prompts`)
    example: str = ""
    # what its outputs are called in messages
    outputs_are: str = "outputs"
    # `studio eval`'s set when none is named: the task's own held-out split (the chatbot's of ChatbotData,
    # `studio.data.sources.chatbot_dev_pairs`); "" = the named dev and test corpora of `studio data`
    held_out_set: str = ""
    # what `studio train` reads when given no --data files (`studio.data.sources`, `studio data`): "chatbot_csv"
    # (songys/Chatbot_data's ChatbotData.csv) or "koen_sources" (the Korean-English corpora --sources names)
    training_data: str = "koen_sources"
    # training leaves out a pair whose longer side has over this many times the other's tokens
    # (`studio.text.keep_pair`): misaligned pairs of noisy parallel corpora; a reply's length need not follow its
    # question's (None: no such limit)
    max_length_ratio: float | None = None
    # a chatbot's fluency (issue 11's measure): `studio eval --record` stores each score's share of distinct outputs,
    # and the model card shows its shares of repeating and distinct replies; without it, the card compares how
    # often the outputs repeat a word pair with how often the references do
    reply_fluency: bool = False
    # the model card's first known weakness, and the one it says instead when back-translated (synthetic) pairs
    # were part of its training ("" = the same)
    weakness: str = ""
    weakness_with_synthetic: str = ""
    # what the two sides of a training pair are called, what a pair with an empty side is counted as, and the header
    # names that say which column of an uploaded table is which (`studio.data.imports`)
    pair_roles: tuple[str, str] = ("question", "answer")
    empty_pair: str = "empty question or answer"
    column_names: tuple[tuple[str, ...], tuple[str, ...]] = (
        ("q", "question", "query", "input", "prompt", "user", "질문", "입력"),
        ("a", "answer", "response", "reply", "output", "bot", "답변", "대답", "응답", "출력"))
    # how a training job writes its pairs for the trainer: "csv" (ChatbotData's Q,A,label) or "tsv" (ko<TAB>en)
    pairs_file: str = "tsv"
    # the public corpus the Train tab offers to use (and download where it is missing), "" for none
    shared_data: str = ""
    # what the Train tab says of the models a fine-tune of this task can start from
    fine_tune_base: str = "the shipped model, or one of yours"
    # a model of this task whose greedy chrF on its own dev split is below this learned too little to be used as
    # it is (`learned_little`): measured, a chatbot that answers every question with one stock reply scores ~4 on
    # ChatbotData's split, the Train tab's small preset ~13, the shipped ensemble ~22
    usable_chrf: float = 8.0
    # how its replies can come (`studio.replies`), the default first: "retrieve" (a stored reply: the training
    # answer of the most similar question) or "generate" (the model's own words); () = always the model's
    reply_modes: tuple[str, ...] = ()

    @property
    def default_decoding(self) -> dict:
        return dict(self.decoding)

    def default_options(self):
        """`default_decoding` as the DecodeOptions the commands use when given no decoding flags."""
        return DecodeOptions(**self.default_decoding).validate()

    @property
    def card_inputs(self) -> tuple[str, ...]:
        return self.showcase or self.prompts

    def learned_little(self, chrf: float | None, distinct: float | None, pairs: int, minutes: float) -> str:
        """Why a trained model of this task is not usable as it is, with what would help, in words for the Train
        and Models tabs ("" when its dev figures show no such problem, or it has none). `distinct`: the share of
        distinct outputs on its dev split; `pairs` and `minutes`: its training pairs and training time."""
        if chrf is None:
            return ""
        found = [f"chrF {chrf:.1f} on its own dev split, where a usable {self.name} scores {self.usable_chrf:g} or "
                 "more"] if chrf < self.usable_chrf else []
        if distinct is not None and distinct < MIN_DISTINCT:
            found.append(f"only {distinct:.0%} of its {self.outputs_are} there differ from one another")
        if not found:
            return ""
        helps = ([f"more pairs (it trained on {pairs:,}; thousands help most)"] if pairs < 5000 else []) + \
                ([f"more minutes (it trained {minutes:.0f})"] if minutes < 30 else [])
        return (f"It learned little: {'; '.join(found)}. Expect mostly wrong {self.outputs_are}. What would help: "
                f"{' and '.join(helps) or 'cleaner pairs, or fine-tuning a trained model instead'}.")


CHATBOT = Task(
    name="chatbot",
    prompts=("영화 볼래?", "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?",
             "대학원 합격 하겠지?"),
    samples=("영화 볼래?", "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?",
             "대학원 합격 하겠지?", "배고파", "오늘 너무 힘들었어", "주말에 뭐 하지?", "고마워"),
    golden=("영화 볼래?", "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?",
            "대학원 합격 하겠지?", "배고파", "고마워", "안녕", "ㅋㅋㅋ 진짜?", "주말에 뭐 하지?",
            "오늘 너무 힘들었어", "BTS 노래 좋아해?", "내일 오후 3시에 만나자", "iPhone 15 살까 말까",
            "아 진짜 짜증나!!", "😀 기분 좋아", "  공백이   많은   문장  ",
            "요즘 잠이 안 와서 걱정이야. 밤마다 누워도 생각이 많아지고 아침에는 너무 피곤해. 어떻게 하면 좋을까? "
            "운동도 해 보고 커피도 줄여 봤는데 잘 모르겠어.",
            "회사에서 프로젝트 마감이 다가오는데 팀원들이 도와주지 않아서 혼자 야근을 계속하고 있어. 상사에게 "
            "말해야 할지 아니면 그냥 참아야 할지 고민이야. 너라면 어떻게 할 거야? 벌써 한 달째 이런 상황이라 "
            "몸도 마음도 지쳐 버렸어."),  # over the limit
    empty_input="Please type something first.",
    reads="this chatbot reads Korean",
    long_input_hint=".",
    example="지칠때 어떡하면 좋을까?",
    outputs_are="chat replies",
    held_out_set="chatbot_dev",
    training_data="chatbot_csv",
    pairs_file="csv",
    shared_data="ChatbotData",
    fine_tune_base="the shipped chatbot is an ensemble of three: fine-tune a model of your own",
    reply_fluency=True,
    # stored replies first: they score above the model's on held-out questions (docs/chatbot-training.md)
    reply_modes=("retrieve", "generate"),
    # said of any chatbot the app trains (ChatbotData's or a user's own pairs), so no corpus is named
    weakness="A small model that knows only its training pairs: replies are short, generic, and can ignore the "
             "question; it has no memory of earlier turns and no factual knowledge.",
)
TRANSLATOR = Task(
    name="translator",
    prompts=("오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다."),
    samples=("오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다.",
             "나는 학교에 간다.", "이 파일을 저장하시겠습니까?", "그는 책을 읽고 있었다.", "날씨가 좋다."),
    golden=("오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다.",
            "안녕하세요", "고맙습니다", "서울", "날씨가 좋다.", "이 파일을 저장하시겠습니까?",
            "삼성전자(Samsung Electronics)는 3분기 영업이익이 9조 1,000억 원이라고 밝혔다.",
            "\"우리는 포기하지 않을 것\"이라고 바이든(Joe Biden) 대통령이 말했다.",
            "2024년 7월 1일부터 요금이 5% 인상된다.", "NASA는 화성 탐사선 '퍼서비어런스'를 발사했다.",
            "BBC 보도에 따르면 런던의 기온은 섭씨 35도까지 올랐다.", "OpenAI의 ChatGPT 사용자는 1억 명을 넘었다.",
            "아이폰 15 Pro의 가격은 $999다.", "그는 1990년대에 뉴욕(New York)에서 일했다.",
            "정부는 내년 예산을 656조 9천억 원으로 편성했다고 기획재정부가 29일 발표했다. " * 6,  # over the limit
            "세계보건기구(WHO)는 이번 주 제네바에서 열린 회의에서 새로운 감염병 대응 지침을 발표하고, 각국 정부에 "
            "백신 접종률을 높이고 의료 인력을 확충할 것을 권고했다. 전문가들은 이 지침이 개발도상국의 의료 체계를 "
            "강화하는 데 도움이 될 것이라고 평가하면서도, 재원 마련이 가장 큰 과제가 될 것이라고 지적했다.",
            "ㅋㅋ 진짜요?"),
    empty_input="Please enter Korean text to translate.",
    reads="this model translates Korean to English",
    long_input_hint=" or translate it as a file.",
    decoding=(("strategy", "beam"), ("beam_size", 4), ("length_penalty", 1.8), *SAMPLING),
    length_follows_source=True,
    keeps_figures=True,
    translates=True,
    example="오바마는 대통령이다.",
    outputs_are="translations",
    max_length_ratio=3.0,
    fine_tune_base="the shipped translator, or one of yours",
    pair_roles=("Korean", "English"),
    empty_pair="empty Korean or English side",
    column_names=(("ko", "kor", "korean", "source", "src", "한국어", "한글", "원문"),
                  ("en", "eng", "english", "target", "tgt", "영어", "번역", "번역문")),
    usable_chrf=15.0,  # English output from a model that learned nothing still shares letters with the reference
    weakness="Domain mismatch: trained mostly on non-news text, so news (the tutorials' park corpus) translates worse "
             "than everyday sentences; names are often garbled, and a small model gets long, dense sentences partly "
             "wrong.",
    weakness_with_synthetic="Domain mismatch: its only news is back-translated (synthetic Korean), so news still "
                            "translates worse than everyday sentences; names are often garbled, and a small model "
                            "gets long, dense sentences partly wrong.",
    # the tutorials' four sentences and ten one-sentence items of wmt24pp_news_dev (WMT24++, Apache-2.0), the
    # news the translator is weakest on (issue 11: before and after, in the model card)
    showcase=("오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다.",
              "신규 갤러리 전시의 주인공은 땅과 물을 담은 시소의 작품",
              "일부 아프리카 농촌 공동체에서는 시민 운동 단체가 유해한 통과 의례를 건전한 교육으로 대체하는 일을 하고 있다.",
              "1월 9일에는 국영 철도 회사인 도이체반(Deutsche Bahn)의 화물/여객 열차 기관사들이 노동 시간 및 임금에 관한 "
              "요구를 내세우며 파업을 시작했다.",
              "그는 이미 많은 국가의 다양한 장소에서 재사용 및 재활용 시스템을 지원하고 있다고 밝혔습니다.",
              "\"옴니버스 방식이 아니라 각 법안이 회의에서 다뤄지고 협상되도록 할 것입니다.",
              "우크라이나 정부는 러시아의 영향으로부터 국가를 '보호'하기 위해 국민들에게 이러한 사례를 보고하도록 적극적으로 "
              "독려하고 있습니다.",
              "무능한 정치인들이 우리를 거대한 영국 기관인 국민 보건 서비스(NHS)의 몰락에 공모시키도록 해서는 안 됩니다.",
              "우리에게는 이미 임대료 인상이 공정한지를 판단하는 1차 주택 재판소 시스템이 있다.",
              "자신이 사법부의 판단을 뒤집을 수 있다고 생각하는 정치인들은 사실상 법 위에 군림하는 것이다.",
              "너무 오랫동안 투명성의 이점을 누리지 못하면서 운영된 분야에 독립적인 감독 기능을 마련함으로써 대중의 신뢰와 "
              "데이터 기반 의사 결정을 더 공고히 할 수 있다."),
)
TASKS = {task.name: task for task in (CHATBOT, TRANSLATOR)}

# what `LanguagePair.protects` lets term protection pass through for a pair other than Korean→English: addresses,
# which no language translates. Numbers are written otherwise in other languages (German "6,8" for 6.8), and a Latin
# name is every word of a Latin-script source; whether an imported model copies placeholders was not measured
# (docs/import.md, "Which steps apply")
ANY_PAIR_KINDS = ("url", "email")


# the names of the languages a translator may be imported for (LibreTranslate's codes): the API's /languages, the
# web page's tab titles
LANGUAGE_NAMES = {"ar": "Arabic", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek", "en": "English",
                  "es": "Spanish", "fi": "Finnish", "fr": "French", "hi": "Hindi", "hu": "Hungarian",
                  "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "pl": "Polish",
                  "pt": "Portuguese", "ru": "Russian", "sv": "Swedish", "th": "Thai", "tr": "Turkish",
                  "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese"}


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


@dataclass(frozen=True)
class LanguagePair:
    """What a translator translates from and into (its bundle's `TaskConfig.source_lang` and `target_lang`: an
    imported model's are its own), and which steps of the translation path, written for the shipped models'
    Korean→English, apply to it (docs/import.md, "Which steps apply"). Every step asks here: no code elsewhere
    compares language codes."""
    source: str = "ko"
    target: str = "en"

    @property
    def korean_source(self) -> bool:
        """Its input is Korean: a line without Hangul is kept as written, an input mostly in another script gets
        the language hint (`Task.reads`), and term protection leaves that input as written for the hint to see."""
        return self.source == "ko"

    @property
    def korean_to_english(self) -> bool:
        """Korean written the English way: amounts ("30억 달러" -> "$3 billion"), times, ranges and a date's month
        (`studio.text.dates.repair_months`), names introduced with their original in brackets, numbers, figures and
        Latin names passed through (`studio.text.protect`), and the facts the fidelity figures count
        (`studio.fidelity`)."""
        return self.korean_source and self.target == "en"

    @property
    def english_target(self) -> bool:
        """Its outputs are English: `studio.translation.finish_sentence`'s habits (a capital first letter, the
        source's final mark, a lower-case word written twice written once) apply."""
        return self.target == "en"

    @property
    def title(self) -> str:
        """"Korean → English"."""
        return f"{language_name(self.source)} → {language_name(self.target)}"

    @property
    def source_text(self) -> str:
        """What a line needs to be translated, in messages ("kept as written, without Korean to translate")."""
        return "Korean" if self.korean_source else "letters"

    def has_text(self, line: str) -> bool:
        """Whether `line` has something to translate: a Korean letter for a Korean source, else any letter (a line
        of digits or symbols alone is kept as written)."""
        return has_hangul(line) if self.korean_source else any(character.isalpha() for character in line)

    def protects(self, kind: str) -> bool:
        """Whether automatic term protection passes spans of `kind` (`studio.text.protect.AUTO_KINDS`, or "named")
        through placeholders for this pair: every kind for Korean→English, addresses for the others."""
        return self.korean_to_english or kind in ANY_PAIR_KINDS


KOREAN_ENGLISH = LanguagePair("ko", "en")  # the shipped translator's


def language_pair(task_config) -> LanguagePair:
    """The pair a bundle's model translates (`task_config`: its `TaskConfig`): a translator's own languages (the
    shipped one's, where its config names none); a model of another task served as a translator (a test's tiny
    chatbot) and a chatbot's Korean input are the shipped translator's."""
    if task_config is None or not task_named(task_config.task).translates:
        return KOREAN_ENGLISH
    return LanguagePair(task_config.source_lang or KOREAN_ENGLISH.source,
                        task_config.target_lang or KOREAN_ENGLISH.target)


def task_named(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; choose {' or '.join(TASKS)}") from None
