"""`studio chat` and `studio translate`: text in, replies or translations out (a terminal, a pipe, a file)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from studio.cli.common import (BACKENDS, EXPORT_MISSING, GLOSSARY, NO_REPEAT, PROTECT, SAMPLE, SEED, TEMPERATURE, TOP_K,
                               TOP_P, advancing, app, beam_option, check_writable, console, decode_options,
                               length_penalty_option, load_generator, progress_bar, protector_from, served_model,
                               show_protection, show_warnings, stdin_lines, typed_lines)
from studio.errors import DataError, StudioError
from studio.replies import FROM_THE_MODEL, GENERATE, RETRIEVE, check_mode, stored_reply
from studio.tasks import CHATBOT, task_named
from studio.files import atomic_write_bytes
from studio.formats import FORMATS, FormatLimits, output_name, read_document, same_format
from studio.formats import listed as document_types
from studio.text.preprocess import LANGUAGE_HINT
from studio.text.script import has_hangul
from studio.translation import n_best, translate_document
from studio.translation import translate as translate_text
from studio.variants import DEFAULT_BACKEND


@app.command()
def chat(bundle: Optional[Path] = typer.Option(None, help="Chatbot bundle directory [default: the shipped chatbot]"),
         backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
         max_new_tokens: Optional[int] = typer.Option(None, help="Longest reply in tokens [default: the model's limit]"),
         export_missing: bool = EXPORT_MISSING, beam: Optional[int] = beam_option("chatbot"),
         length_penalty: Optional[float] = length_penalty_option("chatbot"), sample: bool = SAMPLE,
         temperature: Optional[float] = TEMPERATURE, top_k: Optional[int] = TOP_K, top_p: Optional[float] = TOP_P,
         seed: Optional[int] = SEED, no_repeat_ngram: int = NO_REPEAT,
         reply: str = typer.Option(CHATBOT.reply_modes[0], "--reply", help="retrieve: a stored reply, the answer "
                                   "to the training question most like the message (the model writes it when none "
                                   "is alike); generate: the model writes every reply")):
    """Talk to the chatbot. With a pipe on stdin: one message per line in, one reply per line out."""
    options = decode_options("chatbot", beam, length_penalty, sample, temperature=temperature, top_k=top_k,
                             top_p=top_p, seed=seed, max_new_tokens=max_new_tokens, no_repeat_ngram=no_repeat_ngram)
    replier = Replier(bundle, backend, export_missing, reply)
    if not sys.stdin.isatty():
        for message in stdin_lines():
            if not message.strip():
                print("", flush=True)
                continue
            text, _, warnings = replier(message, options)
            show_warnings(warnings)
            print(text, flush=True)
        return
    console.print("[bold]Transformer Studio chatbot[/bold] — type a message in Korean; Ctrl-D or /quit to leave.")
    for message in typed_lines("[bold cyan]you>[/bold cyan] "):
        text, source, warnings = replier(message, options)
        show_warnings(warnings)
        console.print(f"[bold green]bot>[/bold green] {escape(text)}", highlight=False)
        console.print(f"[dim]     {escape(source)}[/dim]", highlight=False)


class Replier:
    """`studio chat`'s replies: a stored reply where the mode asks for one and one is alike, else the model's
    (loaded on first need: a chat of stored replies starts without loading a backend)."""

    def __init__(self, bundle: Optional[Path], backend: str, export_missing: bool, mode: str):
        self.served = served_model(bundle, "chatbot", export_missing)
        self.backend, self.export_missing = backend, export_missing
        modes = task_named(self.served.task).reply_modes
        self.mode = check_mode(mode, modes) if modes else GENERATE  # a task whose replies are the model's
        self.index = self.served.bundle.replies if self.mode == RETRIEVE else None
        self.generator = None if self.mode == RETRIEVE else load_generator(bundle, "chatbot", backend, export_missing)

    def __call__(self, message: str, options) -> tuple[str, str, list[str]]:
        """(reply, where it came from, warnings)."""
        stored, why = stored_reply(self.index, message, self.mode, (self.mode,))
        if stored is not None:
            hint = self.served.bundle.preprocessor.language_hint(message)
            return stored.text, stored.summary(), [hint] if hint else []
        if self.generator is None:
            self.generator = load_generator(self.served.bundle.path, "chatbot", self.backend, self.export_missing)
        result, latency = self.generator.timed(message, options)
        return result.text, f"{FROM_THE_MODEL} · {latency.summary()}", [*result.warnings, *([why] if why else [])]


@app.command()
def translate(text: Optional[str] = typer.Argument(None, help="Korean text; omit to read lines from stdin"),
              bundle: Optional[Path] = typer.Option(None, help="Translator bundle [default: the shipped translator]"),
              backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
              file: Optional[Path] = typer.Option(None, "--file", help="Translate this document: "
                                                                    f"{document_types(how=True)}"),
              format_: Optional[str] = typer.Option(None, "--format", help="Read --file as this format (txt, srt, "
                                                    "md, html, docx) whatever its name [default: by its suffix; "
                                                    "another suffix (.ko, .log) is read as text, line by line]"),
              out: Optional[Path] = typer.Option(None, "--out", help="Write the translation here (with --file; "
                                                                  "- for stdout) [default: FILE.en.EXT beside FILE; "
                                                                  "with --scores or --alternatives FILE.en.jsonl]"),
              export_missing: bool = EXPORT_MISSING, beam: Optional[int] = beam_option("translator"),
              length_penalty: Optional[float] = length_penalty_option("translator"), sample: bool = SAMPLE,
              temperature: Optional[float] = TEMPERATURE, top_k: Optional[int] = TOP_K,
              top_p: Optional[float] = TOP_P,
              seed: Optional[int] = SEED, no_repeat_ngram: int = NO_REPEAT,
              max_new_tokens: Optional[int] = typer.Option(None, help="Longest output in tokens"),
              glossary: Optional[Path] = GLOSSARY, protect: bool = PROTECT,
              scores: bool = typer.Option(False, "--scores", help="Write one JSON object per line instead: the "
                                          "translation, its confidence and each word's (mean log-probability; "
                                          "closer to 0 is surer)"),
              alternatives: int = typer.Option(0, "--alternatives", min=0, max=8,
                                               help="Write one JSON object per line instead: up to N different "
                                                    "translations from beam search (each line as one input, its "
                                                    "terms protected as without it), best first, with their "
                                                    "scores"),
              raw: bool = typer.Option(False, "--raw", help="The bare model, to compare with another toolkit: each "
                                       "line encoded by the source SentencePiece model alone and decoded as the "
                                       "decoding options say and nothing more (no text pipeline, sentence "
                                       "splitting, protection, length cap, figure guard or loop retry), the ids "
                                       "decoded by the target SentencePiece model alone")):
    """Translate Korean to English."""
    options = decode_options("translator", beam, length_penalty, sample, temperature=temperature, top_k=top_k,
                             top_p=top_p, seed=seed, max_new_tokens=max_new_tokens, no_repeat_ngram=no_repeat_ngram)
    if raw:
        _check_raw(file, format_, glossary, scores, alternatives)
    out = _check_request(text, file, out, scores, alternatives, sample, beam, format_)
    document = _read_document(file, format_) if file is not None else None  # a file's fault is named before a model loads
    protector = protector_from(glossary, protect) if not raw else None
    generator = load_generator(bundle, "translator", backend, export_missing)
    if raw:
        _translate_raw(generator, text, document, options, out)
        return
    if document is not None and not (scores or alternatives):
        _translate_document(generator, document, out, options, protector)
        return
    if text is not None:
        lines = [text]
    elif document is not None:
        lines = document.segments  # a .txt's lines
        show_warnings(document.warnings)  # read as CP949
    elif sys.stdin.isatty() and not (alternatives or scores):
        _translate_interactively(generator, options, protector)
        return
    else:
        lines = list(stdin_lines())
    if alternatives:
        _write_alternatives(generator, lines, alternatives, options, protector, out)
        return
    _write_translations(generator, lines, options, protector, scores, out, shown=file is not None)


def _check_request(text, file, out, scores: bool, alternatives: int, sample: bool, beam,
                   format_: Optional[str] = None) -> Optional[Path]:
    """Refuses, before any model loads, what `studio translate` cannot do as asked; returns the --out to write
    (a file's default name beside it when not given)."""
    if out is not None and file is None:
        raise StudioError("--out needs --file (the file to translate)")
    if text is not None and file is not None:
        raise StudioError("give the text to translate or a --file, not both")
    if text is not None and not text.strip():
        raise StudioError("nothing to translate: the text is empty (give Korean text, a --file, or lines on stdin)")
    _check_alternatives(alternatives, scores, sample, beam)
    if text is not None and _looks_like_a_document(text):
        raise StudioError(f"{text!r} looks like a file: to translate a document, give it with --file")
    if file is not None:
        if file.is_dir():
            raise StudioError(f"{file}: is a folder; give a file ({', '.join(FORMATS)})")
        if not file.exists():
            raise StudioError(f"{file}: file not found")
        if format_ is not None and "." + format_.lower().lstrip(".") not in FORMATS:
            raise StudioError(f"--format {format_[:20]}: not a document format; choose one of "
                              f"{', '.join(suffix.lstrip('.') for suffix in FORMATS)}")
        if (scores or alternatives) and _format_of(file, format_) != ".txt":
            raise StudioError(f"{file}: --scores and --alternatives write one JSON object per line; with --file "
                              "they take a .txt (one input per line)")
        out = out or file.with_name(_default_output(file, bool(scores or alternatives), format_))
        _check_output(file, out, json_lines=bool(scores or alternatives), format_=format_)
    return out


RAW_BATCH = 32  # lines --raw decodes together


def _check_raw(file, format_, glossary, scores: bool, alternatives: int) -> None:
    """--raw translates lines with the bare model: refused with what it cannot do."""
    if glossary is not None:
        raise StudioError("--raw runs the bare model, without protection: it takes no --glossary")
    if scores or alternatives:
        raise StudioError("--raw writes the bare model's translations: not with --scores or --alternatives")
    if file is not None and file.is_file() and _format_of(file, format_) != ".txt":
        raise StudioError(f"{file}: --raw translates lines; with --file it takes a .txt (one input per line)")


def _translate_raw(generator, text, document, options, out) -> None:
    """--raw: each line by the bare model (`TextGenerator.generate_raw`); an empty line stays empty."""
    if text is None and document is None and sys.stdin.isatty():
        console.print("[bold]Transformer Studio translator, the bare model[/bold] — type a line and press Enter; "
                      "Ctrl-D or /quit to leave.")
        for line in typed_lines("[bold cyan]raw>[/bold cyan] "):
            result = generator.generate_raw([line], options)[0]
            show_warnings(result.warnings)
            print(result.text, flush=True)
        return
    if text is not None:
        lines = [text]
    elif document is not None:
        lines = document.segments
    else:
        lines = list(stdin_lines())
    texts = [line for line in lines if line.strip()]
    results = iter([result for start in range(0, len(texts), RAW_BATCH)
                    for result in generator.generate_raw(texts[start:start + RAW_BATCH], options)])
    outputs, warnings = [], []
    for number, line in enumerate(lines, 1):
        result = next(results) if line.strip() else None
        outputs.append(result.text if result else "")
        warnings += [f"line {number}: {w}" for w in (result.warnings if result else [])]
    show_warnings(warnings)
    _write_lines(outputs, out if document is not None else None)


def _format_of(file: Path, format_: Optional[str]) -> str:
    """The format --file is read as: --format's, its suffix's, or plain text for a suffix no format has."""
    if format_ is not None:
        return same_format("." + format_.lower().lstrip("."))
    return same_format(file.suffix) if file.suffix.lower() in FORMATS else ".txt"


def _write_alternatives(generator, lines: list[str], n: int, options, protector, out) -> None:
    """--alternatives: one JSON object per input line, beam search's n-best with their scores."""
    rows, line_warnings, report = [], [], []
    protector = protector.remembering("\n".join(lines)) if protector else None  # one document's names
    for line in lines:
        found = n_best(generator, line, n, options, protector)
        line_warnings.append(found.warnings)
        report += found.report
        rows.append(json.dumps({"translation": found.choices[0][0] if found.choices else "",
                                "alternatives": [[t, round(s, 4)] for t, s in found.choices]},
                               ensure_ascii=False))
    _show_line_warnings(line_warnings)
    if protector:
        show_protection(report, protector, lines)
    _write_lines(rows, out)


def _write_translations(generator, lines: list[str], options, protector, scores: bool, out, shown: bool) -> None:
    """Each line's translation (or, with --scores, a JSON object with its confidence), its warnings named by line;
    `shown`: a progress bar on a terminal."""
    with progress_bar(disable=not shown) as progress:
        job = progress.add_task("translate", total=None)
        result = translate_text(generator, lines, options, on_progress=advancing(progress, job), scores=scores,
                                protector=protector)
    outputs, per_line = result.lines, result.line_warnings
    own = {w for ws in per_line for w in ws}
    show_warnings(sorted(set(w for w in result.warnings if w not in own)))  # lines kept as written, a stop
    _show_line_warnings([[w for w in dict.fromkeys(ws) if not _is_language_hint(w)]
                         + ([hint] if hint and has_hangul(line) else [])  # one without Korean was kept: said above
                         for line, ws, hint in zip(lines, per_line, map(generator.preprocessor.language_hint, lines))])
    if protector:
        show_protection(result.report, protector, lines)
    if scores:
        outputs = [json.dumps({"translation": o, "confidence": round(c.sentence, 4),
                               "words": [[w, round(v, 4)] for w, v in c.words]}, ensure_ascii=False)
                   for o, c in zip(outputs, result.confidences)]
    _write_lines(outputs, out)


def _check_alternatives(alternatives: int, scores: bool, sample: bool, beam: Optional[int]) -> None:
    """--alternatives comes from beam search and writes its own JSON: options that would be silently dropped
    are refused."""
    if not alternatives:
        return
    if scores:
        raise StudioError("--alternatives and --scores write different JSON lines; choose one")
    if sample or beam == 1:
        raise StudioError("--alternatives come from beam search (each one scored); leave out "
                          f"{'--sample' if sample else '--beam 1'}")


def _looks_like_a_document(text: str) -> bool:

    try:
        return Path(text).suffix.lower() in FORMATS and Path(text).is_file()
    except (OSError, ValueError):  # a name too long, a NUL: no file
        return False


def _check_output(file: Path, out: Path, json_lines: bool, format_: Optional[str] = None) -> None:
    """Refuses an --out that would overwrite the document being translated, write a Word document's bytes into a
    terminal, or give a file the suffix of another format."""
    read_as = _format_of(file, format_)
    if str(out) == "-":
        kind = FORMATS.get(read_as)
        if kind is not None and kind.binary and not json_lines and sys.stdout.isatty():
            raise StudioError(f"{file}: a {kind.description} is binary; give --out FILE{kind.suffix}, or pipe the "
                              "output (--out - into a file or a program)")
        return
    if out.exists() and os.path.samefile(out, file):
        raise StudioError(f"--out {out}: is the file being translated; its Korean would be lost. Give another name "
                          f"(by default {file.with_name(_default_output(file, json_lines, format_)).name})")
    check_writable(out, "--out")
    wanted = [".jsonl", ".json", ".txt"] if json_lines else [read_as]
    if not json_lines and read_as == ".txt" and out.suffix.lower() not in FORMATS:
        return  # plain text under any name ("test.ko" -> "test.en")
    if same_format(out.suffix) not in [same_format(suffix) for suffix in wanted]:
        raise StudioError(f"--out {out}: the translation is written as {'JSON lines' if json_lines else read_as}; "
                          f"give a name ending in {' or '.join(wanted)}")


def _default_output(file: Path, json_lines: bool, format_: Optional[str] = None) -> str:
    """FILE.en.EXT beside FILE, EXT the format it is read as when --format says (notes.txt --format md:
    notes.en.md); `test.ko`, a line file, gives `test.en`."""
    read_as = _format_of(file, format_)
    known = file.suffix.lower() in FORMATS or format_ is not None
    default = output_name(file.stem + read_as if known and same_format(file.suffix) != read_as else file.name)
    return str(Path(default).with_suffix(".jsonl")) if json_lines else default


def _is_language_hint(warning: str) -> bool:

    return LANGUAGE_HINT in warning


MAX_LINES_NAMED = 10


def _show_line_warnings(per_line: list[list[str]]) -> None:
    """Each warning once; with more than one input line, prefixed by the lines it is about ("line 3:",
    "lines 2, 5:")."""
    lines_of: dict[str, list[int]] = {}
    for number, warnings in enumerate(per_line, start=1):
        for warning in warnings:
            if number not in lines_of.setdefault(warning, []):
                lines_of[warning].append(number)
    for warning, numbers in lines_of.items():
        if len(per_line) > 1:
            named = ", ".join(map(str, numbers[:MAX_LINES_NAMED])) + (
                f" and {len(numbers) - MAX_LINES_NAMED} more" if len(numbers) > MAX_LINES_NAMED else "")
            warning = f"line{'s' if len(numbers) > 1 else ''} {named}: {warning}"
        show_warnings([warning])


def _translate_interactively(generator, options, protector) -> None:
    """A terminal on stdin: each line is translated when Enter is pressed."""

    console.print("[bold]Transformer Studio translator[/bold] — type Korean and press Enter; Ctrl-D or /quit to "
                  "leave.")
    for line in typed_lines("[bold cyan]ko>[/bold cyan] "):
        protector = protector.remembering(line) if protector else None  # names bracketed on earlier lines too
        result = translate_text(generator, [line], options, protector=protector)
        hint = generator.preprocessor.language_hint(line)
        show_warnings(sorted(set(w for w in result.warnings if not _is_language_hint(w)))
                       + ([hint] if hint and has_hangul(line) else []))
        if protector:
            show_protection(result.report, protector, [line])
        print(result.lines[0], flush=True)


def _write_lines(lines: list[str], out: Optional[Path]) -> None:
    """One output line per input line: into `out`, or to stdout (no `out`, or "-") as each is ready."""
    if out is not None and str(out) != "-":
        out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        console.print(f"Wrote {len(lines)} line{'' if len(lines) == 1 else 's'} to {out}")
    else:
        for line in lines:
            print(line, flush=True)


def _translate_document(generator, document, out: Path, options, protector=None) -> None:
    """A read document (`_read_document`: .txt line by line; .srt, .md, .html, .docx with their structure kept):
    the same format back, written to `out` (a .txt keeps its line breaks, CRLF or LF, its BOM and each line's
    indentation)."""

    with progress_bar() as progress, _stopped_by_ctrl_c() as stopped:
        job = progress.add_task("translate", total=None)
        result = translate_document(generator, document, options, on_progress=advancing(progress, job),
                                    protector=protector, stop=stopped)
    show_warnings(sorted(set(result.warnings)))
    if protector:
        show_protection(result.report, protector, document.segments)
    translated = result.document
    if str(out) == "-":
        sys.stdout.buffer.write(translated)
        sys.stdout.flush()
        return
    atomic_write_bytes(out, translated)
    console.print(f"Wrote {out}", highlight=False, markup=False)


@contextlib.contextmanager
def _stopped_by_ctrl_c():
    """A `stop()` for a document's translation: the first Ctrl-C asks it to stop after the current batch (what
    was translated is written, the rest kept in Korean), a second one quits at once."""
    asked = []

    def interrupted(signum, frame):
        if asked:
            raise KeyboardInterrupt
        asked.append(True)
        console.print("Stopping after the sentences being translated; the file will be written with what is "
                      "done (Ctrl-C again to quit without writing)...", highlight=False, markup=False)

    try:
        previous = signal.signal(signal.SIGINT, interrupted)
    except ValueError:  # not the main thread (a test, an embedding program): Ctrl-C as usual
        yield lambda: False
        return
    try:
        yield lambda: bool(asked)
    finally:
        signal.signal(signal.SIGINT, previous)


def _read_document(file: Path, format_: Optional[str] = None):
    """`file` read as its suffix says, or as --format says (`studio.formats.read_document`: the app's reader
    too); a suffix no format has (a corpus's `.ko`) is read as plain text, line by line, when it is text. No limit
    on its size or its number of segments (the app's limits guard a shared server; here the file is the user's
    own)."""

    try:
        data = file.read_bytes()
    except OSError as error:
        raise StudioError(f"{file}: cannot read it ({error.strerror or error})") from None
    guessed = format_ is None and file.suffix.lower() not in FORMATS
    limits = FormatLimits(max_bytes=max(len(data), 1), max_segments=sys.maxsize)
    try:
        document = read_document(str(file), data, limits, format=".txt" if guessed else format_)
    except DataError as error:
        if not guessed:
            raise
        raise StudioError(f"{file}: cannot translate {file.suffix or 'a file without a suffix'}: it is no document "
                          f"format ({', '.join(FORMATS)}) and does not read as text ({str(error).split(': ', 1)[-1]}); "
                          "--format chooses one") from None
    if guessed:
        document.warnings.insert(0, f"{file.name}: read as plain text, one paragraph per line "
                                    f"({file.suffix or 'no suffix'} is no document format; --format chooses one)")
    return document
