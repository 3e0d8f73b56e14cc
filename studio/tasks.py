"""What is particular to each task (chatbot, translator): the tutorials' prompts and sentences, the sample
inputs exports are verified on, and the words the app uses for them. Nothing here imports TensorFlow."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    name: str
    prompts: tuple[str, ...]  # the tutorials' own examples: UI examples, smoke tests, training's sample outputs
    samples: tuple[str, ...]  # a few more inputs, for export verification and benchmarks
    empty_input: str  # what the app says to an empty input
    long_input_hint: str  # appended when an input is over the character limit


CHATBOT = Task(
    name="chatbot",
    prompts=("영화 볼래?", "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?",
             "대학원 합격 하겠지?"),
    samples=("영화 볼래?", "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?",
             "대학원 합격 하겠지?", "배고파", "오늘 너무 힘들었어", "주말에 뭐 하지?", "고마워"),
    empty_input="Please type something first.",
    long_input_hint=".",
)
TRANSLATOR = Task(
    name="translator",
    prompts=("오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다."),
    samples=("오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다.",
             "나는 학교에 간다.", "이 파일을 저장하시겠습니까?", "그는 책을 읽고 있었다.", "날씨가 좋다."),
    empty_input="Please enter Korean text to translate.",
    long_input_hint=" or translate it as a file.",
)
TASKS = {task.name: task for task in (CHATBOT, TRANSLATOR)}


def task_named(name: str) -> Task:
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; choose {' or '.join(TASKS)}") from None
