"""The Translate tab: Korean text or a .txt file to English, with the latency of each translation."""

from __future__ import annotations

import html
import tempfile
import time
from pathlib import Path

import gradio as gr

from studio.formats import FORMATS
from studio.tasks import TRANSLATOR
from studio.ui.decoding import DecodingControls, backend_dropdown
from studio.ui.service import InputError, Limits, ModelService, decode_options, with_warnings


# a word's confidence (mean log-probability of its pieces) -> how the Translate tab marks it
UNSURE, DOUBTFUL = -0.7, -1.6
CONFIDENCE_COLORS = {"unsure": "#fde68a", "doubtful": "#fca5a5"}


def confidence_marks(confidences) -> list[tuple[str, str | None]]:
    """(word, "unsure" | "doubtful" | None) for gr.HighlightedText, one line per translated line."""
    marks: list[tuple[str, str | None]] = []
    for number, scored in enumerate(confidences):
        if number:
            marks.append(("\n", None))
        for word, score in scored.words:
            marks.append((word + " ", "doubtful" if score < DOUBTFUL else "unsure" if score < UNSURE else None))
    return marks


def translate_text(service: ModelService, text: str, backend: str, settings: dict,
                   scores: bool = False) -> tuple[str, str, list]:
    """Translate one or more lines; returns (translation, latency summary, confidence marks: with `scores`,
    which costs one more forced pass over the output)."""
    from studio.document import split_sentences, translate_lines
    from studio.generate.confidence import Confidence

    try:
        service.check_text(text)
        options = decode_options(**settings)
        generator = service.generator(backend)
    except InputError as error:
        raise gr.Error(str(error), print_exception=False) from None
    lines = text.split("\n")
    filled = [line for line in lines if line.strip()]
    if len(filled) == 1 and len(split_sentences(filled[0])) == 1:  # one sentence: decode once, with latency
        output, latency, warnings = list(generator.stream(filled[0].strip(), options, scores=scores))[-1]
        outputs, summary = [output if line.strip() else "" for line in lines], latency.summary()
        confidences = [latency.confidence if line.strip() else Confidence([], 0.0) for line in lines] if scores else []
    else:
        started = time.perf_counter()
        confidences = [] if scores else None
        outputs, warnings = translate_lines(generator, lines, options, scores=confidences)
        sentences = sum(len(split_sentences(line)) for line in filled)
        summary = f"{backend} · {sentences} sentences · {(time.perf_counter() - started) * 1000:.0f} ms total"
    for warning in sorted(set(warnings)):
        gr.Warning(warning)
    return "\n".join(outputs), with_warnings(summary, warnings), confidence_marks(confidences or [])


def translate_file(service: ModelService, outputs_dir: Path, file, backend: str, settings: dict,
                   progress=None) -> str:
    """Translate an uploaded document (.txt line by line; .srt, .md, .html, .docx with their structure kept)
    into a new file of the same format under `outputs_dir`; returns its path. The upload is deleted as soon
    as it is read: uploads are read, never executed or kept."""
    from studio.document import translate_document
    from studio.errors import DataError
    from studio.formats import FormatLimits, output_name, read_document

    if file is None:
        raise gr.Error("Please choose a file first.", print_exception=False)
    limits = FormatLimits(max_bytes=service.limits.max_file_bytes, max_segments=service.limits.max_file_lines)
    try:
        name, data = _read_upload(file, service.limits)
        options = decode_options(**settings)
        generator = service.generator(backend)
        document = read_document(name, data, limits)
    except DataError as error:
        raise gr.Error(str(error), print_exception=False) from None
    except InputError as error:
        raise gr.Error(str(error), print_exception=False) from None
    total, done = max(1, len(document.segments)), 0

    def advance(count):
        nonlocal done
        done += count
        if progress is not None:
            progress(min(done / total, 1.0), desc="Translating")

    translated, _ = translate_document(generator, document, options, on_progress=advance)
    _remove_old_files(outputs_dir, max_age_s=3600)
    out = Path(tempfile.mkdtemp(dir=outputs_dir)) / output_name(name)
    out.write_bytes(translated)
    return str(out)


def translate_api(service: ModelService, default_backend: str):
    """The `/translate` endpoint. Its signature is the API's, so the default backend is bound here."""

    def translate(text: str, backend: str = default_backend, strategy: str = "greedy",
                  beam_size: int = 4) -> tuple[str, str]:
        """Translate Korean text (one or more lines) to English. Returns (translation, latency summary)."""
        return translate_text(service, text, backend, {"strategy": strategy, "beam_size": beam_size})[:2]

    return translate


