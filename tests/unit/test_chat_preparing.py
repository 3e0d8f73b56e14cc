"""The Chat tab shows the user's message, and a line saying a backend is being prepared, before that backend's
first export or rebuild starts (issue 39: a first ONNX reply took 70 s with nothing shown)."""

from __future__ import annotations

from studio.ui.chat import EMPTY_REPLY, chat_reply
from studio.app_model import InputError


class Preparing:
    """An AppModel whose backend still has to be prepared; `generator` says what the page had been shown."""

    def __init__(self, fails: bool = False, stored=None, why: str = ""):
        self.fails, self.shown_before_generator = fails, None
        self.stored, self.why, self.modes_asked = stored, why, []

    def reply_modes(self):
        return ("retrieve", "generate")

    def input_hints(self, text):
        return []

    def stored_reply(self, text, mode):
        self.modes_asked.append(mode)
        return (self.stored, self.why) if mode == "retrieve" else (None, "")

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
    # kept with the reply
    assert latency == "written by the model · 12 ms\n\n⚠ the first output repeated itself in a loop; decoded again"
    assert said == [] and chat.summary_line(latency) == "written by the model · 12 ms"  # no toast; under the chat


def test_retrying_a_reply_that_greedy_decoding_wrote_says_it_will_be_the_same(monkeypatch):
    import studio.ui.chat as chat

    told = []
    monkeypatch.setattr(chat, "inform", told.append)
    service = Looping()
    service.steps = []
    history = [{"role": "user", "content": "영화 볼래?"}, {"role": "assistant", "content": "응"}]
    list(chat.retry_reply(service, history, "onnx", {"strategy": "greedy"}, "generate"))
    assert told and "Greedy decoding writes the same reply each time: choose sampling" in told[0]
    told.clear()
    list(chat.retry_reply(service, history, "onnx", {"strategy": "sample"}, "generate"))
    assert told == []
    list(chat.retry_reply(service, history, "onnx", {"strategy": "sample"}, "retrieve"))
    assert told and "A stored reply is the same each time" in told[0]


def test_a_stored_reply_shows_at_once_saying_where_it_came_from_and_no_backend_is_prepared():
    from studio.replies import StoredReply

    service = Preparing(stored=StoredReply("최신 영화가 좋을 것 같아요.", 0.57, "어떤 영화 볼까", 0.4))
    service.steps = []
    steps = list(chat_reply(service, "영화 볼래?", [], "onnx", {}))
    history, box, latency = steps[-1]
    assert history == [{"role": "user", "content": "영화 볼래?"},
                       {"role": "assistant", "content": "최신 영화가 좋을 것 같아요."}] and box == ""
    assert latency == "stored reply · match 0.57 · answers “어떤 영화 볼까” · 0.4 ms"
    assert service.shown_before_generator is None and service.modes_asked == ["retrieve"]


def test_without_a_stored_reply_alike_the_model_writes_it_and_the_stats_say_why():
    from studio.replies import NONE_STORED

    service = Looping(why=NONE_STORED)
    service.steps = []
    *_, (history, _, latency) = chat_reply(service, "🎉", [], "onnx", {})
    assert history[-1]["content"] == "응 응" and latency.startswith("written by the model · 12 ms")
    assert latency.endswith(f"⚠ {NONE_STORED}")
    service = Looping(why=NONE_STORED)
    service.steps = []
    *_, (history, _, latency) = chat_reply(service, "🎉", [], "onnx", {}, "generate")
    assert NONE_STORED not in latency and service.modes_asked == ["generate"]


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
