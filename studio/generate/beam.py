"""Beam search over any runtime (its `reorder` selects cache rows).

Each source keeps `beam_size` live hypotheses. Every step, each live hypothesis is extended by its best
tokens; among the 2*beam_size best candidates, those ending in </s> join the finished list, the best
`beam_size` others stay live. A source is done when it has `beam_size` finished hypotheses or no live
one can still beat its best finished one. Finished hypotheses are ranked by
log-probability / length**length_penalty (length counts </s>)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from studio.generate.constraints import ban_repeated_ngrams, log_softmax
from studio.generate.greedy import pad_batch


def beam_search(runtime, source_ids: Sequence[Sequence[int]], bos_id: int, eos_id: int, max_new_tokens: int,
                beam_size: int = 4, length_penalty: float = 1.0, pad_id: int = 0,
                no_repeat_ngram_size: int = 0) -> list[list[int]]:
    batch, K = len(source_ids), beam_size
    state = runtime.reorder(runtime.encode(pad_batch(source_ids, pad_id)), np.repeat(np.arange(batch), K))
    scores = np.full((batch, K), -np.inf)
    scores[:, 0] = 0.0  # all beams start identical: only the first may expand at step 0
    histories: list[list[int]] = [[] for _ in range(batch * K)]
    tokens = np.full(batch * K, bos_id, dtype=np.int32)
    finished: list[list[tuple[float, list[int]]]] = [[] for _ in range(batch)]
    done = np.zeros(batch, dtype=bool)
    normalize = lambda score, length: score / (length ** length_penalty)  # noqa: E731

    for position in range(max_new_tokens):
        logits, state = runtime.step(state, tokens, position)
        logits = ban_repeated_ngrams(logits, histories, no_repeat_ngram_size)
        candidates = scores.reshape(-1, 1) + log_softmax(logits.astype(np.float64))  # [B*K, V]
        vocab = candidates.shape[1]
        candidates = candidates.reshape(batch, K * vocab)
        top = np.argsort(-candidates, axis=1)[:, : 2 * K]
        new_rows, new_tokens, new_scores = [], [], []
        for b in range(batch):
            kept = []
            if not done[b]:
                for flat in top[b]:
                    score = candidates[b, flat]
                    if not np.isfinite(score):
                        break
                    beam, token = divmod(int(flat), vocab)
                    history = histories[b * K + beam]
                    if token == eos_id:
                        finished[b].append((normalize(score, len(history) + 1), history))
                    else:
                        kept.append((b * K + beam, token, score))
                    if len(kept) == K:
                        break
                if len(finished[b]) >= K:
                    done[b] = True
                elif finished[b] and kept:
                    best_finished = max(s for s, _ in finished[b])
                    # a live hypothesis only gets worse; at best it ends at the longest length allowed
                    best_possible = max(normalize(s, max_new_tokens + 1) if length_penalty > 0 else s
                                        for _, _, s in kept)
                    if best_possible < best_finished:
                        done[b] = True
            if done[b] or not kept:
                done[b] = True
                kept = [(b * K, pad_id, -np.inf)] * K
            kept += [kept[-1][:2] + (-np.inf,)] * (K - len(kept))
            for row, token, score in kept:
                new_rows.append(row)
                new_tokens.append(token)
                new_scores.append(score)
        if done.all():
            break
        state = runtime.reorder(state, np.array(new_rows))
        histories = [histories[row] + [token] for row, token in zip(new_rows, new_tokens)]
        tokens = np.array(new_tokens, dtype=np.int32)
        scores = np.array(new_scores).reshape(batch, K)

    results = []
    for b in range(batch):
        if finished[b]:
            results.append(max(finished[b], key=lambda item: item[0])[1])
        else:  # nothing ended within the limit: the best live hypothesis
            best = int(np.argmax(scores[b]))
            results.append(histories[b * K + best])
    return results
