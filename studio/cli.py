"""The `studio` command."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Optional

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TensorFlow's C++ start-up chatter out of the CLI

import typer  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.logging import RichHandler  # noqa: E402
from rich.markup import escape  # noqa: E402
from rich.table import Table  # noqa: E402

from studio.errors import StudioError  # noqa: E402

app = typer.Typer(help="Transformer Studio: a Korean chatbot and a Korean→English translator.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode="markdown")  # help texts hold "[default: …]", which rich markup would drop
console = Console(stderr=True, soft_wrap=True)  # never break a path or command across lines
from studio.exports import DEFAULT_BACKEND, backends_help, variant  # noqa: E402
from studio.formats import listed as document_types  # noqa: E402
from studio.tasks import SAMPLING, task_named  # noqa: E402

BACKENDS = backends_help()


def _load_generator(bundle: Optional[Path], task: str, backend: str, export_missing: bool = True):
    """A generator on `backend`; a missing or stale export is rebuilt first (or reported, when asked not to)."""
    from studio.serving import ServedModel

    try:
        task_named(task)  # its message names the tasks
    except ValueError as error:
        raise StudioError(str(error)) from None
    served = ServedModel.shared(task, bundle, build_missing=export_missing,
                                progress=lambda message: console.print(message, highlight=False, markup=False))
    if served.task != task:  # allowed (a tiny bundle of either task serves both in tests), but said
        _show_warnings([f"{served.bundle.path} is a {served.task} bundle, not a {task}: its outputs are "
                        f"{'chat replies' if served.task == 'chatbot' else 'translations'}"])
    try:
        if variant(backend).format == "tf" and "tensorflow" not in sys.modules:
            console.print(f"Loading TensorFlow and the {task} (about 10 s; the default backend, {DEFAULT_BACKEND}, "
                          "starts in about 1 s)...", highlight=False, markup=False)
        return served.generator(backend)
    except ValueError as error:  # an unknown backend name
        raise StudioError(str(error)) from None


EXPORT_MISSING = typer.Option(True, help="Build a missing or stale export of the chosen backend instead of failing")
GLOSSARY = typer.Option(None, "--glossary", help="File of terms to translate as given: `korean<TAB>english` (TSV) "
                                                   "or `korean = english` lines")
PROTECT = typer.Option(True, "--protect/--no-protect", help="Pass URLs, e-mail addresses, numbers with units, "
                                                             "decimals and Latin-script names through unchanged, "
                                                             "Korean amounts "
                                                             "(30억 달러) in English ($3 billion), and a name given "
                                                             "with its original (도이체반(Deutsche Bahn)) as the "
                                                             "original")


def _protector(glossary: Optional[Path], protect: bool):
    """The translator's term protection for these options (None when it has nothing to do)."""
    from studio.text.protect import Glossary, protector_for

    return protector_for(Glossary.read(glossary) if glossary else Glossary(), protect)


def _advancing(progress, job):
    """An `on_progress(done, total)` that moves `job`'s bar in a rich Progress."""
    return lambda done, total: progress.update(job, completed=done, total=total)


def _show_protection(report: list, protector, texts: list[str]) -> None:
    """What term protection did, and the glossary terms `texts` have only inside longer words."""
    from studio.text.protect import describe

    said = describe(report, protector.glossary, "\n".join(texts))
    if said:
        console.print(said, highlight=False, markup=False)


def decode_options(task: str, beam: Optional[int] = None, length_penalty: Optional[float] = None,
                   sample: bool = False, **values) -> "DecodeOptions":
    """The options these flags ask for (`--beam`, `--sample` and the other flags by their DecodeOptions names);
    what they leave out is the task's default decoding (`studio.tasks`)."""
    from studio.generate.options import decode_options as options_from

    strategy = "sample" if sample else None if beam is None else "beam" if beam > 1 else "greedy"
    if "no_repeat_ngram" in values:
        values["no_repeat_ngram_size"] = values.pop("no_repeat_ngram")
    try:
        return options_from(task_named(task).default_decoding, strategy=strategy, beam_size=beam,
                            length_penalty=length_penalty, **values)
    except ValueError as error:
        raise StudioError(str(error)) from None


def _beam_option(task: str):
    default = task_named(task).default_decoding
    shown = default["beam_size"] if default["strategy"] == "beam" else "1, greedy"
    return typer.Option(None, "--beam", help=f"Beam size (1 = greedy) [default: {shown}]")


def _length_penalty_option(task: str):
    return typer.Option(None, help="Beam: rank by log-prob / length^penalty "
                                   f"[default: {task_named(task).default_decoding.get('length_penalty', 1.0)}]")


LENGTH_PENALTY = typer.Option(None, help="Beam: rank by log-prob / length^penalty [default: the translator's 1.8, "
                                         "else 1.0]")
