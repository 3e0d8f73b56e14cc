"""Serving a bundle: loaded once, one generator per backend, exports built on demand (only the backend
asked for, once, under one lock; whether an export is current is decided once, when a backend is first asked
for), warm-up before the first user's timing; with `max_batch` > 1, one
scheduler per backend decodes the requests of many users together (`studio.scheduler`). `studio chat/translate/eval`
and the app all get their generators here. Input checks: `studio.text.inputs`."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from exporters import ensure_exported
from studio.bundle import load_bundle
from studio.library import chosen_bundle
from studio.formats import FormatLimits
from studio.inference import TextGenerator
from studio.quiet_tf import import_tensorflow_quietly
from studio.runtimes import load_runtime
from studio.runtimes.base import steps_rows
from studio.scheduler import Scheduler
from studio.tasks import task_named
from studio.variants import stale_reasons, variant

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """Enforced on the server for every request, whatever the browser allows."""
    max_input_chars: int = 1000
    max_file_bytes: int = 2 * 1024 * 1024  # 2 MB as Gradio counts it on the page ("2 Mb", not "1.9 Mb")
    max_file_lines: int = 5_000

    @property
    def documents(self) -> FormatLimits:
        """What a document upload may hold (the Translate tab's and the API's)."""
        return FormatLimits(max_bytes=self.max_file_bytes, max_segments=self.max_file_lines)


class ServedModel:
    """One bundle, served: `generator(backend)` gives a ready generator, exporting first if needed."""

    def __init__(self, bundle, build_missing: bool = True, progress=print, threads: int | None = None,
                 max_batch: int = 1):
        self.bundle = bundle
        self.max_batch = max_batch  # > 1: greedy and sampling requests decode together (`studio.scheduler`)
        self.build_missing = build_missing
        self.progress = progress
        self.threads = threads
        self._generators: dict = {}
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}  # one per backend: preparing one never blocks another
        self._checked: dict[str, str | None] = {}  # backend -> its stale reason, until its generator is made

    @classmethod
    def load(cls, task: str, bundle_path: Path | None = None, **options) -> "ServedModel":
        return cls(load_bundle(Path(bundle_path) if bundle_path else chosen_bundle(task)), **options)

    @classmethod
    def shared(cls, task: str, bundle_path: Path | None = None, build_missing: bool = True,
               progress=print) -> "ServedModel":
        """The process's ServedModel for this bundle folder, so commands run many times in one process
        (scripts, tests) load a bundle and trace its model once. Reloaded when the bundle's files change;
        a cached exported backend whose files changed since is prepared again."""
        path = Path(bundle_path) if bundle_path else chosen_bundle(task)  # the library's choice, or the shipped one
        key = str(path.resolve())
        with _SHARED_GUARD:
            served = _SHARED.get(key)
            if served is None or served._fingerprint != _fingerprint(path):
                served = _SHARED[key] = cls.load(task, path)
                served._fingerprint = _fingerprint(path)
        served.build_missing, served.progress = build_missing, progress
        served._checked.clear()
        for backend, reason in stale_reasons(served.bundle, list(served._generators)).items():
            if reason:
                served._generators.pop(backend, None)
        return served

    @property
    def task(self) -> str:
        return self.bundle.config.task.task

    def needs_export(self, backend: str) -> str | None:
        """Why `generator(backend)` would export first (the stale reason), or None. Decided once: the
        generator goes by this answer (it is not asked again until the backend's generator is made)."""
        variant(backend)  # an unknown name raises
        if backend in self._generators:
            return None
        if backend not in self._checked:
            self._checked[backend] = stale_reasons(self.bundle, [backend])[backend]
        return self._checked[backend]

    def generator(self, backend: str, warm_up: bool = False):
        """The generator for `backend`. A missing or stale export is built first (or, with build_missing=False,
        its ExportError, which names the rebuild command, is raised). With `warm_up`, tracing and buffer
        allocation happen now rather than inside a user's first timing."""
        if backend in self._generators:
            return self._generators[backend]
        chosen = variant(backend)
        with self._guard:
            lock = self._locks.setdefault(backend, threading.Lock())
        with lock:
            if backend not in self._generators:
                reason = chosen.exported and self.needs_export(backend)
                log.debug("%s on %s: %s", self.task, backend, f"export needed ({reason})" if reason else "ready to load")
                self._checked.pop(backend, None)  # decided: after a failure, a later call looks again
                stale = reason and self.build_missing
                if chosen.format == "tf":
                    import_tensorflow_quietly()  # without its start-up chatter; exported runtimes never import it
                if stale:
                    ensure_exported(self.bundle, [backend], progress=self.progress)
                # decided once, above: a current export, or one just built, is not hashed again; a stale one
                # left as it is goes to `load_runtime`, whose ExportError names the command that rebuilds it
                runtime = load_runtime(self.bundle, backend, threads=self.threads,
                                       checked=not reason or self.build_missing)
                generator = TextGenerator(self.bundle.preprocessor, runtime, backend, self.bundle)
                if self.max_batch > 1 and steps_rows(generator.runtime):
                    generator.scheduler = Scheduler(generator.runtime, self.max_batch)
                if warm_up:
                    for _ in generator.stream(task_named(self.task).prompts[0]):
                        pass
                self._generators[backend] = generator
                log.debug("%s on %s: loaded%s", self.task, backend,
                          f", batching up to {self.max_batch} requests" if generator.scheduler else "")
            return self._generators[backend]

    def close(self) -> None:
        """End the schedulers' threads (each finishes the requests it has first)."""
        for generator in list(self._generators.values()):
            if generator.scheduler is not None:
                generator.scheduler.close()


_SHARED: dict[str, ServedModel] = {}
_SHARED_GUARD = threading.Lock()


def _fingerprint(path: Path) -> tuple:
    """What changes when a bundle is retrained, replaced or damaged: its files' sizes and times."""
    files = [path / "config.json", path / "weights.npz", path / "checksums.json", *sorted((path / "tokenizer").glob("*"))]
    return tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in files if f.is_file())

