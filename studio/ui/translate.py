"""The Translate tab: Korean text or a .txt file to English, with the latency of each translation."""

from __future__ import annotations

import html
import threading
import time
from pathlib import Path

import gradio as gr

from studio.errors import DataError
from studio.files import session_folder
from studio.formats import FORMATS, listed, output_name
from studio.tasks import TRANSLATOR
from studio.text.protect import Glossary, describe, protector_for
from studio.translation import n_best, translate, translate_document
from studio.app_model import AppModel, InputError, decode_options, offer_download, with_warnings
from studio.ui.common import as_notice, discard_upload, inform, read_upload, user_error, warn
from studio.ui.decoding import DecodingControls, backend_dropdown, browser_state

# a word's confidence (mean log-probability of its pieces) -> how the Translate tab marks it
UNSURE, DOUBTFUL = -0.7, -1.6
CONFIDENCE_COLORS = {"unsure": "#fde68a", "doubtful": "#fca5a5"}
MAX_GLOSSARY_BYTES = 1024 * 1024  # 1 MB as the page counts
ALTERNATIVES = 4  # how many n-best translations the tab offers
MAX_SAVED_GLOSSARY = 100_000  # characters of the glossary box kept in the browser between visits
GLOSSARY_STATE = "translate-glossary"  # its browser_state name


def confidence_marks(confidences) -> list[tuple[str, str | None]]:
    """(word, "unsure" | "doubtful" | None) for gr.HighlightedText, one line per translated line."""
    marks: list[tuple[str, str | None]] = []
    for number, scored in enumerate(confidences):
        if number:
            marks.append(("\n", None))
        for word, score in scored.words:
            marks.append((word + " ", "doubtful" if score < DOUBTFUL else "unsure" if score < UNSURE else None))
    return marks


def requested_protection(glossary_text: str = "", protect: bool = True):
    """The term protection a request asks for: glossary entries as TSV text, and the automatic protection of
    names, numbers and URLs (None when there is nothing to do). A bad glossary is the user's error to see."""
    try:
        return protector_for(Glossary.parse(glossary_text or "", "glossary"), bool(protect))
    except DataError as error:
        raise user_error(error) from None


def load_glossary_file(file, glossary_text: str) -> str:
    """The glossary box's text with an uploaded .tsv glossary's entries added (a term in both keeps the
    file's English), so the user sees and can edit what will be applied."""
    name, data = read_upload(file, MAX_GLOSSARY_BYTES, "a glossary")
    try:
        typed = Glossary.parse(glossary_text or "", "glossary")
        loaded = Glossary.from_bytes(data, name)
    except DataError as error:
        raise InputError(str(error)) from None
    return typed.extended(loaded).as_text()


def translate_text(service: AppModel, text: str, backend: str, settings: dict, scores: bool = False,
                   protector=None) -> tuple[str, str, list, str]:
    """Translate one or more lines; returns (translation, latency summary, confidence marks: with `scores`,
    which costs one more forced pass over the output, and what the glossary/protection did)."""
    try:
        service.check_text(text)
        options = decode_options(**settings)
        generator = service.generator(backend)
    except InputError as error:
        raise user_error(error) from None
    # one Korean sentence is decoded alone, with its latency (in the running batch when the server batches)
    result = translate(generator, text.split("\n"), options, protector=protector, scores=scores, timed=True)
    if result.latency is not None:
        summary = result.latency.summary()
    else:
        done = (f"{result.sentences} sentence{'s' * (result.sentences != 1)}" if result.sentences
                else f"nothing translated (no {generator.preprocessor.pair.source_text})")
        summary = f"{backend} · {done} · {result.seconds * 1000:.0f} ms total"
    for warning in sorted(set(result.warnings)):
        warn(warning)
    return (result.text, with_warnings(summary, result.warnings), confidence_marks(result.confidences or []),
            describe(result.report, protector.glossary if protector else None, text))


