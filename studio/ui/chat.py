"""The Chat tab: the Korean chatbot's replies streamed into a chat window, the last reply's latency beside it."""

from __future__ import annotations

import html

import gradio as gr

from studio.files import session_folder
from studio.replies import FROM_THE_MODEL, RETRIEVE
from studio.tasks import CHATBOT
from studio.ui import conversations
from studio.app_model import AppModel, InputError, decode_options, offer_download, with_warnings
from studio.ui.common import inform, read_upload, user_error, warn
from studio.ui.decoding import DecodingControls, backend_dropdown, browser_state, remember_settings


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


DEFAULT_MODE = CHATBOT.reply_modes[0]
REPLY_LABELS = {"retrieve": "a stored reply (the model's when none fits)", "generate": "the model writes it"}
REPLIES_INFO = ("A stored reply is the answer to the training question most like yours: on questions it never "
                "saw, closer to what people answered than the model's own words.")
EMPTY_REPLY = {"role": "assistant", "content": "…"}  # a reply with no words, or not written (cut short)


def chat_reply(service: AppModel, message: str, history: list, backend: str, settings: dict,
               mode: str = DEFAULT_MODE):
    """Stream a reply into the history; yields (history, message box, latency summary). The box is emptied once,
    when the message is taken: what the user types while the reply is written stays in it. `mode`: a stored reply
    where one is like the message, else the model's ("retrieve"), or always the model's ("generate")."""
    history = list(history or [])
    try:
        service.check_text(message)
        options = decode_options(**settings)
        service.check_backend(backend)
        stored, why = service.stored_reply(message, mode) if service.reply_modes() else (None, "")
    except InputError as error:
        warn(str(error))
        yield history, message, gr.skip()
        return
    history += [{"role": "user", "content": shown(message)}, {"role": "assistant", "content": ""}]
    if stored is not None:  # found in a millisecond: no backend to prepare
        history[-1] = {"role": "assistant", "content": shown(stored.text)}
        yield history, "", with_warnings(stored.summary(), service.input_hints(message))
        return
    yield history, "", service.preparing(backend) or ""  # the message shows while a backend is prepared
    try:
        generator = service.generator(backend)
    except InputError as error:  # its export failed: said; the message stays, to send again
        warn(str(error))
        history[-1] = {**EMPTY_REPLY}
        yield history, gr.skip(), ""  # no stats: the reply was never written (Retry sends it again)
        return
    text, latency, warnings = "", None, []
    for text, latency, warnings in generator.stream(message, options):
        history[-1] = {"role": "assistant", "content": shown(text)}
        yield history, gr.skip(), ""
    # the warnings (a loop retried, the input cut) are said once, beside the reply they belong to (its stats)
    history[-1] = {"role": "assistant", "content": shown(text) or EMPTY_REPLY["content"]}
    yield history, gr.skip(), with_warnings(written(latency), [*warnings, *([why] if why else [])])


def written(latency) -> str:
    """The stats line of a reply the model wrote."""
    return f"{FROM_THE_MODEL} · {latency.summary()}" if latency else FROM_THE_MODEL


def summary_line(latency):
    """The latency line under the chat: the reply's stats without its warnings, which are drawn beside the reply."""
    if not isinstance(latency, str):
        return latency
    return "\n\n".join(part for part in latency.split("\n\n") if not part.startswith("⚠ "))


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


def retry_reply(service: AppModel, history: list, backend: str, settings: dict, mode: str = DEFAULT_MODE):
    """Ask the last message again, in place of its reply; yields what `chat_reply` yields."""
    message = next((typed(m["content"]) for m in reversed(history or []) if m["role"] == "user"), None)
    if message is None:
        inform("Nothing to retry yet.")
        yield history, gr.skip(), gr.skip()
        return
    if mode == RETRIEVE and service.reply_modes():
        inform("A stored reply is the same each time: choose “the model writes it” under Replies, and sampling "
               "under Decoding, to get another one.")
    elif settings.get("strategy", "greedy") != "sample":
        inform(f"{str(settings.get('strategy', 'greedy')).capitalize()} decoding writes the same reply each time: "
               "choose sampling under Decoding to get another one.")
    for history, _, latency in chat_reply(service, message, without_last_turn(history), backend, settings, mode):
        yield history, gr.skip(), latency  # the message box is not Retry's: a draft in it stays


