"""Greedy decoding over any runtime: pick the most likely token each step until every row has ended."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = 0) -> np.ndarray:
    length = max(1, max((len(s) for s in sequences), default=1))
    batch = np.full((len(sequences), length), pad_id, dtype=np.int32)
    for row, sequence in enumerate(sequences):
        batch[row, : len(sequence)] = sequence
    return batch


def greedy_decode(runtime, source_ids: Sequence[Sequence[int]], bos_id: int, eos_id: int, max_new_tokens: int,
                  pad_id: int = 0, on_token: Callable[[int, np.ndarray], None] | None = None) -> list[list[int]]:
    """Returns the generated ids per row, without <s> and </s>. `on_token(position, tokens)` is called
    after every step (streaming)."""
    state = runtime.encode(pad_batch(source_ids, pad_id))
    batch = len(source_ids)
    tokens = np.full(batch, bos_id, dtype=np.int32)
    outputs: list[list[int]] = [[] for _ in range(batch)]
    finished = np.zeros(batch, dtype=bool)
    for position in range(max_new_tokens):
        logits, state = runtime.step(state, tokens, position)
        tokens = np.argmax(logits, axis=-1).astype(np.int32)
        tokens[finished] = pad_id
        for row in np.flatnonzero(~finished):
            if tokens[row] == eos_id:
                finished[row] = True
            else:
                outputs[row].append(int(tokens[row]))
        if on_token:
            on_token(position, tokens)
        if finished.all():
            break
    return outputs