SAMPLE = typer.Option(False, "--sample", help="Sample instead of taking the most likely token")
_SAMPLING = dict(SAMPLING)
TEMPERATURE = typer.Option(None, help=f"Sampling temperature [default: {_SAMPLING['temperature']}]")
TOP_K = typer.Option(None, help=f"Sample only among the k most likely tokens (0 = all) [default: {_SAMPLING['top_k']}]")
TOP_P = typer.Option(None, help="Sample only within the smallest set of tokens whose probability reaches p "
                                f"[default: {_SAMPLING['top_p']}]")
SEED = typer.Option(None, help="Random seed: the same seed gives the same samples")
NO_REPEAT = typer.Option(0, "--no-repeat-ngram", help="Never repeat an n-gram of this size in one output (0 = off)")


def _tolerate_bad_bytes_on_stdin():
    """Piped text that is not valid UTF-8 becomes U+FFFD instead of a UnicodeDecodeError traceback;
    lines break only at \\n, so one input line is one output line."""
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(encoding="utf-8", errors="replace", newline="\n")


def _show_warnings(warnings):
    for warning in warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)


@app.command()
def chat(bundle: Optional[Path] = typer.Option(None, help="Chatbot bundle directory [default: the shipped chatbot]"),
         backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
         max_new_tokens: Optional[int] = typer.Option(None, help="Longest reply in tokens [default: the model's limit]"),
         export_missing: bool = EXPORT_MISSING, beam: Optional[int] = _beam_option("chatbot"),
         length_penalty: Optional[float] = _length_penalty_option("chatbot"), sample: bool = SAMPLE,
         temperature: Optional[float] = TEMPERATURE, top_k: Optional[int] = TOP_K, top_p: Optional[float] = TOP_P,
         seed: Optional[int] = SEED, no_repeat_ngram: int = NO_REPEAT):
    """Talk to the chatbot. With a pipe on stdin: one message per line in, one reply per line out."""
    options = decode_options("chatbot", beam, length_penalty, sample, temperature=temperature, top_k=top_k,
                             top_p=top_p, seed=seed, max_new_tokens=max_new_tokens, no_repeat_ngram=no_repeat_ngram)
    generator = _load_generator(bundle, "chatbot", backend, export_missing)
    if not sys.stdin.isatty():
        _tolerate_bad_bytes_on_stdin()
        for line in sys.stdin:
            message = line.rstrip("\n")
            if not message.strip():
                print("", flush=True)
                continue
            result = generator.generate([message], options=options)[0]
            _show_warnings(result.warnings)
            print(result.text, flush=True)
        return
    console.print("[bold]Transformer Studio chatbot[/bold] — type a message in Korean; Ctrl-D or /quit to leave.")
    for message in _typed_lines("[bold cyan]you>[/bold cyan] "):
        result = generator.generate([message], options=options)[0]
        _show_warnings(result.warnings)
        console.print(f"[bold green]bot>[/bold green] {escape(result.text)}", highlight=False)


