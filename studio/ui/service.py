"""What the UI calls: one service per task (chatbot, translator) that loads its bundle once, builds
missing exports, keeps one generator per backend, and turns bad input into a friendly message."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from studio.errors import StudioError
from studio.generate import DecodeOptions


class InputError(StudioError):
    """The user's input cannot be processed; the message says why, in plain words."""


@dataclass
class Limits:
    """Enforced on the server for every request, whatever the browser allows."""
    max_input_chars: int = 1000
    max_file_bytes: int = 2_000_000
    max_file_lines: int = 5_000


class ModelService:
    def __init__(self, task: str, bundle_path: Path | None, limits: Limits, progress=print):
        from studio.bundle import default_bundle, load_bundle

        self.task = task
        self.limits = limits
        self.progress = progress
        self.bundle = None
        self.unavailable = None  # why this model cannot be used, for the UI to show
        self._generators = {}
        self._locks: dict[str, threading.Lock] = {}  # one per backend: exporting one never blocks another
        self._locks_lock = threading.Lock()
        try:
            self.bundle = load_bundle(Path(bundle_path) if bundle_path else default_bundle(task))
        except StudioError as error:
            self.unavailable = str(error)

    @property
    def available(self) -> bool:
        return self.bundle is not None

    def backends(self) -> list[str]:
        from studio.runtimes import BACKENDS

        return list(BACKENDS) if self.available else []

    def generator(self, backend: str):
        """The generator for `backend`, exporting the bundle first if that backend needs it."""
        if not self.available:
            raise InputError(f"The {self.task} is unavailable: {self.unavailable}")
        if backend not in self.backends():
            raise InputError(f"Unknown backend {str(backend)[:40]!r}; choose one of {', '.join(self.backends())}.")
        if backend in self._generators:
            return self._generators[backend]
        with self._locks_lock:
            lock = self._locks.setdefault(backend, threading.Lock())
        with lock:
            if backend not in self._generators:
                generator = self._create(backend)
                # warm up: graph tracing and buffer allocation happen now, not inside the first user's timing
                for _ in generator.stream("안녕"):
                    pass
                self._generators[backend] = generator
            return self._generators[backend]

    def _create(self, backend: str):
        from studio.inference import generator_with_exports

        model = None
        if backend.startswith("tf"):  # tf and tf-naive share one Keras model
            with self._locks_lock:
                model = next((g.runtime.model for g in self._generators.values() if hasattr(g.runtime, "model")), None)
        try:
            return generator_with_exports(self.bundle, backend, progress=self.progress, model=model)
        except StudioError as error:
            raise InputError(f"The {backend} backend is unavailable: {error}") from None

    def check_text(self, text) -> str:
        if not isinstance(text, str):
            raise InputError("Please send text.")
        if not text.strip():
            raise InputError("Please type something first." if self.task == "chatbot" else
                             "Please enter Korean text to translate.")
        if len(text) > self.limits.max_input_chars:
            raise InputError(f"That is {len(text):,} characters; the limit is {self.limits.max_input_chars:,}. "
                             "Please shorten it" + (" or translate it as a file." if self.task == "translator" else "."))
        from studio.text import pipeline_for

        # without a bundle the service is unavailable and says so when asked for a generator
        pipeline = pipeline_for(self.bundle.config.task) if self.bundle is not None else None
        if pipeline is not None and not pipeline.source(text):
            if pipeline.name == "tutorial":
                raise InputError("That text has nothing the model can read: it understands Korean, Latin letters, "
                                 "digits and punctuation (emoji, symbols and other scripts are skipped).")
            raise InputError("That text has only invisible characters (control or zero-width characters): "
                             "there is nothing to read.")
        return text


def decode_options(strategy: str = "greedy", beam_size: float = 4, length_penalty: float = 1.0,
                   temperature: float = 1.0, top_k: float = 0, top_p: float = 1.0, seed=None,
                   max_new_tokens=None, no_repeat_ngram: float = 0) -> DecodeOptions:
    """Options from UI/API values (Gradio numbers arrive as floats, an empty seed as None)."""
    try:
        return DecodeOptions(strategy=str(strategy).lower(), beam_size=int(beam_size), length_penalty=float(length_penalty),
                             temperature=float(temperature), top_k=int(top_k), top_p=float(top_p),
                             seed=None if seed in (None, "") else int(seed),
                             max_new_tokens=int(max_new_tokens) if max_new_tokens else None,
                             no_repeat_ngram_size=int(no_repeat_ngram)).validate()
    except (TypeError, ValueError) as error:
        raise InputError(f"Invalid decoding settings: {error}") from None
