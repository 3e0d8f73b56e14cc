"""A bundle's text in and out, in one place: normalize -> tokenize -> truncate (with a warning) -> `</s>`,
and ids -> detokenize -> tidy. Needs the bundle's config and tokenizers only, never a model."""

from __future__ import annotations

from studio.tasks import language_pair, task_named
from studio.text.pipelines import pipeline_for
from studio.text.protect import language_sample
from studio.text.script import looks_like

LANGUAGE_HINT = "the input looks like"  # in the warning about an input mostly not in Korean (`language_hint`)

UNREADABLE = ("the input has no characters this model reads (with the tutorial pipeline: Korean, Latin letters, "
              "digits, punctuation; otherwise only invisible characters); the output is a guess from an empty input")


class Preprocessor:
    def __init__(self, config, tokenizers):
        self.config = config
        self.tokenizers = tokenizers
        self.pipeline = pipeline_for(config.task)
        self.source_limit = config.model.max_source_len - 1  # room for </s>
        self.reads = task_named(config.task.task).reads
        self.pair = language_pair(config.task)  # what it translates from and into: which steps apply

    def count_tokens(self, text: str) -> int:
        """Source tokens of `text` as the model reads it (before truncation, without `</s>`)."""
        return len(self.tokenizers.source.encode(self.pipeline.source(text)))

    def encode(self, text: str) -> tuple[list[int], list[str]]:
        """Source ids ending in `</s>`, and warnings (unreadable input, truncation)."""
        warnings = []
        normalized = self.pipeline.source(text)
        if not normalized and text.strip():
            warnings.append(UNREADABLE)
        hint = self.language_hint(text)
        if hint:
            warnings.append(hint)
        ids = self.tokenizers.source.encode(normalized)
        if len(ids) > self.source_limit:
            warnings.append(f"input was {len(ids)} tokens; only the first {self.source_limit} were used "
                            f"(this model reads at most {self.source_limit})")
            ids = ids[: self.source_limit]
        return ids + [self.tokenizers.source.eos_id], warnings

    def language_hint(self, text: str) -> str | None:
        """The warning for an input mostly not in Korean ("...; the input looks like English..."), or None.
        Judged without URLs and e-mail addresses (no language's words) and without term protection's
        placeholders ("Xq1": what they stand for was judged before it was protected, see `Protector.protect`),
        so "삼성, 삼성!" with a glossary, or a Korean sentence with an e-mail address in it, is Korean. None for a model
        whose input is not Korean (an imported one: `LanguagePair.korean_source`)."""
        if not self.pair.korean_source:
            return None
        other = looks_like(language_sample(text))
        return f"{self.reads}; {LANGUAGE_HINT} {other}" if other else None

    def decode(self, ids) -> str:
        """Generated target ids (without `<s>`/`</s>`) as text to show."""
        return self.pipeline.output(self.tokenizers.target.decode(list(ids)))