@app.command()
def translate(text: Optional[str] = typer.Argument(None, help="Korean text; omit to read lines from stdin"),
              bundle: Optional[Path] = typer.Option(None, help="Translator bundle [default: the shipped translator]"),
              backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
              file: Optional[Path] = typer.Option(None, "--file", help="Translate this document: "
                                                                    f"{document_types(how=True)}"),
              out: Optional[Path] = typer.Option(None, "--out", help="Write the translation here (with --file; "
                                                                  "- for stdout) [default: FILE.en.EXT beside FILE; "
                                                                  "with --scores or --alternatives FILE.en.jsonl]"),
              export_missing: bool = EXPORT_MISSING, beam: Optional[int] = _beam_option("translator"),
              length_penalty: Optional[float] = _length_penalty_option("translator"), sample: bool = SAMPLE,
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
                                                    "scores")):
    """Translate Korean to English."""
    options = decode_options("translator", beam, length_penalty, sample, temperature=temperature, top_k=top_k,
                             top_p=top_p, seed=seed, max_new_tokens=max_new_tokens, no_repeat_ngram=no_repeat_ngram)
    from studio.text.script import has_hangul
    from studio.translation import translate as translate_text

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
        from studio.formats import FORMATS

        if file.is_dir():
            raise StudioError(f"{file}: is a folder; give a file ({', '.join(FORMATS)})")
        if not file.exists():
            raise StudioError(f"{file}: file not found")
        if file.suffix.lower() not in FORMATS:
            raise StudioError(f"{file}: cannot translate {file.suffix or 'files without a suffix'}; "
                              f"choose one of {', '.join(FORMATS)}")
        if (scores or alternatives) and file.suffix.lower() != ".txt":
            raise StudioError(f"{file}: --scores and --alternatives write one JSON object per line; with --file "
                              "they take a .txt (one input per line)")
        out = out or file.with_name(_default_output(file, bool(scores or alternatives)))
        _check_output(file, out, json_lines=bool(scores or alternatives))
    document = _read_document(file) if file is not None else None  # a file's fault is named before a model loads
    protector = _protector(glossary, protect)
    generator = _load_generator(bundle, "translator", backend, export_missing)
    if document is not None and not (scores or alternatives):
        _translate_document(generator, document, out, options, protector)
        return
    if text is not None:
        lines = [text]
    elif document is not None:
        lines = document.segments  # a .txt's lines
        _show_warnings(document.warnings)  # read as CP949
    elif sys.stdin.isatty() and not (alternatives or scores):
        _translate_interactively(generator, options, protector)
        return
    else:
        _tolerate_bad_bytes_on_stdin()
        lines = [line.rstrip("\n") for line in sys.stdin]
    if alternatives:
        import json

        from studio.translation import n_best

        rows, line_warnings, report = [], [], []
        protector = protector.remembering("\n".join(lines)) if protector else None  # one document's names
        for line in lines:
            found = n_best(generator, line, alternatives, options, protector)
            line_warnings.append(found.warnings)
            report += found.report
            rows.append(json.dumps({"translation": found.choices[0][0] if found.choices else "",
                                    "alternatives": [[t, round(s, 4)] for t, s in found.choices]},
                                   ensure_ascii=False))
        _show_line_warnings(line_warnings)
        if protector:
            _show_protection(report, protector, lines)
        _write_lines(rows, out)
        return
    with _progress(disable=file is None) as progress:
        job = progress.add_task("translate", total=None)
        result = translate_text(generator, lines, options, on_progress=_advancing(progress, job), scores=scores,
                                protector=protector)
    outputs, per_line = result.lines, result.line_warnings
    own = {w for ws in per_line for w in ws}
    _show_warnings(sorted(set(w for w in result.warnings if w not in own)))  # lines kept as written, a stop
    _show_line_warnings([[w for w in dict.fromkeys(ws) if not _is_language_hint(w)]
                         + ([hint] if hint and has_hangul(line) else [])  # one without Korean was kept: said above
                         for line, ws, hint in zip(lines, per_line, map(generator.preprocessor.language_hint, lines))])
    if protector:
        _show_protection(result.report, protector, lines)
    if scores:
        import json

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
    from studio.formats import FORMATS

    try:
        return Path(text).suffix.lower() in FORMATS and Path(text).is_file()
    except (OSError, ValueError):  # a name too long, a NUL: no file
        return False


def _check_output(file: Path, out: Path, json_lines: bool) -> None:
    """Refuses an --out that would overwrite the document being translated, write a Word document's bytes into a
    terminal, or give a file the suffix of another format."""
    from studio.formats import FORMATS, same_format

    if str(out) == "-":
        kind = FORMATS.get(file.suffix.lower())
        if kind is not None and kind.binary and not json_lines and sys.stdout.isatty():
            raise StudioError(f"{file}: a {kind.description} is binary; give --out FILE{kind.suffix}, or pipe the "
                              "output (--out - into a file or a program)")
        return
    if out.exists() and os.path.samefile(out, file):
        raise StudioError(f"--out {out}: is the file being translated; its Korean would be lost. Give another name "
                          f"(by default {file.with_name(_default_output(file, json_lines)).name})")
    _check_writable(out, "--out")
    wanted = [".jsonl", ".json", ".txt"] if json_lines else [file.suffix.lower()]
    if same_format(out.suffix) not in [same_format(suffix) for suffix in wanted]:
        raise StudioError(f"--out {out}: the translation is written as {'JSON lines' if json_lines else file.suffix}; "
                          f"give a name ending in {' or '.join(wanted)}")


def _default_output(file: Path, json_lines: bool) -> str:
    from studio.formats import output_name

    default = output_name(file.name)
    return str(Path(default).with_suffix(".jsonl")) if json_lines else default


