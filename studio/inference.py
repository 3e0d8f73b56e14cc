"""Text in, text out: normalization, tokenization (with truncation warnings), decoding, detokenization."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from studio.bundle import Bundle, load_bundle
from studio.generate import DecodeOptions, decode
from studio.runtimes import load_runtime
from studio.text import pipeline_for


UNREADABLE = ("the input has no characters this model reads (with the tutorial pipeline: Korean, Latin letters, "
              "digits, punctuation; otherwise only invisible characters); the output is a guess from an empty input")


@dataclass
class Generation:
    text: str
    ids: list[int]
    warnings: list[str] = field(default_factory=list)


@dataclass
class Latency:
    backend: str
    first_token_ms: float = 0.0  # encode + first decode step
    total_ms: float = 0.0
    tokens: int = 0  # generated tokens, including </s>

    @property
    def ms_per_token(self) -> float:
        """Mean time of a decode step after the first."""
        return (self.total_ms - self.first_token_ms) / (self.tokens - 1) if self.tokens > 1 else self.first_token_ms

    def summary(self) -> str:
        return (f"{self.backend} · first token {self.first_token_ms:.1f} ms · {self.ms_per_token:.2f} ms/token · "
                f"{self.tokens} tokens · {self.total_ms:.1f} ms total")


class TextGenerator:
    def __init__(self, bundle: Bundle, backend: str = "tf", model=None, threads: int | None = None,
                 export_dir: Path | None = None):
        self.bundle = bundle
        self.config = bundle.config
        self.tokenizers = bundle.tokenizers
        self.pipeline = pipeline_for(bundle.config.task)
        self.backend = backend
        self.runtime = load_runtime(bundle, backend, model=model, threads=threads, export_dir=export_dir)

    @classmethod
    def from_path(cls, path: str | Path, backend: str = "tf", **options) -> "TextGenerator":
        return cls(load_bundle(Path(path)), backend, **options)

    def encode_source(self, text: str) -> tuple[list[int], list[str]]:
        """Normalized, tokenized source ending in </s>; too-long inputs are truncated with a warning."""
        warnings = []
        normalized = self.pipeline.source(text)
        if not normalized and text.strip():
            warnings.append(UNREADABLE)
        ids = self.tokenizers.source.encode(normalized)
        limit = self.config.model.max_source_len - 1
        if len(ids) > limit:
            warnings.append(f"input was {len(ids)} tokens; only the first {limit} were used "
                            f"(this model reads at most {limit})")
            ids = ids[:limit]
        return ids + [self.tokenizers.source.eos_id], warnings

    def generate(self, texts: list[str], max_new_tokens: int | None = None, options: DecodeOptions | None = None,
                 on_token=None) -> list[Generation]:
        """Decode `texts` (greedy unless `options` say otherwise). `on_token(position, tokens)` streams."""
        model_config = self.config.model
        options = options or DecodeOptions()
        limit = model_config.max_target_len  # the decode cache holds this many positions
        max_new_tokens = min(max_new_tokens or options.max_new_tokens or limit, limit)
        encoded = [self.encode_source(text) for text in texts]
        outputs = decode(self.runtime, [ids for ids, _ in encoded], self.tokenizers.target.bos_id,
                         self.tokenizers.target.eos_id, max_new_tokens, options, model_config.pad_id, on_token)
        return [Generation(self.pipeline.output(self.tokenizers.target.decode(ids)), ids, warnings)
                for ids, (_, warnings) in zip(outputs, encoded)]

    def stream(self, text: str, options: DecodeOptions | None = None):
        """Yield (text so far, Latency, warnings) after every token; beam search yields once, at the end."""
        import time

        from studio.generate import greedy_steps, token_chooser

        options = (options or DecodeOptions()).validate()
        latency = Latency(self.backend)
        started = time.perf_counter()
        source, warnings = self.encode_source(text)
        c, target = self.config.model, self.tokenizers.target
        limit = min(options.max_new_tokens or c.max_target_len, c.max_target_len)
        if options.strategy == "beam" and options.beam_size > 1:
            result = self.generate([text], options=options)[0]
            latency.total_ms = latency.first_token_ms = (time.perf_counter() - started) * 1000
            latency.tokens = len(result.ids) + 1
            yield result.text, latency, warnings
            return
        ids: list[int] = []
        for position, tokens, outputs in greedy_steps(self.runtime, [source], target.bos_id, target.eos_id, limit,
                                                      c.pad_id, token_chooser(options), options.no_repeat_ngram_size):
            ids = outputs[0]
            latency.tokens += 1
            latency.total_ms = (time.perf_counter() - started) * 1000
            if position == 0:
                latency.first_token_ms = latency.total_ms
            if int(tokens[0]) != target.eos_id:
                yield self.pipeline.output(target.decode(ids)), latency, warnings
        yield self.pipeline.output(target.decode(ids)), latency, warnings

    def __call__(self, text: str) -> str:
        return self.generate([text])[0].text


def generator_with_exports(bundle: Bundle, backend: str, build_missing: bool = True, progress=print,
                           model=None) -> TextGenerator:
    """A generator on `backend`; a missing or stale export is built first (or, with build_missing=False,
    its ExportError, which names the rebuild command, is raised)."""
    from studio.runtimes import ExportError

    try:
        return TextGenerator(bundle, backend, model=model)
    except ExportError as error:
        if not build_missing:
            raise
        reason = str(error).splitlines()[0]
    with _export_lock(bundle.path):  # two backends asking at once must not export into one folder together
        try:
            return TextGenerator(bundle, backend, model=model)  # another thread may have exported meanwhile
        except ExportError:
            from exporters import export_bundle

            progress(f"{reason}\nExporting now (this takes a minute, once)...")
            export_bundle(bundle.path, verify=False, progress=progress)
            return TextGenerator(bundle, backend, model=model)


_EXPORT_LOCKS: dict[str, threading.Lock] = {}
_EXPORT_LOCKS_GUARD = threading.Lock()


def _export_lock(bundle_path) -> threading.Lock:
    with _EXPORT_LOCKS_GUARD:
        return _EXPORT_LOCKS.setdefault(str(Path(bundle_path).resolve()), threading.Lock())
