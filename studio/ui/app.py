"""Transformer Studio in the browser: a Chat tab (the Korean chatbot) and a Translate tab (KO→EN), each
with a backend selector, decoding controls and the latency of every reply. Named API endpoints
`/chat` and `/translate` take the text as their first parameter and return the output text first."""

from __future__ import annotations

import html
import tempfile
from pathlib import Path

import gradio as gr

from studio.train.run import CHATBOT_PROMPTS, TRANSLATOR_PROMPTS
from studio.ui.service import InputError, Limits, ModelService, decode_options

STRATEGIES = ["greedy", "beam", "sample"]
COMPARE_COLUMNS = ["backend", "output", "first token ms", "ms/token", "tokens", "total ms", "same as TF"]


def _decoding_controls():
    with gr.Accordion("Decoding", open=False):
        strategy = gr.Radio(STRATEGIES, value="greedy", label="Strategy")
        with gr.Row():
            beam = gr.Slider(1, 8, value=4, step=1, label="Beam size")
            penalty = gr.Slider(0, 2, value=1.0, step=0.1, label="Length penalty")
        with gr.Row():
            temperature = gr.Slider(0.1, 2.0, value=0.8, step=0.05, label="Temperature")
            top_k = gr.Slider(0, 100, value=0, step=1, label="Top-k (0 = off)")
            top_p = gr.Slider(0.05, 1.0, value=0.9, step=0.05, label="Top-p")
        with gr.Row():
            seed = gr.Number(value=None, precision=0, label="Seed (empty = random)")
            max_new = gr.Slider(1, 64, value=64, step=1, label="Max new tokens")
            no_repeat = gr.Slider(0, 5, value=0, step=1, label="No-repeat n-gram (0 = off)")
    return [strategy, beam, penalty, temperature, top_k, top_p, seed, max_new, no_repeat]


def _backend_choice(service: ModelService, default: str, elem_id: str):
    choices = service.backends() or ["tf"]
    return gr.Dropdown(choices, value=default if default in choices else choices[0], label="Backend",
                       interactive=service.available, elem_id=elem_id)


