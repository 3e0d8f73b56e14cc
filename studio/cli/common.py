"""What the `studio` commands share: the Typer app, the console on stderr, the decoding and protection options,
loading a generator, and how warnings and progress are shown."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Iterator, Optional

import typer
from rich.console import Console
from rich.logging import RichHandler
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from studio.errors import StudioError
from studio.generate.options import DecodeOptions
from studio.generate.options import decode_options as options_from
from studio.serving import ServedModel
from studio.tasks import SAMPLING, Task, task_named
from studio.text.encoding import PipeDecoder
from studio.text.protect import Glossary, describe, protector_for
from studio.variants import DEFAULT_BACKEND, backends_help, variant

app = typer.Typer(help="Transformer Studio: a Korean chatbot and a Korean→English translator.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  rich_markup_mode="markdown")  # help texts hold "[default: …]", which rich markup would drop


console = Console(stderr=True, soft_wrap=True)  # never break a path or command across lines


BACKENDS = backends_help()


def task_of(name: str) -> Task:
    """The task a command names; StudioError naming the tasks for another name."""
    try:
        return task_named(name)
    except ValueError as error:
        raise StudioError(str(error)) from None


def served_model(bundle: Optional[Path], task: str, export_missing: bool = True) -> ServedModel:
    """The bundle (the shipped one of `task` by default), loaded once per process."""
    task_of(task)
    return ServedModel.shared(task, bundle, build_missing=export_missing,
                              progress=lambda message: console.print(message, highlight=False, markup=False))


def load_generator(bundle: Optional[Path], task: str, backend: str, export_missing: bool = True):
    """A generator on `backend`; a missing or stale export is rebuilt first (or reported, when asked not to)."""
    served = served_model(bundle, task, export_missing)
    if served.task != task:  # allowed (a tiny bundle of either task serves both in tests), but said
        show_warnings([f"{served.bundle.path} is a {served.task} bundle, not a {task}: its outputs are "
                        f"{task_of(served.task).outputs_are}"])
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


def protector_from(glossary: Optional[Path], protect: bool):
    """The translator's term protection for these options (None when it has nothing to do)."""

    return protector_for(Glossary.read(glossary) if glossary else Glossary(), protect)


def advancing(progress, job):
    """An `on_progress(done, total)` that moves `job`'s bar in a rich Progress."""
    return lambda done, total: progress.update(job, completed=done, total=total)


def show_protection(report: list, protector, texts: list[str]) -> None:
    """What term protection did, and the glossary terms `texts` have only inside longer words."""

    said = describe(report, protector.glossary, "\n".join(texts))
    if said:
        console.print(said, highlight=False, markup=False)


def decode_options(task: str, beam: Optional[int] = None, length_penalty: Optional[float] = None,
                   sample: bool = False, **values) -> "DecodeOptions":
    """The options these flags ask for (`--beam`, `--sample` and the other flags by their DecodeOptions names);
    what they leave out is the task's default decoding (`studio.tasks`)."""

    strategy = "sample" if sample else None if beam is None else "beam" if beam > 1 else "greedy"
    if beam is None and task_named(task).default_decoding["strategy"] != "beam":
        beam = 1  # as --beam 1 (greedy) would say
    if "no_repeat_ngram" in values:
        values["no_repeat_ngram_size"] = values.pop("no_repeat_ngram")
    try:
        return options_from(task_named(task).default_decoding, strategy=strategy, beam_size=beam,
                            length_penalty=length_penalty, **values)
    except ValueError as error:
        raise StudioError(str(error)) from None


def beam_option(task: str):
    default = task_named(task).default_decoding
    shown = default["beam_size"] if default["strategy"] == "beam" else "1, greedy"
    return typer.Option(None, "--beam", help=f"Beam size (1 = greedy) [default: {shown}]")


def length_penalty_option(task: str):
    return typer.Option(None, help="Beam: rank by log-prob / length^penalty "
                                   f"[default: {task_named(task).default_decoding.get('length_penalty', 1.0)}]")


LENGTH_PENALTY = typer.Option(None, help="Beam: rank by log-prob / length^penalty [default: the translator's 1.8, "
                                         "else 1.0]")


SAMPLE = typer.Option(False, "--sample", help="Sample instead of taking the most likely token")


SAMPLING_DEFAULTS = dict(SAMPLING)


TEMPERATURE = typer.Option(None, help=f"Sampling temperature [default: {SAMPLING_DEFAULTS['temperature']}]")


TOP_K = typer.Option(None, help=f"Sample only among the k most likely tokens (0 = all) [default: {SAMPLING_DEFAULTS['top_k']}]")


TOP_P = typer.Option(None, help="Sample only within the smallest set of tokens whose probability reaches p "
                                f"[default: {SAMPLING_DEFAULTS['top_p']}]")


SEED = typer.Option(None, help="Random seed: the same seed gives the same samples")


NO_REPEAT = typer.Option(0, "--no-repeat-ngram", help="Never repeat an n-gram of this size in one output (0 = off)")


def stdin_lines() -> Iterator[str]:
    """Piped stdin's lines as they come, without their "\\n" (lines break only at \\n, so one input line is one
    output line), each read as UTF-8 or as Korean in CP949 (`studio.text.encoding.PipeDecoder`): what a line's
    bytes were read as, when not UTF-8, is a warning on stderr."""
    decode = PipeDecoder("stdin")
    for number, raw in enumerate(sys.stdin.buffer, 1):
        text, note = decode(raw.removesuffix(b"\n"), number)
        show_warnings([note] if note else [])
        yield text


def show_warnings(warnings):
    for warning in warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)


def check_writable(path: Path, option: str) -> None:
    """A file a command writes at its end: its folder must exist now (or the run's work would be lost)."""
    if path.is_dir():
        raise StudioError(f"{option} {path}: is a folder; give a file name")
    if not path.parent.is_dir():
        raise StudioError(f"{option} {path}: the folder {path.parent} does not exist")


def progress_bar(disable: bool = False):
    """The translators' progress bar on stderr; none where stderr is not a terminal (a log file would only get
    the blank line a finished bar leaves)."""
    return Progress(TextColumn("translating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=console, transient=True, disable=disable or not console.is_terminal)


def typed_lines(prompt: str):
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


@app.callback()
def verbosity(verbose: bool = typer.Option(False, "--verbose", "-v", help="Show diagnostics (what is loaded, "
                                                                       "exported, batched) on stderr")):
    """Transformer Studio: a Korean chatbot and a Korean→English translator."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(name)s: %(message)s",
                        handlers=[RichHandler(console=console, show_time=False, show_path=False)])
    if not verbose:  # the libraries' own INFO chatter stays out too
        logging.getLogger().setLevel(logging.WARNING)
