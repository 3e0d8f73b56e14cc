"""The Chat tab shows the user's message, and a line saying a backend is being prepared, before that backend's
first export or rebuild starts (issue 39: a first ONNX reply took 70 s with nothing shown)."""

from __future__ import annotations

from studio.ui.chat import EMPTY_REPLY, chat_reply
from studio.app_model import InputError


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


class Looping(Preparing):
    """A chatbot whose first reply looped and was decoded again."""

    def stream(self, message, options):
        latency = type("Latency", (), {"summary": lambda self: "12 ms"})()
        yield "응 응", latency, ["the first output repeated itself in a loop; decoded again"]


def test_a_replys_warning_is_said_once_beside_the_reply_not_as_a_toast_or_under_the_chat(monkeypatch):
    import studio.ui.chat as chat

    said = []
    monkeypatch.setattr(chat, "warn", said.append)
    service = Looping()
    service.steps = []
    history, _, latency = list(chat_reply(service, "영화 볼래?", [], "onnx", {}))[-1]
    assert latency == "12 ms\n\n⚠ the first output repeated itself in a loop; decoded again"  # kept with the reply
    assert said == [] and chat.summary_line(latency) == "12 ms"  # no toast; the line under the chat: its stats


def test_retrying_a_reply_that_greedy_decoding_wrote_says_it_will_be_the_same(monkeypatch):
    import studio.ui.chat as chat

    told = []
    monkeypatch.setattr(chat, "inform", told.append)
    service = Looping()
    service.steps = []
    history = [{"role": "user", "content": "영화 볼래?"}, {"role": "assistant", "content": "응"}]
    list(chat.retry_reply(service, history, "onnx", {"strategy": "greedy"}))
    assert told and "Greedy decoding writes the same reply each time: choose sampling" in told[0]
    told.clear()
    list(chat.retry_reply(service, history, "onnx", {"strategy": "sample"}))
    assert told == []


def test_the_try_examples_are_the_models_own_when_another_model_is_in_use(tmp_path):
    from types import SimpleNamespace

    from studio.bundle import default_bundle
    from studio.tasks import CHATBOT
    from studio.app_model import AppModel

    shipped = SimpleNamespace(task="chatbot", bundle_path=default_bundle("chatbot"))
    assert AppModel.examples(shipped) == list(CHATBOT.prompts)
    (tmp_path / "dev.tsv").write_text("".join(f"배송은 언제 와요 {i}?\t내일 와요.\n" for i in range(30)), encoding="utf-8")
    own = SimpleNamespace(task="chatbot", bundle_path=tmp_path)
    examples = AppModel.examples(own)
    assert len(examples) == 6 and examples[0] == "배송은 언제 와요 0?" and examples[1] == "배송은 언제 와요 5?"
    assert AppModel.examples(SimpleNamespace(task="chatbot", bundle_path=tmp_path / "none")) == list(CHATBOT.prompts)