def build_app(chatbot: ModelService, translator: ModelService, default_backend: str = "tflite") -> gr.Blocks:
    def explore(text, task, layer):
        """Attention maps of the TF model on `text` and its greedy output, plus the model's other figures."""
        import numpy as np

        from studio.ui.explore import attention_figure, positional_figure, schedule_figure

        service = chatbot if task == "chatbot" else translator
        try:
            service.check_text(text)
            generator = service.generator("tf")
        except InputError as error:
            raise gr.Error(str(error), print_exception=False) from None
        config = service.bundle.config
        layer = min(max(int(layer or 1), 1), config.model.num_layers) - 1
        source, _ = generator.encode_source(text)
        output = generator.generate([text])[0]
        target_in = [config.model.bos_id] + output.ids[: config.model.max_target_len - 1]
        maps = generator.runtime.model.attention_maps(np.array([source], np.int32), np.array([target_in], np.int32))
        source_pieces = [generator.tokenizers.source.id_to_piece(i) for i in source]
        target_pieces = [generator.tokenizers.target.id_to_piece(i) for i in target_in]
        # a deep encoder may have more layers than the decoder: each map shows its own stack's layer
        figures = [attention_figure(np.asarray(maps[name][min(layer, len(maps[name]) - 1)])[0], rows, cols,
                                    f"{title}, layer {min(layer, len(maps[name]) - 1) + 1}")
                   for name, rows, cols, title in (
                       ("encoder_self", source_pieces, source_pieces, "Encoder self-attention"),
                       ("decoder_self", target_pieces, target_pieces, "Decoder self-attention"),
                       ("decoder_cross", target_pieces, source_pieces, "Encoder-decoder attention"))]
        model = generator.runtime.model
        trained = service.bundle.metrics.get("steps")
        summary = (f"**Output:** {html.escape(output.text)}  \n**Parameters:** {model.parameter_count():,} · "
                   f"{config.model.num_layers} encoder / {config.model.decoder_depth} decoder layers · d_model {config.model.d_model} · {config.model.num_heads} heads · "
                   f"{config.model.norm}-LN · source pieces: {len(source_pieces)} · target pieces: {len(target_pieces)}")
        return (summary, *figures, positional_figure(model.positional_table),
                schedule_figure(config.model.d_model, config.train.warmup_steps, config.train.lr_scale, trained),
                config.to_dict())


    def chat_reply(message, history, backend, *settings):
        """Stream a reply into the chat history."""
        history = list(history or [])
        try:
            chatbot.check_text(message)
            options = decode_options(*settings)
            generator = chatbot.generator(backend)
        except InputError as error:
            gr.Warning(str(error))
            yield history, message
            return
        # the chat window renders HTML (sanitized); escaping shows what was typed, literally, and keeps even a
        # harmless-looking <img src=http://…> from making the browser fetch anything
        history.append({"role": "user", "content": html.escape(message)})
        history.append({"role": "assistant", "content": ""})
        text, latency, warnings = "", None, []
        for text, latency, warnings in generator.stream(message, options):
            history[-1] = {"role": "assistant", "content": html.escape(text)}
            yield history, ""
        for warning in warnings:
            gr.Warning(warning)
        history[-1] = {"role": "assistant", "content": f"{html.escape(text) or '…'}\n— {latency.summary()}"}
        yield history, ""

    def last_user_message(history):
        for message in reversed(history or []):
            if message["role"] == "user":
                return html.unescape(message["content"])
        return None

    def undo(history):
        history = list(history or [])
        while history and history[-1]["role"] == "assistant":
            history.pop()
        if history:
            history.pop()
        return history

    def retry(history, backend, *settings):
        message = last_user_message(history)
        if message is None:
            gr.Info("Nothing to retry yet.")
            yield history, ""
            return
        yield from chat_reply(message, undo(history), backend, *settings)

    def translate_text(text, backend, *settings):
        try:
            translator.check_text(text)
            options = decode_options(*settings)
            generator = translator.generator(backend)
        except InputError as error:
            raise gr.Error(str(error), print_exception=False) from None
        import time

        from studio.document import split_sentences, translate_lines

        lines = text.split("\n")
        filled = [line for line in lines if line.strip()]
        if len(filled) == 1 and len(split_sentences(filled[0])) == 1:  # one sentence: decode once, with latency
            output, latency, warnings = list(generator.stream(filled[0].strip(), options))[-1]
            outputs, summary = [output if line.strip() else "" for line in lines], latency.summary()
        else:
            started = time.perf_counter()
            outputs, warnings = translate_lines(generator, lines, options)
            sentences = sum(len(split_sentences(line)) for line in filled)
            summary = f"{backend} · {sentences} sentences · {(time.perf_counter() - started) * 1000:.0f} ms total"
        for warning in sorted(set(warnings)):
            gr.Warning(warning)
        return "\n".join(outputs), summary

    outputs_dir = Path(tempfile.mkdtemp(prefix="studio-translations-"))

    def translate_file(file, backend, *settings, progress=gr.Progress()):
        """Translate an uploaded UTF-8 text file line by line; returns the path of the English file.
        The upload is deleted as soon as it is read: uploads are read, never executed or kept."""
        if file is None:
            raise gr.Error("Please choose a .txt file first.", print_exception=False)
        try:
            lines = _read_upload(file, translator.limits)
            options = decode_options(*settings)
            generator = translator.generator(backend)
        except InputError as error:
            raise gr.Error(str(error), print_exception=False) from None
        total = max(1, sum(1 for line in lines if line.strip()))
        done = [0]

        def advance(count):
            done[0] += count
            progress(min(done[0] / total, 1.0), desc="Translating")

        from studio.document import translate_lines

        outputs, _ = translate_lines(generator, lines, options, on_progress=advance)
        _remove_old_files(outputs_dir, max_age_s=3600)
        out = Path(tempfile.mkdtemp(dir=outputs_dir)) / "translation.en.txt"
        out.write_text("".join(o + "\n" for o in outputs), encoding="utf-8")
        return str(out)

    # Gradio's own copies of uploads and downloads are deleted after an hour
    with gr.Blocks(title="Transformer Studio", delete_cache=(600, 3600)) as app:
        gr.Markdown("# Transformer Studio\nA Korean chatbot and a Korean→English translator — Transformers trained "
                    "from scratch, decoding with a key/value cache on TensorFlow, TFLite or ONNX.")
        with gr.Tab("Chat"):
            if not chatbot.available:
                gr.Markdown(f"**The chatbot is unavailable.** {html.escape(chatbot.unavailable)}")
            conversation = gr.Chatbot(label="Chat", height=430, render_markdown=False, sanitize_html=True,
                                      buttons=["copy", "copy_all"], placeholder="영화 볼래? — say something in Korean")
            with gr.Row():
                message = gr.Textbox(placeholder="메시지를 입력하세요…", show_label=False, scale=5, lines=1,
                                     max_length=chatbot.limits.max_input_chars, elem_id="chat-input")
                send = gr.Button("Send", variant="primary", scale=1, elem_id="chat-send")
            with gr.Row():
                retry_button = gr.Button("Retry", size="sm")
                undo_button = gr.Button("Undo", size="sm")
                clear_button = gr.ClearButton([conversation, message], value="Clear", size="sm")
            gr.Examples(CHATBOT_PROMPTS, inputs=message, label="Try")
            chat_backend = _backend_choice(chatbot, default_backend, "chat-backend")
            chat_settings = _decoding_controls()
            for trigger in (send.click, message.submit):
                trigger(chat_reply, [message, conversation, chat_backend, *chat_settings], [conversation, message],
                        api_visibility="private")
            retry_button.click(retry, [conversation, chat_backend, *chat_settings], [conversation, message],
                               api_visibility="private")
            undo_button.click(undo, conversation, conversation, api_visibility="private")
            del clear_button

        with gr.Tab("Translate"):
            if not translator.available:
                gr.Markdown(f"**The translator is unavailable.** {html.escape(translator.unavailable)}")
            with gr.Row():
                source = gr.Textbox(label="Korean", lines=5, max_length=translator.limits.max_input_chars,
                                    elem_id="translate-input")
                target = gr.Textbox(label="English", lines=5, interactive=False, elem_id="translate-output",
                                    buttons=["copy"])
            translate_button = gr.Button("Translate", variant="primary", elem_id="translate-button")
            translate_latency = gr.Markdown(elem_id="translate-latency")
            gr.Examples(TRANSLATOR_PROMPTS, inputs=source, label="Try")
            translate_backend = _backend_choice(translator, default_backend, "translate-backend")
            translate_settings = _decoding_controls()
            with gr.Accordion("Translate a .txt file", open=False):
                upload = gr.File(label="Korean text file (UTF-8, one paragraph per line)", file_types=[".txt"])
                file_button = gr.Button("Translate file")
                download = gr.File(label="English translation", interactive=False)
            translate_button.click(translate_text, [source, translate_backend, *translate_settings],
                                   [target, translate_latency], api_visibility="private")
            file_button.click(translate_file, [upload, translate_backend, *translate_settings], download,
                              api_name="translate_file")

        with gr.Tab("Compare"):
            gr.Markdown("One input through every backend, greedy decoding. The naive TF loop re-runs the whole "
                        "model for every token (as the tutorials do); the others decode with a key/value cache.")
            with gr.Row():
                compare_task = gr.Radio(["chatbot", "translator"], value="chatbot", label="Model", scale=1)
                compare_input = gr.Textbox(value=CHATBOT_PROMPTS[3], label="Input", scale=4, elem_id="compare-input",
                                           max_length=chatbot.limits.max_input_chars)
            compare_button = gr.Button("Run on every backend", variant="primary", elem_id="compare-button")
            compare_summary = gr.Markdown(elem_id="compare-summary")
            compare_table = gr.Dataframe(headers=COMPARE_COLUMNS, interactive=False, elem_id="compare-table",
                                         wrap=True)
            compare_plot = gr.Plot(label="Latency (log scale; lower is better)", elem_id="compare-plot")
            compare_button.click(lambda text, task: compare_all(text, task)[1:], [compare_input, compare_task],
                                 [compare_summary, compare_table, compare_plot], api_visibility="private")

        def compare_all(text, task):
            service = chatbot if task == "chatbot" else translator
            try:
                service.check_text(text)
            except InputError as error:
                raise gr.Error(str(error), print_exception=False) from None
            rows, bars, outputs = [], [], {}
            for backend in service.backends():
                try:
                    output, latency, _ = list(service.generator(backend).stream(text))[-1]
                except Exception as error:  # noqa: BLE001 - one broken backend must not hide the others
                    rows.append([backend, f"unavailable: {error}", None, None, None, None, ""])
                    continue
                outputs[backend] = output
                rows.append([backend, output, round(latency.first_token_ms, 2), round(latency.ms_per_token, 2),
                             latency.tokens, round(latency.total_ms, 1), ""])
                bars.append({"runtime": backend, "ms_per_token_p50": latency.ms_per_token,
                             "first_token_ms_p50": latency.first_token_ms, "total_ms_p50": latency.total_ms})
            reference = outputs.get("tf")
            for row in rows:
                if row[0] in outputs:
                    row[-1] = "yes" if outputs[row[0]] == reference else "no"
            agree = sum(1 for o in outputs.values() if o == reference)
            naive = next((r for r in rows if r[0] == "tf-naive" and r[5]), None)
            fastest = min((r for r in rows if r[5]), key=lambda r: r[5], default=None)
            summary = f"**{agree} of {len(outputs)} backends** give the TF output."
            if naive and fastest and fastest[0] != "tf-naive":
                summary += (f" Fastest: **{fastest[0]}**, {naive[5] / fastest[5]:.1f}× faster end to end than the "
                            "naive TF loop on this input.")
            from studio.bench.latency import latency_figure

            figure = latency_figure(bars, f"{task}: {latency.tokens if outputs else 0} tokens, one run each") \
                if bars else None
            return reference or "", summary, rows, figure

        with gr.Tab("Explore"):
            gr.Markdown("Look inside the model for an input: attention of every head in every layer (encoder "
                        "self-attention, decoder self-attention, encoder-decoder attention), the positional "
                        "encoding, the learning-rate schedule and the configuration.")
            with gr.Row():
                explore_task = gr.Radio(["chatbot", "translator"], value="chatbot", label="Model", scale=1)
                explore_input = gr.Textbox(value=CHATBOT_PROMPTS[0], label="Input", scale=3, elem_id="explore-input",
                                           max_length=chatbot.limits.max_input_chars)
                explore_layer = gr.Number(value=1, precision=0, minimum=1, label="Layer", scale=1)
            explore_button = gr.Button("Show attention", variant="primary", elem_id="explore-button")
            explore_output = gr.Markdown(elem_id="explore-output")
            encoder_plot = gr.Plot(label="Encoder self-attention")
            decoder_plot = gr.Plot(label="Decoder self-attention")
            cross_plot = gr.Plot(label="Encoder-decoder attention")
            with gr.Accordion("Positional encoding, learning-rate schedule, configuration", open=False):
                positional_plot = gr.Plot(label="Positional encoding")
                schedule_plot = gr.Plot(label="Learning-rate schedule")
                config_view = gr.JSON(label="Configuration")
            explore_button.click(explore, [explore_input, explore_task, explore_layer],
                                 [explore_output, encoder_plot, decoder_plot, cross_plot, positional_plot,
                                  schedule_plot, config_view], api_visibility="private")

        def compare_api(text: str, task: str = "chatbot") -> tuple[str, str, list]:
            """Run `text` through every backend. Returns (TF output, summary, rows: backend, output,
            first-token ms, ms/token, tokens, total ms, same as TF)."""
            reference, summary, rows, _ = compare_all(text, task)
            return reference, summary, rows

        gr.api(compare_api, api_name="compare")

        def chat_api(text: str, backend: str = default_backend, strategy: str = "greedy", beam_size: int = 4,
                     temperature: float = 0.8, top_k: int = 0, top_p: float = 0.9, seed: int | None = None) -> tuple[str, str]:
            """Reply to one Korean message. Returns (reply, latency summary)."""
            try:
                chatbot.check_text(text)
                options = decode_options(strategy, beam_size, 1.0, temperature, top_k, top_p, seed)
                reply, latency, _ = list(chatbot.generator(backend).stream(text, options))[-1]
            except InputError as error:
                raise gr.Error(str(error), print_exception=False) from None
            return reply, latency.summary()

        def translate_api(text: str, backend: str = default_backend, strategy: str = "greedy",
                          beam_size: int = 4) -> tuple[str, str]:
            """Translate Korean text (one or more lines) to English. Returns (translation, latency summary)."""
            return translate_text(text, backend, strategy, beam_size, 1.0, 1.0, 0, 1.0, None, None, 0)

        gr.api(chat_api, api_name="chat")
        gr.api(translate_api, api_name="translate")
    return app