def translate_file(service: AppModel, outputs_dir: Path, file, backend: str, settings: dict,
                   progress=None, protector=None, stop=None) -> tuple[str, str, list[str], str]:
    """Translate an uploaded document (.txt line by line; .srt, .md, .html, .docx with their structure kept)
    into a new file of the same format under `outputs_dir`; returns its path, what the glossary and
    protection did, warnings, and how many sentences took how long (empty for a stopped job, which its warning
    describes). `progress(fraction, desc)` hears "N / M sentences" after each batch; when
    `stop()` turns true the file is written with what was done. The upload is deleted as soon as it is read:
    uploads are read, never executed or kept."""
    if file is None:
        raise user_error("Please choose a file first.")
    try:
        name, data = read_upload(file, service.limits.max_file_bytes, "a document", suffixes=FORMATS)
        options = decode_options(**settings)
        generator = service.generator(backend)
        document = service.document(name, data)
    except (DataError, InputError) as error:
        raise user_error(error) from None
    counted = [0, 0]  # sentences done, of

    def advance(done, total):
        counted[:] = done, total
        if progress is not None:
            progress(done / max(total, 1), desc=f"{done:,} / {total:,} sentences")

    started = time.perf_counter()
    result = translate_document(generator, document, options, on_progress=advance, protector=protector, stop=stop)
    done = (f"{output_name(name)}: {counted[1]:,} sentence{'s' * (counted[1] != 1)} translated in "
            f"{time.perf_counter() - started:.1f} s ({backend})." if counted[0] == counted[1] and counted[1] else "")
    out = offer_download(outputs_dir, output_name(name), result.document)
    said = describe(result.report, protector.glossary if protector else None, "\n".join(document.segments))
    return str(out), said, result.warnings, done


DEFAULT_DECODING = TRANSLATOR.default_decoding  # the API's defaults too
MAX_NOTES = 5  # a document's notes shown one by one, the rest counted


def translate_api(service: AppModel, default_backend: str):
    """The `/translate` endpoint. Its signature is the API's, so the default backend is bound here."""

    def translate(text: str, backend: str = default_backend, strategy: str = DEFAULT_DECODING["strategy"],
                  beam_size: int = DEFAULT_DECODING["beam_size"], glossary: str = "",
                  protect: bool = True) -> tuple[str, str]:
        """Translate Korean text to English with a Transformer trained from scratch on Korean-English
        sentence pairs. Each line is translated on its own, a long line sentence by sentence.

        Args:
            text: Korean text, one or more lines (e.g. "오바마는 대통령이다."), up to --max-input-chars.
            backend: tf, tf-naive, tflite, tflite-float16, tflite-int8, onnx or onnx-int8 (default: the server's).
            strategy: How to decode: "beam" (beam search, the default: better translations) or "greedy" (the most likely token at each step: faster).
            beam_size: The number of beams when strategy is "beam" (1 or more).
            glossary: Terms to translate as given, one "korean = english" (or "korean<TAB>english") pair per line (optional).
            protect: Keep URLs, e-mail addresses, numbers with units and Latin-script names as written.

        Returns:
            The English translation, line for line.
            The latency summary (the backend and the time taken), then any warning about the input and which glossary entries were applied.
        """
        protector = requested_protection(glossary, protect)
        settings = {**DEFAULT_DECODING, "strategy": strategy, "beam_size": beam_size}
        output, summary, _, protection = translate_text(service, text, backend, settings, protector=protector)
        return output, f"{summary}\n{protection}" if protection else summary

    return translate


def confidence_api(service: AppModel, default_backend: str):
    """The `/translate_scored` endpoint: the translation of each line with how sure the model is of it."""

    def translate_scored(text: str, backend: str = default_backend) -> list[dict]:
        """Translate Korean text (one or more lines) to English. Returns, per line: the translation, its
        confidence and each word's (mean log-probability of its pieces; 0 is sure, below -1.6 doubtful)."""
        try:
            service.check_text(text)
            generator = service.generator(backend)
        except InputError as error:
            raise user_error(error) from None
        result = translate(generator, text.split("\n"), decode_options(**DEFAULT_DECODING), scores=True)
        return [{"translation": o, "confidence": round(c.sentence, 4), "words": [[w, round(v, 4)] for w, v in c.words]}
                for o, c in zip(result.lines, result.confidences)]

    return translate_scored


