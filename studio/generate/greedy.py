"""Greedy decoding and sampling over any runtime: one token per row per step until every row ends.
Both share the loop; they differ only in how the next token is chosen from the logits."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from studio.generate.constraints import ban_repeated_ngrams


def pad_batch(sequences: Sequence[Sequence[int]], pad_id: int = 0) -> np.ndarray:
    length = max(1, max((len(s) for s in sequences), default=1))
    batch = np.full((len(sequences), length), pad_id, dtype=np.int32)
    for row, sequence in enumerate(sequences):
        batch[row, : len(sequence)] = sequence
    return batch


def _filter_top_k_top_p(logits: np.ndarray, top_k: int, top_p: float) -> np.ndarray:
    logits = logits.copy()
    if top_k and top_k < logits.shape[-1]:
        kth = np.partition(logits, -top_k, axis=-1)[:, -top_k][:, None]
        logits[logits < kth] = -np.inf
    if top_p < 1.0:
        order = np.argsort(-logits, axis=-1)
        sorted_logits = np.take_along_axis(logits, order, axis=-1)
        probs = np.exp(sorted_logits - sorted_logits[:, :1])
        probs /= probs.sum(-1, keepdims=True)
        # keep the smallest prefix whose mass reaches top_p (always at least the best token)
        remove_sorted = np.cumsum(probs, axis=-1) - probs >= top_p
        remove = np.zeros_like(remove_sorted)
        np.put_along_axis(remove, order, remove_sorted, axis=-1)
        logits[remove] = -np.inf
    return logits


def sampler(temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, seed: int | None = None):
    """A token chooser that samples from the (temperature-scaled, top-k/top-p filtered) distribution.
    With a seed, the same inputs give the same outputs."""
    rng = np.random.default_rng(seed)

    def choose(logits: np.ndarray) -> np.ndarray:
        filtered = _filter_top_k_top_p(logits.astype(np.float64) / temperature, top_k, top_p)
        probs = np.exp(filtered - np.max(filtered, axis=-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        return np.array([rng.choice(len(p), p=p) for p in probs], dtype=np.int32)

    return choose


def argmax(logits: np.ndarray) -> np.ndarray:
    return np.argmax(logits, axis=-1).astype(np.int32)


def greedy_steps(runtime, source_ids: Sequence[Sequence[int]], bos_id: int, eos_id: int, max_new_tokens: int,
                 pad_id: int = 0, choose: Callable[[np.ndarray], np.ndarray] = argmax, no_repeat_ngram_size: int = 0):
    """The decode loop, one step per `next()`: yields (position, tokens chosen, generated ids per row so far,
    without <s> and </s>) until every row has ended. `choose` picks tokens from logits (argmax, or a `sampler`)."""
    state = runtime.encode(pad_batch(source_ids, pad_id))
    batch = len(source_ids)
    tokens = np.full(batch, bos_id, dtype=np.int32)
    outputs: list[list[int]] = [[] for _ in range(batch)]
    finished = np.zeros(batch, dtype=bool)
    for position in range(max_new_tokens):
        logits, state = runtime.step(state, tokens, position)
        logits = ban_repeated_ngrams(logits, outputs, no_repeat_ngram_size)
        tokens = choose(logits)
        tokens[finished] = pad_id
        for row in np.flatnonzero(~finished):
            if tokens[row] == eos_id:
                finished[row] = True
            else:
                outputs[row].append(int(tokens[row]))
        yield position, tokens, outputs
        if finished.all():
            break


def greedy_decode(runtime, source_ids: Sequence[Sequence[int]], bos_id: int, eos_id: int, max_new_tokens: int,
                  pad_id: int = 0, on_token: Callable[[int, np.ndarray], None] | None = None,
                  choose: Callable[[np.ndarray], np.ndarray] = argmax, no_repeat_ngram_size: int = 0) -> list[list[int]]:
    """Returns the generated ids per row, without <s> and </s>. `on_token(position, tokens)` is called
    after every step (streaming)."""
    outputs: list[list[int]] = [[] for _ in source_ids]
    for position, tokens, outputs in greedy_steps(runtime, source_ids, bos_id, eos_id, max_new_tokens, pad_id,
                                                  choose, no_repeat_ngram_size):
        if on_token:
            on_token(position, tokens)
    return outputs