def _read_upload(file, limits: Limits) -> list[str]:
    """The lines of an uploaded text file, checked against the server's limits; the upload is then deleted."""
    from studio.data.readers import read_text_lines
    from studio.errors import DataError

    path = Path(file if isinstance(file, str) else getattr(file, "path", None) or file.name)
    try:
        lines = read_text_lines(path, max_bytes=limits.max_file_bytes)
    except DataError as error:
        raise InputError(str(error).replace(str(path), "The uploaded file")) from None
    except OSError:
        raise InputError("The uploaded file could not be read; please upload it again.") from None
    finally:
        _delete_upload(path)
    if not any(line.strip() for line in lines):
        raise InputError("That file has no text to translate.")
    if len(lines) > limits.max_file_lines:
        raise InputError(f"That file has {len(lines):,} lines; the limit is {limits.max_file_lines:,}. Please split it.")
    return lines


def _delete_upload(path: Path) -> None:
    """Delete Gradio's copy of an upload; never a file outside Gradio's upload folder."""
    from gradio.utils import get_upload_folder

    try:
        if path.resolve().is_relative_to(Path(get_upload_folder()).resolve()):
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _remove_old_files(directory: Path, max_age_s: float) -> None:
    import shutil
    import time

    for entry in directory.iterdir():
        if time.time() - entry.stat().st_mtime > max_age_s:
            shutil.rmtree(entry, ignore_errors=True)


def launch(chatbot_bundle=None, translator_bundle=None, host: str = "127.0.0.1", port: int = 7860,
           share: bool = False, auth=None, backend: str = "tflite", max_input_chars: int = 1000,
           concurrency: int = 4, progress=print, prevent_thread_lock: bool = False):
    limits = Limits(max_input_chars)
    services = [ModelService("chatbot", chatbot_bundle, limits, progress),
                ModelService("translator", translator_bundle, limits, progress)]
    for service in services:
        if not service.available:
            progress(f"warning: the {service.task} is unavailable: {service.unavailable.splitlines()[0]}")
        elif backend != "tf":
            try:  # first launch builds missing exports here, with progress, not on the first request
                service.generator(backend)
            except Exception as error:  # noqa: BLE001 - keep serving on the TF backend
                progress(f"warning: could not prepare {backend} for the {service.task} ({error}); using tf")
    app = build_app(*services, default_backend=backend)
    app.queue(default_concurrency_limit=concurrency)
    app.launch(server_name=host, server_port=port, share=share, auth=auth, show_error=False,
                      max_file_size=limits.max_file_bytes,
                      prevent_thread_lock=prevent_thread_lock, quiet=False)
    return app  # with prevent_thread_lock: still serving, at app.local_url