def alternatives_api(service: AppModel, default_backend: str):
    """The `/translate_alternatives` endpoint: n-best translations of one input from beam search."""

    def translate_alternatives(text: str, n: int = 4, backend: str = default_backend, glossary: str = "",
                               protect: bool = True) -> list[list]:
        """Up to n (1-8) different English translations of Korean text (taken as one input), best first,
        each as [translation, length-normalized log-probability]. Glossary terms ("korean<TAB>english" lines)
        and, with protect, URLs, e-mail addresses, numbers and Latin-script names are kept as in /translate."""
        try:
            service.check_text(text)
            generator = service.generator(backend)
            n = int(n)
            if not 1 <= n <= 8:
                raise InputError("n must be between 1 and 8")
        except (InputError, ValueError, TypeError) as error:
            raise user_error(error) from None
        found = n_best(generator, text, n, protector=requested_protection(glossary, protect))
        return [[t, round(s, 4)] for t, s in found.choices]

    return translate_alternatives


class TranslateTab:
    """The tab's components, and its events bound to the handlers above."""

    def __init__(self, service: AppModel, default_backend: str):
        self.service = service
        self.outputs_dir = session_folder("studio-translations-")
        self.jobs = UploadJobs()
        if not service.available:
            gr.Markdown(f"**The translator is unavailable.** {html.escape(service.unavailable)}")
        with gr.Row():
            # side by side on a wide screen; one above the other on a phone (min_width makes the row wrap)
            self.source = gr.Textbox(label="Korean", lines=5, elem_id="translate-input", min_width=320)
            target = gr.Textbox(label="English", lines=5, interactive=False, elem_id="translate-output",
                                min_width=320, buttons=["copy"])
        with gr.Row():
            translate_button = gr.Button("Translate", variant="primary", elem_id="translate-button", scale=3)
            alternatives_button = gr.Button("Alternatives", elem_id="translate-alternatives-button", scale=1)
        alternatives = gr.Radio(label="Other translations (beam search's n-best): pick one to use it", visible=False,
                                elem_id="translate-alternatives")
        latency = gr.Markdown(elem_id="translate-latency")
        marks = gr.HighlightedText(label="How sure the model was of each word: unsure and doubtful words are worth a "
                                         "second look (a hint, not a verdict; the mean log-probability of the word's "
                                         f"pieces below {UNSURE} and {DOUBTFUL})",
                                   color_map=CONFIDENCE_COLORS, show_legend=True, combine_adjacent=False,
                                   elem_id="translate-confidence")
        self.examples = gr.Examples(service.examples(), inputs=self.source, label="Try")
        self.backend = backend_dropdown(service, default_backend, "translate-backend")
        self.decoding = DecodingControls("translate", service.capacity, TRANSLATOR.default_decoding)
        with gr.Accordion("Glossary and protected terms", open=False):
            with gr.Row():
                self.glossary_text = gr.Textbox("", label="Glossary: one entry per line, korean = english (or a tab "
                                                "between them)", lines=3, placeholder="삼성전자 = Samsung Electronics",
                                                elem_id="translate-glossary")
                glossary_file = gr.File(label="Add the entries of a .tsv glossary file", file_types=[".tsv", ".txt"],
                                        elem_id="translate-glossary-file")
            self.protect = gr.Checkbox(True, label="Keep URLs, e-mail addresses, numbers with units and Latin-script "
                                                   "names as written", elem_id="translate-protect")
        protection = gr.Markdown(elem_id="translate-glossary-report")
        with gr.Accordion(f"Translate a document ({listed()})", open=False):
            self.upload = gr.File(label=f"Korean document: {listed(layout=True, last=' or ')}",
                                  file_types=list(FORMATS), elem_id="translate-file")
            with gr.Row():
                file_button = gr.Button("Translate file", elem_id="translate-file-button")
                cancel_button = gr.Button("Cancel", elem_id="translate-file-cancel", variant="secondary")
            download = gr.File(label="English translation (same format)", interactive=False,
                               elem_id="translate-file-output")

        protection_inputs = [self.glossary_text, self.protect]
        glossary_file.upload(self.add_glossary_file, [glossary_file, self.glossary_text],
                             [self.glossary_text, glossary_file], api_visibility="private")
        alternatives_button.click(self.offer_alternatives,
                                  [self.source, self.backend, *protection_inputs, *self.decoding.listed()],
                                  alternatives, api_visibility="private")
        # the report describes the translation, not the picked alternative (protected too, but its own output)
        alternatives.select(lambda choice: (choice, ""), alternatives, [target, protection], api_visibility="private")
        translate_button.click(lambda: gr.Radio(visible=False), None, alternatives, api_visibility="private")
        # a bad input: a notice, as the Chat tab gives, and no result of an earlier input beside it
        translate_button.click(as_notice(self.translate_source, ("", "", [], "")),
                               [self.source, self.backend, *protection_inputs, *self.decoding.listed()],
                               [target, latency, marks, protection], api_visibility="private")
        # `/translate_file(file, backend, *settings, glossary, protect)`: the API keeps its
        # earlier parameters first and in order, so earlier clients' positional calls still work
        # the stop flag is made before the job waits in the queue, so a Cancel while it waits is not lost
        translating = file_button.click(self.expect_upload, None, None, queue=False, api_visibility="private").then(
            self.translate_upload, [self.upload, self.backend, *self.decoding.listed(), *protection_inputs],
            download, api_name="translate_file")
        # the upload was read and deleted: not offered again; a refused one's notice says why (no error badge left)
        translating.then(lambda: None, None, self.upload, queue=False, api_visibility="private")
        translating.failure(lambda: (None, None), None, [download, self.upload], queue=False, api_visibility="private")
        # a new upload's translation is not yet made: the previous file's is not shown as if it were
        self.upload.upload(lambda: None, None, download, queue=False, api_visibility="private")
        # outside the queue, so it runs while the translation holds a worker; the translation stops after its
        # current batch and returns the file with what was done
        cancel_button.click(self.cancel_upload, None, None, queue=False, api_visibility="private")

    @staticmethod
    def add_glossary_file(file, glossary_text):
        if file is None:
            return gr.skip(), gr.skip()
        try:
            merged = load_glossary_file(file, glossary_text)
        except InputError as error:
            warn(str(error))
            return gr.skip(), None
        inform(f"Glossary: {len(merged.splitlines()):,} entries.")
        return merged, None

    def translate_source(self, text, backend, glossary, protect, *settings):
        protector = requested_protection(glossary, protect)
        output, summary, marks, protection = translate_text(self.service, text, backend, self.decoding.named(settings),
                                                           scores=True, protector=protector)
        return output, summary, marks, html.escape(protection, quote=False)  # it quotes the user's terms

    def offer_alternatives(self, text, backend, glossary, protect, *settings):
        """Up to four different translations of the input (taken as one) from beam search, to pick from; the
        glossary and the protected terms are kept as in the translation."""
        try:
            protector = requested_protection(glossary, protect)
            self.service.check_text(text)
            found = n_best(self.service.generator(backend), text, ALTERNATIVES,
                           decode_options(**self.decoding.named(settings)), protector)
        except InputError as error:  # and no list of an earlier input left to pick from
            warn(str(error))
            return gr.Radio(visible=False)
        except gr.Error as error:  # a bad glossary line: a notice, as Translate gives
            gr.Warning(error.message)
            return gr.Radio(visible=False)
        for warning in found.warnings:
            warn(warning)
        return gr.Radio(choices=[t for t, _ in found.choices if t], value=None, visible=True)

    # each parameter named (the API page lists them by name), in the order of the event's inputs: the decoding
    # controls as `DecodingControls.listed()` gives them, then the glossary and protection
    def translate_upload(self, request: gr.Request, progress=gr.Progress(), file=None, backend: str = "tf",
                         strategy: str = DEFAULT_DECODING["strategy"], beam_size: float = DEFAULT_DECODING["beam_size"],
                         length_penalty: float = DEFAULT_DECODING.get("length_penalty", 1.0),
                         temperature: float = 1.0, top_k: float = 0, top_p: float = 1.0, seed: str = "",
                         max_new_tokens: float | None = None, no_repeat_ngram: float = 0, glossary: str = "",
                         protect: bool = True):
        """Translate an uploaded document; returns the path of the English file (what the glossary did is
        shown as a notice). The upload is deleted as soon as it is read: uploads are read, never executed or kept."""
        settings = self.decoding.named([strategy, beam_size, length_penalty, temperature, top_k, top_p, seed,
                                        max_new_tokens, no_repeat_ngram])
        session = request.session_hash if request else ""
        stop = self.jobs.start(session)
        try:
            if stop.is_set():
                discard_upload(file)
                inform("Cancelled before the translation started: nothing was translated.")
                return None
            try:
                protector = requested_protection(glossary, protect)
            except gr.Error:
                discard_upload(file)
                raise
            path, protection, warnings, done = translate_file(self.service, self.outputs_dir, file, backend,
                                                              settings, progress, protector,
                                                              stop.is_set)
        finally:
            self.jobs.finish(session, stop)
        notes = list(dict.fromkeys(warnings))  # the file's (read as CP949, a part kept...) and its sentences'
        if done:
            inform(done)
        for note in notes[:MAX_NOTES]:
            (inform if note.startswith("Stopped") else warn)(note)
        if len(notes) > MAX_NOTES:
            warn(f"… and {len(notes) - MAX_NOTES:,} more notes like these.")
        if protection:
            inform(protection)
        return path

    def expect_upload(self, request: gr.Request):
        """Translate file was clicked: its job's stop flag is made now, outside the queue, so a Cancel while
        the job waits for a worker is kept."""
        self.jobs.expect(request.session_hash if request else "")

    def cancel_upload(self, request: gr.Request):
        """Stop this browser session's document translations: a running one after its current batch (it keeps
        what was done), one still waiting in the queue before it starts."""
        self.jobs.cancel(request.session_hash if request else "")