DEFAULTS = CHATBOT.default_decoding  # the API's defaults too


def chat_api(service: AppModel, default_backend: str):
    """The `/chat` endpoint. Its signature is the API's, so the default backend is bound here."""

    def chat(text: str, backend: str = default_backend, strategy: str = DEFAULTS["strategy"], beam_size: int = 4,
             temperature: float = DEFAULTS["temperature"], top_k: int = DEFAULTS["top_k"],
             top_p: float = DEFAULTS["top_p"], seed: int | None = None, reply: str = DEFAULT_MODE) -> tuple[str, str]:
        """Reply to one Korean message with the Korean chatbot (a small Transformer trained from scratch on
        everyday Korean conversation). Each call is one message and one reply: no history is kept.

        Args:
            text: The message, in Korean (e.g. "영화 볼래?"), up to --max-input-chars (1,000 by default).
            backend: tf, tf-naive, tflite, tflite-float16, tflite-int8, onnx or onnx-int8 (default: the server's).
            strategy: How to decode: "greedy" (deterministic), "beam" (beam search) or "sample" (random).
            beam_size: The number of beams when strategy is "beam" (1 or more).
            temperature: The sampling temperature when strategy is "sample" (above 0; lower is more conservative).
            top_k: When sampling, pick only among the k most likely tokens (0 = no limit).
            top_p: When sampling, pick within the fewest tokens whose probability adds up to top_p (0 to 1).
            seed: The random seed when sampling: the same seed gives the same reply (empty = a new reply each time).
            reply: "retrieve" (default): a stored reply, the answer to the training question most like the message
                (the model writes the reply when none is alike); "generate": the model writes the reply.

        Returns:
            The reply, in Korean.
            Where it came from: "stored reply" with how alike the questions are (0 to 1), the question it answers
            and the milliseconds; or "written by the model" with the backend, the time to the first token and the
            milliseconds per token; then the input's warnings, if any (e.g. that it was cut to what the model
            reads, or does not look like Korean).
        """
        try:
            service.check_text(text)
            options = decode_options(strategy=strategy, beam_size=beam_size, temperature=temperature, top_k=top_k,
                                     top_p=top_p, seed=seed)
            stored, why = service.stored_reply(text, reply)
            if stored is not None:
                return stored.text, with_warnings(stored.summary(), service.input_hints(text))
            answer, latency, warnings = service.decode_one(text, backend, options)
        except InputError as error:
            raise user_error(error) from None
        return answer, with_warnings(written(latency), [*warnings, *([why] if why else [])])

    return chat


