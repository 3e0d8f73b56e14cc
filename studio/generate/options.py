"""Decoding options shared by every backend."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields


@dataclass
class DecodeOptions:
    strategy: str = "greedy"  # greedy | beam | sample
    beam_size: int = 4
    length_penalty: float = 1.0  # beam: rank finished hypotheses by log-prob / length**length_penalty
    temperature: float = 1.0
    top_k: int = 0  # 0 = no top-k cut
    top_p: float = 1.0  # 1 = no nucleus cut
    seed: int | None = None
    max_new_tokens: int | None = None  # None = the model's target capacity
    no_repeat_ngram_size: int = 0  # 0 = off; n bans any n-gram from appearing twice in one output
    # a task that keeps its source's figures (the translator) writes only numbers its source has
    # (`studio.generate.figures`); False lets the model write any digits
    keep_figures: bool = True

    def validate(self) -> "DecodeOptions":
        if self.strategy not in ("greedy", "beam", "sample"):
            raise ValueError(f"unknown decoding strategy {self.strategy!r}; choose greedy, beam or sample")
        if self.beam_size < 1:
            raise ValueError("beam size must be at least 1")
        if self.temperature <= 0:
            raise ValueError("temperature must be positive")
        if not 0 < self.top_p <= 1:
            raise ValueError("top-p must be in (0, 1]")
        if self.top_k < 0 or self.no_repeat_ngram_size < 0:
            raise ValueError("top-k and no-repeat-ngram size cannot be negative")
        if self.max_new_tokens is not None and self.max_new_tokens < 1:
            raise ValueError("max new tokens must be at least 1")
        if self.length_penalty < 0:
            raise ValueError("the length penalty cannot be negative (0 ranks by log-probability alone)")
        if self.seed is not None and self.seed < 0:
            raise ValueError("the seed must be a whole number, 0 or more")
        return self


_CONVERT = {"strategy": lambda v: str(v).lower(), "beam_size": int, "length_penalty": float, "temperature": float,
            "top_k": int, "top_p": float, "no_repeat_ngram_size": int,
            "max_new_tokens": lambda v: int(v) if v else None,
            "keep_figures": lambda v: v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes", "on")}


def decode_options(defaults: Mapping[str, object] | None = None, **values) -> DecodeOptions:
    """The one way user values become DecodeOptions (CLI flags, a tab's controls, API parameters): each value by
    its DecodeOptions name; one left out, or None, is `defaults`' (a task's default decoding,
    `studio.tasks.Task.default_decoding`), else DecodeOptions' own. Numbers may come as floats or text (Gradio
    sends floats); the seed as a number or as the seed box's text (empty: a new sample each time). ValueError
    says what is wrong."""
    names = {f.name for f in fields(DecodeOptions)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ValueError(f"unknown decoding setting(s): {', '.join(unknown)}")
    given = {**{k: v for k, v in (defaults or {}).items() if k in names},
             **{k: v for k, v in values.items() if v is not None}}
    try:
        converted = {k: (_CONVERT[k](v) if k in _CONVERT else v) for k, v in given.items() if k != "seed"}
    except (TypeError, ValueError) as error:
        raise ValueError(str(error)) from None
    return DecodeOptions(**converted, seed=parse_seed(values.get("seed"))).validate()


class SeedError(ValueError):
    """A seed that is no whole number of 0 or more (its message is for the user as it is)."""


def parse_seed(value) -> int | None:
    """A seed given as a number or as text: None when empty (a new sample each time)."""
    if value is None or isinstance(value, str) and not value.strip():
        return None
    try:
        seed = int(value.strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        seed = -1
    if seed < 0:
        raise SeedError(f"The seed must be a whole number, 0 or more, or empty for a new sample each time; "
                         f"got {str(value)[:20]!r}")
    return seed
