"""The pairs a fine-tune leaves out: those the model it starts from finds least likely. A user's translation
memory or a scraped corpus holds misaligned pairs (a sentence with half of its translation, or another
sentence's), and a fine-tune learns their omissions as readily as the good pairs; a trained model gives the
reference tokens of such a pair a far lower mean log-probability than those of a faithful translation
(a forward-model form of the cross-entropy filtering of Junczys-Dowmunt, 2018).

On park_dev, the news pairs of the seeds' corpus, the least likely 30% were mostly misaligned, and leaving them
out is what turned the fine-tune's loss on park_test into a gain (docs/translator-training.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from studio.data import Pair
from studio.generate.confidence import token_logprobs

BATCH = 32


def pair_scores(generator, pairs: Sequence[Pair], target_tokenizer, max_target_len: int) -> list[float]:
    """Each pair's mean log p(reference token | source, the tokens before it) under `generator`'s model (forced
    decoding; its text pipeline reads the source). Pairs are scored in batches of similar length."""
    sources = [generator.preprocessor.encode(pair.source)[0] for pair in pairs]
    targets = [target_tokenizer.encode(pair.target)[: max(max_target_len - 2, 1)] for pair in pairs]
    order = sorted(range(len(pairs)), key=lambda i: len(targets[i]))
    scores = [0.0] * len(pairs)
    spec = generator.spec(None)
    for start in range(0, len(order), BATCH):
        chosen = order[start:start + BATCH]
        found = token_logprobs(generator.runtime, [sources[i] for i in chosen], [targets[i] for i in chosen], spec)
        for i, logprobs in zip(chosen, found):
            scores[i] = float(np.mean(logprobs)) if logprobs else -np.inf
    return scores


def least_likely(pairs: Sequence[Pair], scores: Sequence[float], share: float) -> tuple[list[Pair], list[Pair]]:
    """(kept, left out): the `share` of `pairs` with the lowest scores left out, the rest in their order."""
    count = int(len(pairs) * share)
    dropped = set(sorted(range(len(pairs)), key=lambda i: scores[i])[:count])
    return ([p for i, p in enumerate(pairs) if i not in dropped],
            [pairs[i] for i in sorted(dropped, key=lambda i: scores[i])])