# Run once in the page. Each reply's stats (the hidden #chat-stats list, one line per reply) are drawn beside
# it as the ::after of its row (under it on a phone's narrow screen), by one style rule per reply
# (`:nth-child(k of .bot-row)`), so they are in no
# message's text (the copy buttons and Retry never see them). The rule sets a custom property that the ::after
# reads, since Chromium 150 matches `:nth-child(k of S)::after` as if k were 1. The script never touches the
# chat window's nodes, which Gradio re-renders as tokens stream in, and does no work per token.
# Alt+R clicks Retry (Ctrl+Shift+R would be the browser's hard reload).
PAGE_SCRIPT = r"""() => {
  const layout = document.createElement("style");
  layout.textContent = `#chat-window .bot-row::after { content: var(--studio-stats, none); white-space: pre-line;
    align-self: flex-end; max-width: 16em; margin: 0 var(--spacing-md); font-size: var(--text-xs); color: var(--body-text-color-subdued); }
    @media (max-width: 640px) { #chat-window .bot-row { flex-wrap: wrap; }
      #chat-window .bot-row::after { flex-basis: 100%; max-width: none; } }`;
  const rules = document.createElement("style");
  rules.id = "chat-stats-rules";
  document.head.append(layout, rules);
  const quoted = text => '"' + String(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"')
    .replace(/\r?\n/g, "\\A ") + '"';
  window.studioChatStats = stats => {
    rules.textContent = (stats || []).map((line, i) => line ? `#chat-window .bot-row:nth-child(${i + 1} of .bot-row)`
      + ` { --studio-stats: ${quoted(line)}; }` : "").join("\n");
  };
  window.studioChatStats(window.studioChatStatsWaiting);
  document.addEventListener("keydown", event => {
    if (event.altKey && !event.ctrlKey && !event.metaKey && event.code === "KeyR") {
      const retry = document.querySelector("#chat-retry");
      if (retry && retry.offsetParent !== null && !retry.disabled) { event.preventDefault(); retry.click(); }
    }
  });
}"""
# the file an export just made (None when it was refused), downloaded as if its link had been clicked
DOWNLOAD_EXPORT = """(file) => {
  if (!file?.url) return;
  const link = Object.assign(document.createElement("a"), {href: file.url, download: file.orig_name ?? ""});
  document.body.append(link);
  link.click();
  link.remove();
}"""
# The stats can arrive before PAGE_SCRIPT has run (both follow the page's load); they wait for it then.
SHOW_STATS = ("(stats) => { if (window.studioChatStats) window.studioChatStats(stats);"
              " else window.studioChatStatsWaiting = stats; }")
KEYS = "Enter sends · Shift+Enter starts a new line · Alt+R retries the last message"


def as_typed(history) -> list[dict]:
    """The chat window's messages as typed (see `typed`), to be saved."""
    return [{"role": m["role"], "content": typed(m["content"])} for m in history or []]


def as_shown(conversation: dict | None) -> list[dict]:
    """A saved conversation's messages for the chat window (see `shown`)."""
    return [{"role": m["role"], "content": shown(m["content"])} for m in (conversation or {}).get("messages", [])]


