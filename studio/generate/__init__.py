"""Decode strategies, written once over the runtime protocol (`encode`, `step`, `reorder`)."""

from __future__ import annotations

from collections.abc import Sequence

from studio.generate.beam import beam_search
from studio.generate.greedy import argmax, greedy_decode, greedy_steps, pad_batch, sampler
from studio.generate.options import DecodeOptions


def decode(runtime, source_ids: Sequence[Sequence[int]], bos_id: int, eos_id: int, max_new_tokens: int,
           options: DecodeOptions | None = None, pad_id: int = 0, on_token=None) -> list[list[int]]:
    options = (options or DecodeOptions()).validate()
    if options.strategy == "beam" and options.beam_size > 1:
        return beam_search(runtime, source_ids, bos_id, eos_id, max_new_tokens, options.beam_size,
                           options.length_penalty, pad_id, options.no_repeat_ngram_size)
    return greedy_decode(runtime, source_ids, bos_id, eos_id, max_new_tokens, pad_id, on_token,
                         token_chooser(options), options.no_repeat_ngram_size)


def token_chooser(options: DecodeOptions):
    """How greedy/sampling picks the next token from the logits."""
    if options.strategy == "sample":
        return sampler(options.temperature, options.top_k, options.top_p, options.seed)
    return argmax


__all__ = ["DecodeOptions", "decode", "greedy_decode", "greedy_steps", "token_chooser", "beam_search", "sampler",
           "pad_batch"]
