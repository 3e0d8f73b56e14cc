"""One task's model as every surface uses it (the app's tabs, the LibreTranslate API, the MCP tools): `AppModel`,
the handle on a `studio.serving.ServedModel` that says when the model is unavailable and turns every failure into a
message for the user; the input checks and decoding settings they share; downloads offered to a user. Nothing here
imports Gradio: the app (`studio.ui`) and the API (`studio.api`) sit on top of it."""

from __future__ import annotations

import html
import shutil
import tempfile
import threading
import time
from pathlib import Path

from studio.bundle import default_bundle
from studio.errors import StudioError
from studio.formats import read_document
from studio.generate import DecodeOptions
from studio.generate.options import SeedError
from studio.generate.options import decode_options as options_from
from studio.graph_pack import packed_backends
from studio.library import models_dir
from studio.replies import RETRIEVE, stored_reply
from studio.serving import Limits, ServedModel
from studio.tasks import TRANSLATOR, task_named
from studio.text.inputs import InputError, check_text
from studio.variants import BACKENDS

__all__ = ["AppModel", "InputError", "Limits", "service_for", "decode_options", "with_warnings", "offer_download",
           "remove_old_files"]


class AppModel:
    """One task's model as the tabs use it: its backends, its generators (exported and warmed up on first use),
    its input checks, and why it is unavailable when it is."""

    def __init__(self, task: str, bundle_path: Path | None, limits: Limits, progress=print, max_batch: int = 1,
                 notify=None):
        """`notify(message)`: says to the user making a request that it waits for a backend to be prepared (the
        app's toast); by default nobody is told."""
        self.task = task
        self.limits = limits
        self.progress, self.max_batch = progress, max_batch
        self.notify = notify or (lambda message: None)
        self.served = None
        self.unavailable = None  # why this model cannot be used, for the UI to show
        try:  # max_batch > 1: greedy and sampling requests of several users decode together (studio.scheduler)
            self.served = ServedModel.load(task, bundle_path, progress=progress, max_batch=max_batch)
        except StudioError as error:
            self.unavailable = str(error)

    def switch(self, bundle_path: Path) -> None:
        """Serve another bundle of this task from the next request on (the Models tab's "use"); StudioError, and
        the current model kept, when it cannot be loaded. Requests already decoding finish on the old model."""
        served = ServedModel.load(self.task, bundle_path, progress=self.progress, max_batch=self.max_batch)
        if served.task != self.task:
            raise StudioError(f"{bundle_path} is a {served.task} model, not a {self.task}")
        old, self.served, self.unavailable = self.served, served, None
        if old is not None:  # its schedulers end once the requests they hold are answered
            threading.Timer(30.0, old.close).start()

    @property
    def bundle_path(self) -> Path | None:
        return self.bundle.path if self.bundle else None

    def in_use(self) -> str:
        """Which model the task's tabs use, in a line (the Models tab can switch it)."""
        path = self.bundle_path
        if path is None:
            return ""
        if path.resolve() == default_bundle(self.task).resolve():
            which = f"the shipped {self.task}"
        elif path.resolve().parent == models_dir().resolve():
            which = f"**{html.escape(path.name)}** (one of yours)"
        else:  # a bundle given when the app was started
            which = f"**{html.escape(str(path))}**"
        return f"<small>Model: {which} · the Models tab chooses another</small>"

    def examples(self, count: int = 6) -> list[str]:
        """The "Try" inputs: the task's own for the shipped model; for another, inputs spread over its own dev split
        (what it learned to answer, held out from its training), else the task's."""
        prompts = list(task_named(self.task).prompts)
        path = self.bundle_path
        if path is None or path.resolve() == default_bundle(self.task).resolve():
            return prompts
        try:
            lines = (path / "dev.tsv").read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return prompts
        sources = list(dict.fromkeys(line.split("\t", 1)[0].strip() for line in lines if "\t" in line))
        sources = [source for source in sources if source and len(source) <= 200]
        return sources[::max(1, len(sources) // count)][:count] or prompts

    @property
    def available(self) -> bool:
        return self.served is not None

    @property
    def bundle(self):
        return self.served.bundle if self.served else None

    @property
    def capacity(self) -> int:
        """The most tokens the model writes for one input (its target length)."""
        return self.bundle.config.model.max_target_len if self.available else 64

    def backends(self) -> list[str]:
        return list(BACKENDS) if self.available else []

    def check_backend(self, backend: str) -> None:
        """InputError when the model is unavailable or `backend` is not one of its backends."""
        if not self.available:
            raise InputError(f"The {self.task} is unavailable: {self.unavailable}")
        if backend not in self.backends():
            raise InputError(f"Unknown backend {str(backend)[:40]!r}; choose one of {', '.join(self.backends())}.")

    def preparing(self, backend: str) -> str | None:
        """What the page says while `backend` is made ready for its first request, or None when it is ready."""
        if not self.served.needs_export(backend):
            return None
        if backend in packed_backends(self.bundle):
            return (f"Preparing the {backend} backend for the {self.task}: rebuilding its graphs from the model "
                    "(a second or two, once)...")
        return (f"Preparing the {backend} backend for the {self.task}: exporting the model once (this takes a "
                "little while; later requests start at once)...")

    def generator(self, backend: str):
        """The generator for `backend` (exported and warmed up on first use)."""
        self.check_backend(backend)
        preparing = self.preparing(backend)
        if preparing:
            self.notify(preparing)
        try:
            return self.served.generator(backend, warm_up=True)
        except StudioError as error:
            raise InputError(f"The {backend} backend is unavailable: {error}") from None

    def decode_one(self, text: str, backend: str, options) -> tuple[str, object, list[str]]:
        """(output, Latency, warnings) for one input, not streamed (in the backend's running batch, with other
        users' requests, when the server batches)."""
        generation, latency = self.generator(backend).timed(text, options)
        return generation.text, latency, generation.warnings

    def reply_modes(self) -> tuple[str, ...]:
        """How the task's replies can come (`Task.reply_modes`), the default first; () for a task without them."""
        return task_named(self.task).reply_modes

    def stored_reply(self, text: str, mode: str):
        """With `mode` "retrieve": the stored reply to `text` (`studio.replies.StoredReply`), or None with the
        reason the model writes it instead; with "generate": (None, ""). InputError for a mode the task lacks."""
        if not self.reply_modes():  # a task whose replies are always the model's
            return None, ""
        index = self.bundle.replies if self.bundle is not None and mode == RETRIEVE else None
        return stored_reply(index, text, mode, self.reply_modes())

    def input_hints(self, text: str) -> list[str]:
        """What a reply not written by the model still says about its input (that it looks like another language)."""
        hint = self.bundle.preprocessor.language_hint(text) if self.bundle is not None else None
        return [hint] if hint else []

    def batching(self) -> list[str]:
        """Per backend whose requests are scheduled: how many, and the mean rows per decode step."""
        generators = dict(self.served._generators) if self.available else {}
        return [f"{backend}: {s.jobs} requests, {s.rows / max(1, s.steps):.1f} rows per decode step"
                for backend, s in ((b, g.scheduler) for b, g in generators.items()) if s is not None]

    def document(self, name: str, data: bytes):
        """An uploaded document (the Translate tab's file, the API's `/translate_file` and html `q`) read with the
        app's limits (`studio.formats.read_document`, the reader `studio translate --file` uses too); DataError says
        what is wrong with it."""
        return read_document(name, data, self.limits.documents)

    def check_text(self, text) -> str:
        # without a bundle the service is unavailable and says so when asked for a generator
        return check_text(self.task, self.limits, text, self.bundle.preprocessor.pipeline if self.bundle else None)


def service_for(services: dict[str, AppModel], task) -> AppModel:
    """The service of the model a tab's Model choice names; any other value (an API client's) the translator's."""
    return (services.get(task) if isinstance(task, str) else None) or services[TRANSLATOR.name]


def decode_options(strategy: str = "greedy", beam_size: float = 4, length_penalty: float = 1.0,
                   temperature: float = 1.0, top_k: float = 0, top_p: float = 1.0, seed=None,
                   max_new_tokens=None, no_repeat_ngram: float = 0) -> DecodeOptions:
    """Options from a tab's controls (one parameter per control, by its name) or an API's parameters, through
    the one adapter (`studio.generate.options.decode_options`); InputError says what is wrong."""
    given = dict(strategy=strategy, beam_size=beam_size, length_penalty=length_penalty, temperature=temperature,
                 top_k=top_k, top_p=top_p, no_repeat_ngram=no_repeat_ngram)
    missing = [name for name, value in given.items() if value is None]
    if missing:  # the adapter would take its default; a control or an API parameter sent empty is an error
        raise InputError(f"Invalid decoding settings: no value for {', '.join(missing)}")
    try:
        return options_from(strategy=strategy, beam_size=beam_size, length_penalty=length_penalty,
                            temperature=temperature, top_k=top_k, top_p=top_p, seed=seed,
                            max_new_tokens=max_new_tokens, no_repeat_ngram_size=no_repeat_ngram)
    except SeedError as error:
        raise InputError(str(error)) from None
    except ValueError as error:
        raise InputError(f"Invalid decoding settings: {error}") from None




def with_warnings(summary: str, warnings) -> str:
    """The latency line shown beside an output, then the input's warnings (also shown as toasts), so the API
    and the page say e.g. that the input does not look like Korean right next to the output."""
    return "\n\n".join([summary, *(f"⚠ {w}" for w in dict.fromkeys(warnings))]).strip()


def offer_download(directory: Path, name: str, content: bytes | str, max_age_s: float = 3600) -> Path:
    """`content` written as `name` in a new folder of `directory`, for the user to download (a translated
    document, a conversation); the downloads there older than `max_age_s` are removed first. OSError on a full
    disk or an unwritable folder."""
    directory.mkdir(parents=True, exist_ok=True)
    remove_old_files(directory, max_age_s)
    path = Path(tempfile.mkdtemp(dir=directory)) / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def remove_old_files(directory: Path, max_age_s: float) -> None:
    """Delete what the app wrote into `directory` (downloads it offered) more than `max_age_s` ago."""
    for entry in directory.iterdir():
        try:
            old = time.time() - entry.stat().st_mtime > max_age_s
        except OSError:  # another request removed it meanwhile
            continue
        if old:
            shutil.rmtree(entry, ignore_errors=True)