class ChatTab:
    """The tab's components, and its events bound to the handlers above. The conversations live in the
    browser (`self.store`, see studio/ui/conversations.py); the server keeps none."""

    def __init__(self, service: AppModel, default_backend: str, app: gr.Blocks):
        self.service = service
        self.exports_dir = session_folder("studio-chats-")
        if not service.available:
            gr.Markdown(f"**The chatbot is unavailable.** {html.escape(service.unavailable)}")
        self.store = browser_state("chats", conversations.empty_store())
        with gr.Row():
            with gr.Column(scale=1, min_width=220):
                new_button = gr.Button("New conversation", size="sm", elem_id="chat-new")
                self.picker = gr.Radio([], label="Conversations", elem_id="chat-conversations")
                delete_button = gr.Button("Delete conversation", size="sm", elem_id="chat-delete")
                with gr.Row():
                    export_markdown = gr.Button("Export .md", size="sm", min_width=80, elem_id="chat-export-md")
                    export_json = gr.Button("Export .json", size="sm", min_width=80, elem_id="chat-export-json")
                import_button = gr.UploadButton("Import .json", file_types=[".json"], size="sm",
                                                elem_id="chat-import")
                exported = gr.File(label="Exported conversation", interactive=False, visible=False,
                                   elem_id="chat-export-file")
            with gr.Column(scale=4):
                self.conversation = gr.Chatbot(label="Chat", height=430, render_markdown=False, sanitize_html=True,
                                               buttons=["copy", "copy_all"], elem_id="chat-window",
                                               placeholder="영화 볼래? — say something in Korean")
                self.stats = gr.JSON([], visible=False, elem_id="chat-stats")  # drawn beside the replies
                latency = gr.Markdown(elem_id="chat-latency")
                with gr.Row():
                    # one line that grows to six: Enter submits, Shift+Enter is a new line (Gradio's Textbox
                    # does both when lines=1)
                    self.message = gr.Textbox(placeholder="메시지를 입력하세요…", show_label=False, scale=5, lines=1,
                                              max_lines=6, elem_id="chat-input")
                    send = gr.Button("Send", variant="primary", scale=1, elem_id="chat-send")
                with gr.Row():
                    retry_button = gr.Button("Retry", size="sm", elem_id="chat-retry")
                    undo_button = gr.Button("Undo", size="sm", elem_id="chat-undo")
                    clear_button = gr.Button("Clear", size="sm", elem_id="chat-clear")
                reads = (f" and reads its first {service.bundle.preprocessor.source_limit} tokens (a short sentence "
                         "or two)" if service.available else "")
                gr.Markdown(f"<small>The chatbot answers each message on its own{reads}: it was trained on single "
                            "question–answer pairs and does not see the earlier turns.</small>", elem_id="chat-note")
                gr.Markdown(KEYS, elem_id="chat-keys")
                self.examples = gr.Examples(service.examples(), inputs=self.message, label="Try")
        self.backend = backend_dropdown(service, default_backend, "chat-backend")
        self.reply = gr.Radio([(REPLY_LABELS[mode], mode) for mode in CHATBOT.reply_modes], value=DEFAULT_MODE,
                              label="Replies", info=REPLIES_INFO, elem_id="chat-reply")
        self.decoding = DecodingControls("chat", service.capacity, CHATBOT.default_decoding)
        remember_settings(app, "chat", self.backend, self.decoding, extra={"reply": self.reply})

        private = {"api_visibility": "private"}
        settings = [self.backend, self.reply, *self.decoding.listed()]
        replying = [self.conversation, self.message, latency, self.stats, self.store, self.picker]
        showing = [self.store, self.picker, self.conversation, self.stats, latency]
        # the saved conversations, drawn as the page opens, then the controls that change them enabled: one used
        # before the drawing answered (a busy server) would be undone by it, the store put back as it was
        self.waiting = [self.message, send, retry_button, undo_button, clear_button, new_button, self.picker,
                        delete_button, import_button]
        for control in self.waiting:
            control.interactive = False
        app.load(self.opening, self.store, [*showing, *self.waiting], **private)
        # one event for both triggers: a Send while a reply streams is ignored (the text stays in the box), not
        # run beside it (two replies saving over each other)
        replies = [gr.on([send.click, self.message.submit], self.send, [self.store, self.message, *settings],
                         replying, **private)]
        replies.append(retry_button.click(self.retry, [self.store, *settings], replying, **private))
        # whatever changes the conversation shown stops a reply still streaming into it
        stops = {"cancels": replies, **private}
        undo_button.click(self.undo, self.store, showing, **stops)
        for clear in (clear_button.click, self.conversation.clear):
            clear(self.clear, self.store, showing, **stops)
        new_button.click(self.new, self.store, showing, **stops)
        self.picker.input(self.switch, [self.store, self.picker], showing, **stops)
        delete_button.click(self.delete, self.store, showing, **stops)
        import_button.upload(self.import_json, [self.store, import_button], showing, **stops)
        for button, export in ((export_markdown, self.export_markdown), (export_json, self.export_json)):
            # one click downloads: the new file's link is clicked for the user (and stays there as a fallback)
            button.click(export, self.store, exported, **private).success(
                None, exported, None, js=DOWNLOAD_EXPORT, **private)
        self.stats.change(None, self.stats, None, js=SHOW_STATS, **private)
        app.load(None, js=PAGE_SCRIPT, **private)

    # Messages are read from the saved conversation, not from the chat window: a reply that New, Undo or a switch
    # cut short may still be drawing into the window for a moment.
    def send(self, store, message, backend, mode, *settings):
        store = conversations.checked_store(store)
        history = as_shown(conversations.current(store))
        if history and history[-1]["role"] == "user":  # an imported conversation may end with a message
            history.append({**EMPTY_REPLY})
        yield from self.saving(store, chat_reply(self.service, message, history, backend,
                                                 self.decoding.named(settings), mode))

    def retry(self, store, backend, mode, *settings):
        store = conversations.checked_store(store)
        yield from self.saving(store, retry_reply(self.service, as_shown(conversations.current(store)), backend,
                                                  self.decoding.named(settings), mode))

    def saving(self, store, replies):
        """Stream a reply as `chat_reply` yields it, then save the conversation with the reply's stats. The
        message is saved as soon as it is taken, so a reply cut short (New, a switch) does not lose it."""
        stats = conversations.reply_stats(conversations.current(store))
        history, latency, first, refused = None, None, True, None
        for history, box, latency in replies:
            if first and isinstance(latency, str):  # the reply being written has no stats yet (nor a retried one)
                replies_shown = sum(m["role"] == "assistant" for m in history)
                try:  # the message, its reply "…" until written (in a new conversation if none is open)
                    store = conversations.recorded(store, as_typed(history[:-1]) + [{**EMPTY_REPLY}])
                    saved = (store, self.listed(store))
                except conversations.ConversationError as error:  # said now: the reply may be cut short
                    refused = str(error)
                    warn(refused)
                    saved = (gr.skip(), gr.skip())
                yield history, box, latency, stats[:max(0, replies_shown - 1)], *saved
            else:
                yield history, box, summary_line(latency), gr.skip(), gr.skip(), gr.skip()
            first = False
        if not isinstance(latency, str):  # no reply: the message was refused, and said so
            return
        try:
            store = conversations.recorded(store, as_typed(history), latency)
        except conversations.ConversationError as error:
            if str(error) != refused:
                warn(str(error))
            return
        yield (gr.skip(), gr.skip(), gr.skip(), conversations.reply_stats(conversations.current(store)), store,
               self.listed(store))

    @staticmethod
    def listed(store) -> gr.Radio:
        return gr.Radio(conversations.choices(store), value=store["current"])

    def show(self, store, latency: str = ""):
        """Outputs `showing`: the store, the list of conversations, the current one, its replies' stats."""
        store = conversations.checked_store(store)
        selected = conversations.current(store)
        return store, self.listed(store), as_shown(selected), conversations.reply_stats(selected), latency

    def opening(self, store):
        """`show` the store the page opened with, then enable the controls `waiting` for it."""
        return *self.show(store), *(gr.update(interactive=True),) * len(self.waiting)

    def apply(self, store, change):
        """`show` the store that `change(checked store)` returns; on ConversationError, warn and keep all."""
        try:
            return self.show(change(conversations.checked_store(store)))
        except conversations.ConversationError as error:
            warn(str(error))
            return (gr.skip(),) * 5

    def undo(self, store):
        return self.apply(store, lambda store: conversations.recorded(
            store, as_typed(without_last_turn(as_shown(conversations.current(store))))))

    def clear(self, store):
        return self.apply(store, lambda store: conversations.recorded(store, []))

    def new(self, store):
        return self.apply(store, conversations.with_new)

    def switch(self, store, conversation_id):
        return self.apply(store, lambda store: conversations.switched(store, conversation_id))

    def delete(self, store):
        return self.apply(store, lambda store: conversations.deleted(store, store["current"]))

    def import_json(self, store, upload):
        """Add the conversation in an uploaded JSON export; a file that does not fit changes nothing."""
        def imported(store):
            try:
                name, data = read_upload(upload, conversations.MAX_IMPORT_BYTES, "a conversation file")
            except InputError as error:
                raise conversations.ConversationError(f"Cannot import {error}") from None
            return conversations.with_imported(store, conversations.parse_export(data, name))

        return self.apply(store, imported)

    def export_markdown(self, store):
        return self.export(store, conversations.to_markdown, "md")

    def export_json(self, store):
        return self.export(store, conversations.to_json, "json")

    def export(self, store, render, suffix: str):
        """The current conversation as a file to download."""
        selected = conversations.current(conversations.checked_store(store))
        if selected is None or not selected["messages"]:
            warn("Nothing to export yet: this conversation has no messages.")
            return gr.File(None, visible=False)
        try:
            path = offer_download(self.exports_dir, conversations.export_name(selected, suffix), render(selected))
        except OSError as error:
            warn(f"Could not write the export on the server ({error.strerror or error}); nothing was lost.")
            return gr.File(None, visible=False)
        return gr.File(str(path), visible=True)
