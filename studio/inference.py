"""Text in, text out: normalization, tokenization (with truncation warnings), decoding, detokenization."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from studio.bundle import Bundle, load_bundle
from studio.generate import DecodeOptions, decode
from studio.runtimes import load_runtime
from studio.text import normalize, tidy


@dataclass
class Generation:
    text: str
    ids: list[int]
    warnings: list[str] = field(default_factory=list)


class TextGenerator:
    def __init__(self, bundle: Bundle, backend: str = "tf", model=None, threads: int | None = None,
                 export_dir: Path | None = None):
        self.bundle = bundle
        self.config = bundle.config
        self.tokenizers = bundle.tokenizers
        self.backend = backend
        self.runtime = load_runtime(bundle, backend, model=model, threads=threads, export_dir=export_dir)

    @classmethod
    def from_path(cls, path: str | Path, backend: str = "tf", **options) -> "TextGenerator":
        return cls(load_bundle(Path(path)), backend, **options)

    def encode_source(self, text: str) -> tuple[list[int], list[str]]:
        """Normalized, tokenized source ending in </s>; too-long inputs are truncated with a warning."""
        warnings = []
        ids = self.tokenizers.source.encode(normalize(text))
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
        return [Generation(tidy(self.tokenizers.target.decode(ids)), ids, warnings)
                for ids, (_, warnings) in zip(outputs, encoded)]

    def __call__(self, text: str) -> str:
        return self.generate([text])[0].text
