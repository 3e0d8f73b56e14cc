"""The Chat tab shows the user's message, and a line saying a backend is being prepared, before that backend's
first export or rebuild starts (issue 39: a first ONNX reply took 70 s with nothing shown)."""

from __future__ import annotations

from studio.ui.chat import EMPTY_REPLY, chat_reply
from studio.ui.common import InputError


class Preparing:
    """An AppModel whose backend still has to be prepared; `generator` says what the page had been shown."""

    def __init__(self, fails: bool = False):
        self.fails, self.shown_before_generator = fails, None

    def check_text(self, text):
        return text

    def check_backend(self, backend):
        pass

    def preparing(self, backend):
        return f"Preparing the {backend} backend for the chatbot..."

    def generator(self, backend):
        self.shown_before_generator = list(self.steps)
        if self.fails:
            raise InputError("The onnx backend is unavailable: disk full")
        return self

    def stream(self, message, options):
        yield "응", None, []


def test_the_message_and_a_preparing_line_show_before_the_backend_is_built():
    service = Preparing()
    service.steps = []
    for step in chat_reply(service, "영화 볼래?", [], "onnx", {}):
        service.steps.append(step)
    history, box, latency = service.shown_before_generator[0]
    assert history[0] == {"role": "user", "content": "영화 볼래?"} and box == ""
    assert latency == "Preparing the onnx backend for the chatbot..."
    assert service.steps[-1][0][-1]["content"] == "응"


def test_a_backend_that_fails_to_build_keeps_the_message_and_says_why(monkeypatch):
    import studio.ui.chat as chat

    said = []
    monkeypatch.setattr(chat, "warn", said.append)
    service = Preparing(fails=True)
    service.steps = []
    for step in chat_reply(service, "영화 볼래?", [], "onnx", {}):
        service.steps.append(step)
    history, _, latency = service.steps[-1]
    assert history == [{"role": "user", "content": "영화 볼래?"}, EMPTY_REPLY]
    assert latency == ""  # no stats saved with a reply never written; the reason is a notice
    assert said == ["The onnx backend is unavailable: disk full"]