def remember_glossary(app: gr.Blocks, box: gr.Textbox) -> None:
    """Keep the glossary box's text in the browser, as the backend and decoding settings are kept, and put it
    back when the page loads (a glossary over MAX_SAVED_GLOSSARY characters is used but not kept)."""
    saved = browser_state(GLOSSARY_STATE, "")
    # in the page, not the server: no request for each key typed, and the text is back before anyone types; kept in
    # an object: Gradio's BrowserState stores no empty value, so a cleared box would come back (a plain string, as
    # saved before, is still read)
    keep = f"(text) => ({{text: (text ?? '').length <= {MAX_SAVED_GLOSSARY} ? text ?? '' : ''}})"
    put_back = ("(kept, shown) => { const text = typeof kept === 'string' ? kept : kept?.text;"
                " return typeof text === 'string' && !shown ? text : shown; }")
    quiet = {"show_progress": "hidden", "api_visibility": "private"}
    box.change(None, box, saved, js=keep, trigger_mode="always_last", **quiet)
    app.load(None, [saved, box], box, js=put_back, **quiet)


class UploadJobs:
    """The stop flags of each browser session's document translations: those clicked and still waiting in the
    queue, in click order, and those running. Called from the queue's workers and from outside it at once."""

    def __init__(self):
        self._lock = threading.Lock()
        self._waiting: dict[str, list[threading.Event]] = {}
        self._running: dict[str, list[threading.Event]] = {}

    def expect(self, session: str) -> None:
        with self._lock:
            self._waiting.setdefault(session, []).append(threading.Event())

    def start(self, session: str) -> threading.Event:
        """The flag of the session's oldest waiting job (a fresh one for an API call, which has no click)."""
        with self._lock:
            waiting = self._waiting.get(session) or [threading.Event()]
            stop = waiting.pop(0)
            if not waiting:
                self._waiting.pop(session, None)
            self._running.setdefault(session, []).append(stop)
            return stop

    def finish(self, session: str, stop: threading.Event) -> None:
        with self._lock:
            running = self._running.get(session, [])
            if stop in running:
                running.remove(stop)
            if not running:
                self._running.pop(session, None)

    def cancel(self, session: str) -> None:
        with self._lock:
            for stop in self._waiting.get(session, []) + self._running.get(session, []):
                stop.set()

    def __len__(self) -> int:
        """How many jobs are waiting or running, in every session."""
        with self._lock:
            return sum(map(len, self._waiting.values())) + sum(map(len, self._running.values()))