def confidence_api(service: ModelService, default_backend: str):
    """The `/translate_scored` endpoint: the translation of each line with how sure the model is of it."""

    def translate_scored(text: str, backend: str = default_backend) -> list[dict]:
        """Translate Korean text (one or more lines) to English. Returns, per line: the translation, its
        confidence and each word's (mean log-probability of its pieces; 0 is sure, below -1.6 doubtful)."""
        from studio.document import translate_lines

        try:
            service.check_text(text)
            generator = service.generator(backend)
        except InputError as error:
            raise gr.Error(str(error), print_exception=False) from None
        confidences: list = []
        outputs, _ = translate_lines(generator, text.split("\n"), scores=confidences)
        return [{"translation": o, "confidence": round(c.sentence, 4), "words": [[w, round(v, 4)] for w, v in c.words]}
                for o, c in zip(outputs, confidences)]

    return translate_scored


def alternatives_api(service: ModelService, default_backend: str):
    """The `/translate_alternatives` endpoint: n-best translations of one input from beam search."""

    def translate_alternatives(text: str, n: int = 4, backend: str = default_backend) -> list[list]:
        """Up to n (1-8) different English translations of Korean text (taken as one input), best first,
        each as [translation, length-normalized log-probability]."""
        try:
            service.check_text(text)
            generator = service.generator(backend)
            n = int(n)
            if not 1 <= n <= 8:
                raise InputError("n must be between 1 and 8")
        except (InputError, ValueError, TypeError) as error:
            raise gr.Error(str(error), print_exception=False) from None
        return [[t, round(s, 4)] for t, s in generator.alternatives(" ".join(text.split()), n)]

    return translate_alternatives


class TranslateTab:
    """The tab's components, and its events bound to the handlers above."""

    def __init__(self, service: ModelService, default_backend: str):
        self.service = service
        self.outputs_dir = Path(tempfile.mkdtemp(prefix="studio-translations-"))
        if not service.available:
            gr.Markdown(f"**The translator is unavailable.** {html.escape(service.unavailable)}")
        with gr.Row():
            self.source = gr.Textbox(label="Korean", lines=5, max_length=service.limits.max_input_chars,
                                     elem_id="translate-input")
            target = gr.Textbox(label="English", lines=5, interactive=False, elem_id="translate-output",
                                buttons=["copy"])
        translate_button = gr.Button("Translate", variant="primary", elem_id="translate-button")
        latency = gr.Markdown(elem_id="translate-latency")
        marks = gr.HighlightedText(label="Confidence: words the model was unsure of (its own log-probabilities)",
                                   color_map=CONFIDENCE_COLORS, show_legend=True, combine_adjacent=False,
                                   elem_id="translate-confidence")
        gr.Examples(list(TRANSLATOR.prompts), inputs=self.source, label="Try")
        self.backend = backend_dropdown(service, default_backend, "translate-backend")
        self.decoding = DecodingControls("translate")
        with gr.Accordion("Translate a document (.txt, .srt, .md, .html, .docx)", open=False):
            self.upload = gr.File(label="Korean document: .txt (one paragraph per line), .srt, .md, .html or .docx",
                                  file_types=list(FORMATS))
            file_button = gr.Button("Translate file")
            download = gr.File(label="English translation (same format)", interactive=False)

        translate_button.click(self.translate_source, [self.source, self.backend, *self.decoding.listed()],
                               [target, latency, marks], api_visibility="private")
        # `/translate_file(file, backend, *settings)`: the API keeps the parameter names `file` and `backend`
        file_button.click(self.translate_upload, [self.upload, self.backend, *self.decoding.listed()], download,
                          api_name="translate_file")

    def translate_source(self, text, backend, *settings):
        return translate_text(self.service, text, backend, self.decoding.named(settings), scores=True)

    def translate_upload(self, file, backend: str, *settings, progress=gr.Progress()):
        """Translate an uploaded UTF-8 text file line by line; returns the path of the English file.
        The upload is deleted as soon as it is read: uploads are read, never executed or kept."""
        return translate_file(self.service, self.outputs_dir, file, backend, self.decoding.named(settings), progress)


def _read_upload(file, limits: Limits) -> tuple[str, bytes]:
    """(the uploaded file's name, its bytes), checked against the server's byte limit; the upload is then
    deleted. What the format makes of the bytes is `studio.formats`' business."""
    from studio.formats import FORMATS, suffix_of

    path = Path(file if isinstance(file, str) else getattr(file, "path", None) or file.name)
    name = getattr(file, "orig_name", None) or path.name
    try:
        if suffix_of(name) not in FORMATS:
            raise InputError(f"{name}: cannot translate this type of file; choose {', '.join(FORMATS)}")
        if path.stat().st_size > limits.max_file_bytes:
            raise InputError(f"That file is {path.stat().st_size:,} bytes; the limit is {limits.max_file_bytes:,}.")
        data = path.read_bytes()
    except OSError:
        raise InputError("The uploaded file could not be read; please upload it again.") from None
    finally:
        _delete_upload(path)
    return name, data


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

    for entry in directory.iterdir():
        if time.time() - entry.stat().st_mtime > max_age_s:
            shutil.rmtree(entry, ignore_errors=True)
