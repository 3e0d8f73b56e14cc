"""The decode loop, written once for every runtime and strategy: encode the sources, then one `step` per
position, the strategy choosing the next tokens (and, for beam search, which cache rows to keep).
Generation, the benchmark (a fixed number of tokens) and export verification (teacher-forced targets)
all run this loop."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DecodeSpec:
    bos: int
    eos: int
    max_new_tokens: int  # the most tokens generated per row, </s> included
    pad: int = 0
    min_new_tokens: int = 0  # </s> is impossible before this many tokens (the benchmark's fixed lengths)
    caps: tuple[int, ...] | None = None  # per source: at most this many tokens, </s> included (TextGenerator.spec)
    figures: object = None  # a `figures.FigureGuard`: no digits but the source's `numbers` (TextGenerator.spec)
    numbers: tuple[frozenset, ...] = ()  # per source: its numbers (`figures.source_numbers`)
    years: tuple[frozenset, ...] = ()  # per source: the years its output must write (`dates.source_years`)

    def cap(self, source: int) -> int:
        return min(self.caps[source], self.max_new_tokens) if self.caps else self.max_new_tokens

    @classmethod
    def for_model(cls, config, max_new_tokens: int | None = None, min_new_tokens: int = 0) -> "DecodeSpec":
        """The model's special ids; at most its cache capacity (max_target_len) of new tokens."""
        limit = config.max_target_len
        return cls(config.bos_id, config.eos_id, min(max_new_tokens or limit, limit), config.pad_id,
                   min(min_new_tokens, limit))


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = 0) -> np.ndarray:
    length = max(1, max((len(s) for s in sequences), default=1))
    batch = np.full((len(sequences), length), pad_id, dtype=np.int32)
    for row, sequence in enumerate(sequences):
        batch[row, : len(sequence)] = sequence
    return batch


def decode_steps(runtime, source_ids: Sequence[Sequence[int]], spec: DecodeSpec, strategy) -> Iterator[np.ndarray]:
    """Run the loop one step per `next()`, yielding each step's logits [rows, V] (after the spec's
    constraints) once the strategy has chosen from them; `strategy` holds the outputs so far. Once at most
    half of the rows still decode, the others leave the batch (`runtime.select`)."""
    state = runtime.encode(pad_batch(source_ids, spec.pad))
    tokens = strategy.start(len(source_ids), spec)
    for position in range(spec.max_new_tokens):
        logits, state = runtime.step(state, tokens, position)
        tokens, order = strategy.advance(held_open(logits, position, spec), position)
        if order is not None:  # beam search: a group's rows continue from its best rows (after the first
            # step, which runs one row per source, each source's row is copied to every beam: a `select`)
            state = runtime.reorder(state, order) if len(order) == len(logits) else runtime.select(state, order)
        yield logits
        if strategy.finished:
            break
        rows = strategy.shrink()  # rows whose sources have ended stop costing decode steps
        if rows is not None:
            state = runtime.select(state, rows)
            tokens = tokens[rows]


def decode(runtime, source_ids: Sequence[Sequence[int]], spec: DecodeSpec, strategy) -> list[list[int]]:
    """Generated ids per source, without <s> and </s>."""
    for _ in decode_steps(runtime, source_ids, spec, strategy):
        pass
    return strategy.outputs()


def held_open(logits: np.ndarray, position: int, spec: DecodeSpec) -> np.ndarray:
    """`logits` with </s> ruled out while fewer than `spec.min_new_tokens` tokens are out (a copy; else as given)."""
    if position >= spec.min_new_tokens:
        return logits
    logits = np.array(logits, copy=True)
    logits[:, spec.eos] = -np.inf
    return logits
