"""Logit constraints applied by every strategy before choosing tokens."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def ban_repeated_ngrams(logits: np.ndarray, histories: Sequence[Sequence[int]], n: int) -> np.ndarray:
    """Set to -inf every token that would complete an n-gram already present in that row's history."""
    if n <= 0:
        return logits
    logits = logits.copy()
    for row, history in enumerate(histories):
        if len(history) < n - 1:
            continue
        prefix = tuple(history[len(history) - n + 1:]) if n > 1 else ()
        banned = [history[i + n - 1] for i in range(len(history) - n + 1) if tuple(history[i:i + n - 1]) == prefix]
        if banned:
            logits[row, banned] = -np.inf
    return logits


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def log_sum_exp(logits: np.ndarray) -> np.ndarray:
    """log(sum(exp(logits))) per row, [rows, 1], in float64 (the normalizer of log_softmax)."""
    top = np.max(logits, axis=-1, keepdims=True)
    return top.astype(np.float64) + np.log(np.sum(np.exp(logits - top), axis=-1, keepdims=True, dtype=np.float64))