def _check_writable(path: Path, option: str) -> None:
    """A file a command writes at its end: its folder must exist now (or the run's work would be lost)."""
    if path.is_dir():
        raise StudioError(f"{option} {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise StudioError(f"{option} {path}: the folder {path.parent} does not exist")


def _progress(disable: bool = False):
    """The translators' progress bar on stderr; none where stderr is not a terminal (a log file would only get
    the blank line a finished bar leaves)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(TextColumn("translating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=console, transient=True, disable=disable or not console.is_terminal)


def _is_language_hint(warning: str) -> bool:
    from studio.text.preprocess import LANGUAGE_HINT

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
        _show_warnings([warning])


def _translate_interactively(generator, options, protector) -> None:
    """A terminal on stdin: each line is translated when Enter is pressed."""
    from studio.text.script import has_hangul
    from studio.translation import translate as translate_text

    console.print("[bold]Transformer Studio translator[/bold] — type Korean and press Enter; Ctrl-D or /quit to "
                  "leave.")
    for line in _typed_lines("[bold cyan]ko>[/bold cyan] "):
        protector = protector.remembering(line) if protector else None  # names bracketed on earlier lines too
        result = translate_text(generator, [line], options, protector=protector)
        hint = generator.preprocessor.language_hint(line)
        _show_warnings(sorted(set(w for w in result.warnings if not _is_language_hint(w)))
                       + ([hint] if hint and has_hangul(line) else []))
        if protector:
            _show_protection(result.report, protector, [line])
        print(result.lines[0], flush=True)


def _typed_lines(prompt: str):
    """The non-blank lines typed at a terminal prompt, until Ctrl-D, Ctrl-C or /quit (/exit)."""
    while True:
        try:
            line = console.input(prompt)
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if line.strip() in ("/quit", "/exit"):
            return
        if line.strip():
            yield line


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
    from studio.files import atomic_write_bytes
    from studio.translation import translate_document

    with _progress() as progress, _stopped_by_ctrl_c() as stopped:
        job = progress.add_task("translate", total=None)
        result = translate_document(generator, document, options, on_progress=_advancing(progress, job),
                                    protector=protector, stop=stopped)
    _show_warnings(sorted(set(result.warnings)))
    if protector:
        _show_protection(result.report, protector, document.segments)
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


def _read_document(file: Path):
    """`file` read as its suffix says (`studio.formats.read_document`: the app's reader too), with no limit on
    its size or its number of segments (the app's limits guard a shared server; here the file is the user's own)."""
    from studio.formats import FormatLimits, read_document

    try:
        data = file.read_bytes()
    except OSError as error:
        raise StudioError(f"{file}: cannot read it ({error.strerror or error})") from None
    return read_document(str(file), data, FormatLimits(max_bytes=max(len(data), 1), max_segments=sys.maxsize))


@app.command()
def train(task: str = typer.Argument(..., help="chatbot or translator"),
          out: Path = typer.Option(..., help="Run directory; it becomes a loadable bundle"),
          data_dir: Optional[Path] = typer.Option(None, help="Data directory (see `studio data`)"),
          data: Optional[list[Path]] = typer.Option(None, help="Train on these files instead (.csv, .tsv, .ko, .tar.gz)"),
          sources: Optional[str] = typer.Option(None, help="Translator mix: all, commercial-safe, or names (kss,korsts,...)"),
          resume: bool = typer.Option(False, help="Continue the run in --out from its last checkpoint"),
          preset: Optional[str] = typer.Option(None, help="Configuration preset: chatbot, translator, translator-tutorial"),
          init_from: Optional[Path] = typer.Option(None, help="Start from this bundle's weights and tokenizer "
                                                               "(e.g. continue training a shipped model); with another "
                                                               "text pipeline or --tokenizer, its embeddings are re-indexed"),
          tokenizer: Optional[Path] = typer.Option(None, help="Use this tokenizer folder (a bundle's tokenizer/) "
                                                              "instead of training one"),
          epochs: Optional[int] = typer.Option(None, help="Epochs [default: the task's preset]"),
          strategy: Optional[str] = typer.Option(None, help="tf.distribute strategy: default, mirrored, multiworker"),
          max_steps: Optional[int] = typer.Option(None, help="Stop after this many steps (a budget in steps; "
                                                                "--max-minutes is one in time)"),
          max_minutes: Optional[float] = typer.Option(None, help="Stop after this many training minutes (resumable)"),
          checkpoint_minutes: float = typer.Option(10.0, help="Also checkpoint every this many minutes"),
          set_: Optional[list[str]] = typer.Option(None, "--set", help="Override a setting, e.g. model.d_model=128")):
    """Train a chatbot or a translator; writes checkpoints, TensorBoard logs and a bundle into --out."""
    from studio.train.run import config_from_args, train_task

    overrides = config_from_args(set_ or [])
    if epochs:
        overrides["train.epochs"] = epochs
    if strategy:
        overrides["train.strategy"] = strategy
    if max_minutes:
        overrides["train.max_minutes"] = max_minutes
    metrics = train_task(task, out, data_dir=data_dir, resume=resume, sources=sources, data_files=data,
                         overrides=overrides, max_steps=max_steps, console=console,
                         checkpoint_minutes=checkpoint_minutes, preset=preset, init_from=init_from,
                         tokenizer_dir=tokenizer)
    summary = {k: metrics[k] for k in ("dev_loss", "dev_token_accuracy", "dev_chrf") if k in metrics}
    console.print(f"Done: {summary}")


@app.command()
def ensemble(bundles: list[Path] = typer.Argument(..., help="Two or more bundles of one architecture and tokenizer, "
                                                            "trained apart (e.g. --set train.seed=N)"),
             out: Path = typer.Option(..., help="Where to write the ensemble's bundle")):
    """One bundle of several trained models whose next-token log-probabilities are averaged at every step (an
    ensemble: usually better than each member, and as slow as all of them). Score it with `studio eval`."""
    from studio.train.ensemble import ensemble_bundle

    path = ensemble_bundle(bundles, out)
    console.print(f"Ensemble of {len(bundles)} written to {path}; score it with `studio eval <task> --bundle {path}`",
                  highlight=False)


@app.command()
def export(bundle: Optional[Path] = typer.Argument(None, help="Bundle directory [default: the shipped chatbot]"),
           out: Optional[Path] = typer.Option(None, help="Output directory [default: BUNDLE/exports]"),
           quantize: str = typer.Option("all", help="TFLite: none, float16, dynamic-int8, or all"),
           onnx_quantize: str = typer.Option("all", help="ONNX: none, int8, or all"),
           verify: bool = typer.Option(True, help="Check the graphs reproduce TensorFlow's logits and greedy outputs"),
           batch1: bool = typer.Option(False, "--batch1", help="Also the batch-1 graphs with static shapes "
                                                                "(model.b1*.tflite: the web page, mobile apps)")):
    """Export a bundle to TFLite (signatures encode/decode_step/decode_rows, builtin ops only) and ONNX, with a manifest."""
    from exporters import export_bundle
    from studio.bundle import default_bundle
    from studio.exports import EXPORTED_BACKENDS, VARIANTS

    def variants(value, format_name, option):
        known = {VARIANTS[name].quantization: name for name in EXPORTED_BACKENDS if VARIANTS[name].format == format_name}
        chosen = list(known) if value == "all" else [v.strip() for v in value.split(",") if v.strip()]
        unknown = [v for v in chosen if v not in known]
        if unknown:
            raise StudioError(f"{option}: unknown variant(s) {', '.join(unknown)}; choose from {', '.join(known)} or all")
        return [known["none"]] + [known[v] for v in chosen if v != "none"]

    tflite = variants(quantize, "tflite", "--quantize")
    backends = tflite + variants(onnx_quantize, "onnx", "--onnx-quantize")
    if batch1:
        quantizations = {VARIANTS[name].quantization for name in tflite}
        backends += [v.name for v in VARIANTS.values() if v.batch == 1 and v.quantization in quantizations]
    manifest = export_bundle(bundle or default_bundle("chatbot"), out, backends, verify,
                             progress=lambda message: console.print(message, highlight=False))
    table = Table(title="Exported graphs")
    for column in ("file", "MB", "max |logit diff| vs TF", "greedy match"):
        table.add_column(column)
    verification = manifest.get("verification", {})
    backend_of = {file: name for name in EXPORTED_BACKENDS for file in VARIANTS[name].files[:1]}
    for name, entry in manifest["files"].items():
        check = verification.get(backend_of.get(name, ""), {})
        table.add_row(name, f"{entry['bytes'] / 2**20:.1f}",
                      f"{check['max_abs_logit_diff']:.2e}" if check else "",
                      f"{check['greedy_match_rate']:.0%} of {check['samples']}" if check else "")
    Console().print(table)


@app.command()
def web(site: Path = typer.Argument(..., help="Folder to write the static site into"),
        bundle: Optional[list[Path]] = typer.Option(None, help="Bundle(s), one tab each [default: the shipped chatbot "
                                                               "and translator]"),
        variant: str = typer.Option("tflite-b1-float16", help="The .tflite the page runs (batch 1, static shapes): "
                                                               "tflite-b1, tflite-b1-float16 or tflite-b1-int8")):
    """Write a static web site that runs the models in the visitor's browser (LiteRT.js, offline after load)."""
    from exporters.web import build_site
    from studio.bundle import default_bundle

    bundles = bundle or [default_bundle("chatbot"), default_bundle("translator")]
    build_site(bundles, site, variant, progress=lambda message: console.print(message, highlight=False))


def _evaluation_sets(task: str, test: list[Path] | None, sets: str, data_dir: Path | None,
                     config=None) -> list[tuple[str, list]]:
    """(name, pairs) to evaluate on: the --test files, else the task's named sets (the chatbot's is its own
    held-out split of ChatbotData, the translator's are the dev/test files of `studio data`)."""
    from studio.data import read_pairs
    from studio.data.sources import EVAL_SETS, TUNING_SETS, chatbot_dev_pairs, find_file

    if test:
        return [(Path(path).stem, read_pairs(path)) for path in test]
    if task == "chatbot":
        if sets not in ("all", "tuning", "chatbot_dev"):
            raise StudioError(f"unknown evaluation set(s) {sets} for the chatbot: its set is chatbot_dev (its "
                              "held-out split of ChatbotData); pass --test FILE for another")
        return [("chatbot_dev", chatbot_dev_pairs(data_dir, config))]
    names = (list(EVAL_SETS) if sets == "all" else list(TUNING_SETS) if sets == "tuning"
             else [n.strip() for n in sets.split(",") if n.strip()])
    unknown = [n for n in names if n not in EVAL_SETS]
    if unknown:
        raise StudioError(f"unknown evaluation set(s) {', '.join(unknown)}; choose from {', '.join(EVAL_SETS)}, "
                          "all or tuning")
    found = {name: find_file(EVAL_SETS[name], data_dir) for name in names}
    missing = [name for name, path in found.items() if path is None]
    if missing or not names:
        raise StudioError(f"evaluation set(s) not found: {', '.join(missing) or 'none named'}; pass --test FILE "
                          "or --data-dir (see `studio data`)")
    return [(name, read_pairs(path)) for name, path in found.items()]


@app.command(name="eval")
def evaluate_command(task: str = typer.Argument(..., help="translator or chatbot"),
                     test: Optional[list[Path]] = typer.Option(None, help="Test file(s) (.tsv pairs, .csv, .ko, "
                                                               "park .tar.gz) [default: --sets]"),
                     sets: str = typer.Option("all", help="Named sets when no --test: all, tuning (park_dev, "
                                                          "wmt24pp_news_dev, jhe_dev), or names; park_test is for "
                                                          "reporting only: never tune on it. The chatbot's set is "
                                                          "its held-out split of ChatbotData"),
                     bundle: Optional[Path] = typer.Option(None, help="Bundle [default: the shipped model]"),
                     backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
                     beam: int = typer.Option(4, "--beam", help="Beam size for the beam-search row (1 = skip it)"),
                     length_penalty: Optional[float] = LENGTH_PENALTY,
                     limit: Optional[int] = typer.Option(None, min=1, help="Only the first N pairs of each file"),
                     batch_size: int = typer.Option(32, min=1, help="Sentences decoded together"),
                     hypotheses: Optional[Path] = typer.Option(None, help="Write outputs here: one file per test "
                                                               "set and strategy, named after this prefix"),
                     data_dir: Optional[Path] = typer.Option(None, help="Where to find the default test sets"),
                     record: bool = typer.Option(False, help="Also store the scores in the bundle's metrics.json "
                                                             "and model card"),
                     glossary: Optional[Path] = GLOSSARY, protect: bool = PROTECT,
                     export_missing: bool = EXPORT_MISSING):
    """Corpus BLEU and chrF (sacrebleu, with signatures) for greedy and beam search."""
    from rich.progress import Progress

    from studio.evaluate import decoding_name, evaluate
    from studio.generate import DecodeOptions
    from studio.train.card import evaluation_entry, record_evaluation

    if glossary and task == "chatbot":
        raise StudioError("--glossary is for the translator")
    protector = _protector(glossary, protect) if task == "translator" else None  # a bad glossary fails first
    if hypotheses:
        _check_writable(hypotheses, "--hypotheses")
    generator = _load_generator(bundle, task, backend, export_missing)
    test_sets = _evaluation_sets(task, test, sets, data_dir, generator.config)
    strategies = {"greedy": DecodeOptions()}
    if beam > 1:  # at the task's default length penalty unless one is given
        options = decode_options(task, beam, length_penalty, temperature=1.0, top_k=0, top_p=1.0)
        strategies[decoding_name(options)] = options
    chatbot = generator.config.task.task == "chatbot"
    table = Table(title=f"{generator.bundle.path.name} on {backend}")
    for column in ("test set", "pairs", "decoding", "BLEU", "chrF", "BLEU (lc)", "chrF (lc)", "repeating",
                   *(["distinct"] if chatbot else []), "seconds"):
        table.add_column(column)
    signatures = set()
    recorded = {}
    for name, pairs in test_sets:
        pairs = [p for p in pairs if p.source.strip()][:limit] if limit else pairs
        with Progress(console=console, transient=True, disable=not console.is_terminal) as progress:
            job = progress.add_task(f"{name} (sentences decoded)", total=None)
            scores = evaluate(generator, pairs, strategies, batch_size,
                              on_progress=_advancing(progress, job),
                              protector=protector)
        for result in scores:
            table.add_row(name, str(len(pairs)), result.name, f"{result.bleu:.2f}", f"{result.chrf:.2f}",
                          f"{result.bleu_lc:.2f}", f"{result.chrf_lc:.2f}",
                          f"{result.repeating:.1%} (references {result.repeating_references:.1%})",
                          *([f"{result.distinct:.1%}"] if chatbot else []), f"{result.seconds:.0f}")
            signatures.update([f"BLEU {result.bleu_signature}", f"chrF {result.chrf_signature}"])
            recorded.setdefault(name, {})[result.name] = evaluation_entry(
                result, len(pairs), backend, task_named(generator.config.task.task))
            if hypotheses:
                target = Path(f"{hypotheses}.{name}.{result.name.replace(' ', '').replace(',', '-')}.txt")
                target.write_text("".join(h + "\n" for h in result.hypotheses), encoding="utf-8")
    Console(width=None if sys.stdout.isatty() else 160).print(table)  # piped: wide enough for every column
    for signature in sorted(signatures):
        console.print(signature, highlight=False)
    if record:
        recorded_in = record_evaluation(generator, recorded, backend)
        console.print(f"Recorded in {recorded_in} and MODEL_CARD.md")


@app.command()
def bench(bundle: Optional[Path] = typer.Option(None, help="Bundle [default: the shipped chatbot]"),
          backends: str = typer.Option("all", help="Comma-separated, or all: " + backends_help(serving=False)),
          lengths: str = typer.Option("8,16,30", help="Output lengths in tokens (short, medium, long)"),
          repeats: int = typer.Option(7, min=1, help="Timed runs per backend and length"),
          threads: int = typer.Option(os.cpu_count() or 1, min=1, help="CPU threads, the same for every backend"),
          json_path: Optional[Path] = typer.Option(None, "--json", help="Write the rows here"),
          plot_path: Optional[Path] = typer.Option(None, "--plot", help="Save a bar chart here (PNG)")):
    """Measure decode latency of every backend on the same inputs, side by side in one run."""
    import json

    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see studio/bench/latency.py: no spin-waiting pools

    from studio.bench.latency import plot, run_benchmark
    from studio.bundle import default_bundle, load_bundle
    from studio.exports import VARIANTS

    try:
        steps = [int(n) for n in lengths.split(",") if n.strip()]
    except ValueError:
        steps = []
    if not steps or min(steps) < 1:
        raise StudioError(f"--lengths expects output lengths of 1 token or more, like 8,16,30, not {lengths!r}")
    for path, option in ((json_path, "--json"), (plot_path, "--plot")):
        if path:
            _check_writable(path, option)  # before the benchmark's minutes, not after

    try:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    except RuntimeError:
        console.print("[yellow]TensorFlow was already initialised; its thread count could not be set[/yellow]")
    loaded = load_bundle(bundle or default_bundle("chatbot"))
    chosen = list(VARIANTS) if backends == "all" else [b.strip() for b in backends.split(",") if b.strip()]
    unknown = [b for b in chosen if b not in VARIANTS]
    if unknown:
        raise StudioError(f"unknown backend(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    rows = run_benchmark(loaded, chosen, steps, repeats, threads,
                         progress=lambda message: console.print(message, highlight=False))
    table = Table(title=f"Decode latency: {loaded.path.name}, batch 1, {threads} threads, median of {repeats}")
    for column in ("backend", "variant", "tokens", "ms/token p50", "p90", "first token ms", "total ms",
                   "x vs tf-naive", "ms/token vs CT2", "greedy = TF"):
        table.add_column(column, justify="right" if column not in ("backend", "variant") else "left")
    for row in sorted(rows, key=lambda r: (r["output_tokens"], -r["total_ms_p50"])):
        number = lambda value, digits: "" if value is None else f"{value:.{digits}f}"  # noqa: E731
        table.add_row(row["backend"], row["variant"], str(row["output_tokens"]), number(row["ms_per_token_p50"], 2),
                      number(row["ms_per_token_p90"], 2), number(row["first_token_ms_p50"], 1),
                      number(row["total_ms_p50"], 1),
                      f"{row['speedup_vs_tf_naive']:.1f}x" if row["speedup_vs_tf_naive"] else "",
                      f"{row['ms_per_token_vs_ctranslate2']:.2f}" if row["ms_per_token_vs_ctranslate2"] else "",
                      f"{row['outputs_match_tf']:.0%}")
    Console(width=max(Console().width, 140)).print(table)
    if json_path:
        json_path.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        console.print(f"Wrote {json_path}")
    if plot_path:
        plot(rows, plot_path)
        console.print(f"Saved {plot_path}")


@app.command()
def launch(host: str = typer.Option("127.0.0.1", help="Interface to listen on (loopback by default)"),
           port: int = typer.Option(7860, help="Port"),
           share: bool = typer.Option(False, help="Create a public Gradio link (use --auth with it)"),
           auth: Optional[str] = typer.Option(None, help="user:password required to open the app"),
           auth_file: Optional[Path] = typer.Option(None, help="File with one user:password per line"),
           backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
           chatbot: Optional[Path] = typer.Option(None, help="Chatbot bundle [default: the shipped one]"),
           translator: Optional[Path] = typer.Option(None, help="Translator bundle [default: the shipped one]"),
           max_input_chars: int = typer.Option(1000, help="Longest accepted input, in characters"),
           concurrency: int = typer.Option(4, help="Requests processed at once"),
           site: Optional[Path] = typer.Option(None, "--site", help="Also serve, at /site/, the offline web page "
                                                                     "`studio web DIR` built in DIR"),
           max_batch: int = typer.Option(16, "--max-batch", min=1, max=64,
                                         help="Decode up to N users' greedy and sampling requests together, each "
                                              "at its own position (continuous batching; 16 measured best); 1 = off"),
           yes_public: bool = typer.Option(False, "--yes-public",
                                           help="Serve --share or a non-loopback --host without a password anyway"),
           mcp: bool = typer.Option(False, "--mcp", help="Also serve `translate` and `chat` as MCP tools at "
                                    "/gradio_api/mcp/ (needs pip install '.\\[mcp]' in a checkout)")):
    """Open the web app: Chat, Translate, Compare and Explore tabs on the shipped models."""
    from studio.ui.app import launch as launch_app

    credentials = []
    if auth:
        credentials.append(tuple(auth.split(":", 1)))
    if auth_file:
        for number, line in enumerate(auth_file.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                if ":" not in line:
                    raise StudioError(f"{auth_file}:{number}: expected user:password")
                credentials.append(tuple(line.strip().split(":", 1)))
    if any(len(c) != 2 or not c[0] or not c[1] for c in credentials):
        raise StudioError("--auth expects user:password")
    public = share or host not in ("127.0.0.1", "localhost", "::1")
    if public and not credentials:
        where = "through a public Gradio link" if share else f"on {host}, from other machines"
        console.print(f"WARNING: the app would be reachable {where} with no password: anyone could use it.",
                      style="bold red", highlight=False)
        if not yes_public:
            raise StudioError("refusing to serve publicly without a password. Pass --auth user:password (or "
                              "--auth-file FILE), or --yes-public to accept that anyone can use it.")
    launch_app(chatbot, translator, host, port, share, credentials or None, backend, max_input_chars, concurrency,
               progress=lambda message: console.print(message, highlight=False), max_batch=max_batch, mcp=mcp, site=site)


@app.command()
def data(data_dir: Optional[Path] = typer.Option(None, help="Look only here"),
         download: bool = typer.Option(False, help="Download the public originals into the cache (needs internet)")):
    """Show where training data is found, or download it."""
    from studio.data import sources as src

    if download:
        for path in src.download_originals():
            console.print(f"downloaded {path}")
    table = Table(title="Training and evaluation data")
    table.add_column("dataset")
    table.add_column("file")
    table.add_column("found at")
    rows = [("chatbot", "chatbot/ChatbotData.csv")]
    rows += [(f"koen: {s.name}", s.path) for s in src.KOEN_SOURCES.values()]
    rows += [(f"eval: {name}", path) for name, path in src.EVAL_SETS.items()]
    rows += [(f"back-translation: {name}", path) for name, path in src.EN_MONO.items()]
    missing = 0
    for name, relative in rows:
        found = src.find_file(relative, data_dir)
        missing += found is None
        table.add_row(name, relative, str(found) if found else "[red]not found[/red]")
    Console().print(table)
    searched = [f"{label}: {path}" for label, path in src.candidate_data_dirs(data_dir)] if not data_dir else [str(data_dir)]
    console.print("Searched: " + "; ".join(searched), highlight=False)
    if missing:
        console.print(f"{missing} file(s) not found. Pass --data-dir DIR or set STUDIO_DATA_DIR to a folder with this "
                      f"layout, or run `studio data --download` (ChatbotData from {src.CHATBOT_URL}; park tarballs "
                      f"from {src.PARK_URL}).", highlight=False)


# these import TensorFlow only when the chosen backend needs it (`studio.serving`): on an exported backend a
# command answers in about a second instead of ten
TENSORFLOW_ON_DEMAND = {"chat", "translate", "eval"}


@app.callback()
def _options(verbose: bool = typer.Option(False, "--verbose", "-v", help="Show diagnostics (what is loaded, "
                                                                       "exported, batched) on stderr")):
    """Transformer Studio: a Korean chatbot and a Korean→English translator."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(name)s: %(message)s",
                        handlers=[RichHandler(console=console, show_time=False, show_path=False)])
    if not verbose:  # the libraries' own INFO chatter stays out too
        logging.getLogger().setLevel(logging.WARNING)


def main():
    from studio.quiet_tf import import_tensorflow_quietly

    args = sys.argv[1:]
    command = next((arg for arg in args if not arg.startswith("-")), None)
    if command and not {"--help", "-h"} & set(args) and command not in TENSORFLOW_ON_DEMAND:
        import_tensorflow_quietly()
    try:
        app()
    except StudioError as error:
        console.print(f"error: {error}", style="red", highlight=False, markup=False)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
