"""Text in, text out: a bundle's preprocessor around a runtime and the decode loop."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from studio.bundle import Bundle, load_bundle
from studio.generate import DecodeOptions, DecodeSpec, decode, decode_steps, strategy_for, streams_tokens
from studio.runtimes import load_runtime
from studio.text.preprocess import Preprocessor


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
    """`preprocessor` turns text into source ids and generated ids into text; `runtime` runs the model."""

    def __init__(self, preprocessor: Preprocessor, runtime, backend: str | None = None, bundle: Bundle | None = None):
        self.preprocessor = preprocessor
        self.runtime = runtime
        self.backend = backend or runtime.name
        self.bundle = bundle
        self.config = preprocessor.config
        self.tokenizers = preprocessor.tokenizers

    @classmethod
    def open(cls, bundle: Bundle, backend: str = "tf", model=None, threads: int | None = None,
             export_dir: Path | None = None) -> "TextGenerator":
        """A generator for `bundle` on `backend` (an exported backend must have been exported: see
        `exporters.ensure_exported`)."""
        runtime = load_runtime(bundle, backend, model=model, threads=threads, export_dir=export_dir)
        return cls(bundle.preprocessor, runtime, backend, bundle)

    @classmethod
    def from_path(cls, path: str | Path, backend: str = "tf", **options) -> "TextGenerator":
        return cls.open(load_bundle(Path(path)), backend, **options)

    def spec(self, options: DecodeOptions | None) -> DecodeSpec:
        return DecodeSpec.for_model(self.config.model, options.max_new_tokens if options else None)

    def generate(self, texts: list[str], options: DecodeOptions | None = None) -> list[Generation]:
        """Decode `texts` together (greedy unless `options` say otherwise)."""
        encoded = [self.preprocessor.encode(text) for text in texts]
        outputs = decode(self.runtime, [ids for ids, _ in encoded], self.spec(options), strategy_for(options))
        return [Generation(self.preprocessor.decode(ids), ids, warnings)
                for ids, (_, warnings) in zip(outputs, encoded)]

    def stream(self, text: str, options: DecodeOptions | None = None):
        """Yield (text so far, Latency, warnings) after every token; beam search yields once, at the end."""
        latency = Latency(self.backend)
        started = time.perf_counter()
        source, warnings = self.preprocessor.encode(text)
        strategy = strategy_for(options)
        streaming = streams_tokens(options)
        for _ in decode_steps(self.runtime, [source], self.spec(options), strategy):
            latency.tokens += 1
            latency.total_ms = (time.perf_counter() - started) * 1000
            if latency.tokens == 1:
                latency.first_token_ms = latency.total_ms
            if streaming and not strategy.finished:
                yield self.preprocessor.decode(strategy.outputs()[0]), latency, warnings
        if not streaming:  # one figure for the whole search
            latency.first_token_ms = latency.total_ms
            latency.tokens = len(strategy.outputs()[0]) + 1
        yield self.preprocessor.decode(strategy.outputs()[0]), latency, warnings

    def __call__(self, text: str) -> str:
        return self.generate([text])[0].text
