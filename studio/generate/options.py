"""Decoding options shared by every backend."""

from __future__ import annotations

from dataclasses import dataclass


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
