"""The Chat tab: the Korean chatbot's replies streamed into a chat window, the last reply's latency beside it."""

from __future__ import annotations

import html

import gradio as gr

from studio.tasks import CHATBOT
from studio.ui.decoding import DecodingControls, backend_dropdown
from studio.ui.service import InputError, ModelService, decode_options, with_warnings


def shown(text: str) -> str:
    """`text` as the chat history stores it. Gradio 6's chat window puts a message into the page as HTML,
    even with render_markdown=False; its sanitizer drops scripts and event handlers but keeps tags such as
    <img src=http://…>, which the browser would fetch. Escaped, a message shows exactly what was typed."""
    return html.escape(text, quote=False)


def typed(content) -> str:
    """The text of a stored message: the inverse of `shown`. Gradio hands history back with each
    message's content as a list of parts ({"type": "text", "text": …})."""
    if not isinstance(content, str):
        content = "".join(part.get("text", "") for part in content if part.get("type") == "text")
    return html.unescape(content)


def chat_reply(service: ModelService, message: str, history: list, backend: str, settings: dict):
    """Stream a reply into the history; yields (history, message box, latency summary)."""
    history = list(history or [])
    try:
        service.check_text(message)
        options = decode_options(**settings)
        generator = service.generator(backend)
    except InputError as error:
        gr.Warning(str(error))
        yield history, message, gr.skip()
        return
    history += [{"role": "user", "content": shown(message)}, {"role": "assistant", "content": ""}]
    text, latency, warnings = "", None, []
    for text, latency, warnings in generator.stream(message, options):
        history[-1] = {"role": "assistant", "content": shown(text)}
        yield history, "", ""
    for warning in warnings:
        gr.Warning(warning)
    history[-1] = {"role": "assistant", "content": shown(text) or "…"}
    yield history, "", with_warnings(latency.summary() if latency else "", warnings)


def without_last_turn(history: list) -> list:
    history = list(history or [])
    while history and history[-1]["role"] == "assistant":
        history.pop()
    if history:
        history.pop()
    return history


def undo(history: list):
    """Remove the last message and its reply; returns (history, latency summary)."""
    return without_last_turn(history), ""


def retry_reply(service: ModelService, history: list, backend: str, settings: dict):
    """Ask the last message again, in place of its reply; yields what `chat_reply` yields."""
    message = next((typed(m["content"]) for m in reversed(history or []) if m["role"] == "user"), None)
    if message is None:
        gr.Info("Nothing to retry yet.")
        yield history, "", gr.skip()
        return
    yield from chat_reply(service, message, without_last_turn(history), backend, settings)


def chat_api(service: ModelService, default_backend: str):
    """The `/chat` endpoint. Its signature is the API's, so the default backend is bound here."""

    def chat(text: str, backend: str = default_backend, strategy: str = "greedy", beam_size: int = 4,
             temperature: float = 0.8, top_k: int = 0, top_p: float = 0.9,
             seed: int | None = None) -> tuple[str, str]:
        """Reply to one Korean message. Returns (reply, latency summary)."""
        try:
            service.check_text(text)
            options = decode_options(strategy=strategy, beam_size=beam_size, temperature=temperature, top_k=top_k,
                                     top_p=top_p, seed=seed)
            reply, latency, _ = list(service.generator(backend).stream(text, options))[-1]
        except InputError as error:
            raise gr.Error(str(error), print_exception=False) from None
        return reply, latency.summary()

    return chat


class ChatTab:
    """The tab's components, and its events bound to the handlers above."""

    def __init__(self, service: ModelService, default_backend: str):
        self.service = service
        if not service.available:
            gr.Markdown(f"**The chatbot is unavailable.** {html.escape(service.unavailable)}")
        self.conversation = gr.Chatbot(label="Chat", height=430, render_markdown=False, sanitize_html=True,
                                       buttons=["copy", "copy_all"],
                                       placeholder="영화 볼래? — say something in Korean")
        latency = gr.Markdown(elem_id="chat-latency")
        with gr.Row():
            self.message = gr.Textbox(placeholder="메시지를 입력하세요…", show_label=False, scale=5, lines=1,
                                      max_length=service.limits.max_input_chars, elem_id="chat-input")
            send = gr.Button("Send", variant="primary", scale=1, elem_id="chat-send")
        with gr.Row():
            retry_button = gr.Button("Retry", size="sm")
            undo_button = gr.Button("Undo", size="sm")
            gr.ClearButton([self.conversation, self.message, latency], value="Clear", size="sm")
        gr.Examples(list(CHATBOT.prompts), inputs=self.message, label="Try")
        self.backend = backend_dropdown(service, default_backend, "chat-backend")
        self.decoding = DecodingControls("chat")

        outputs = [self.conversation, self.message, latency]
        for trigger in (send.click, self.message.submit):
            trigger(self.send, [self.message, self.conversation, self.backend, *self.decoding.listed()], outputs,
                    api_visibility="private")
        retry_button.click(self.retry, [self.conversation, self.backend, *self.decoding.listed()], outputs,
                           api_visibility="private")
        undo_button.click(undo, self.conversation, [self.conversation, latency], api_visibility="private")

    def send(self, message, conversation, backend, *settings):
        yield from chat_reply(self.service, message, conversation, backend, self.decoding.named(settings))

    def retry(self, conversation, backend, *settings):
        yield from retry_reply(self.service, conversation, backend, self.decoding.named(settings))
