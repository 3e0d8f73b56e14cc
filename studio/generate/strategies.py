"""How the decode loop chooses tokens: token by token (greedy or sampling), beam search, or teacher forcing.

A strategy has `start(batch, spec)` -> the first tokens (one row per source), `advance(logits, position)` ->
(next tokens, rows to continue from or None: a `reorder`, or a `select` when the row count changes), `shrink()` -> the rows still worth decoding once many have ended
(or None), `finished`, and `outputs()` -> generated ids per source (without <s> and </s>). `strategy_for(options)` is the one place that turns `DecodeOptions` into a strategy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from studio.generate.constraints import ban_repeated_ngrams, log_sum_exp, top_k_indices
from studio.generate.figures import keep_figures, keeps_years
from studio.generate.options import DecodeOptions


# rows of ended sources leave the batch once at most this share of its sources still decode: each
# `select` copies the decoder state once, each step saved skips the model on those rows
SHRINK_AT = 0.75


def end_capped(logits: np.ndarray, rows, spec) -> np.ndarray:
    """Only </s> is possible in `rows` (sources at their length cap, `DecodeSpec.caps`)."""
    logits = np.array(logits, copy=True)
    logits[rows] = -np.inf
    logits[rows, spec.eos] = 0.0
    return logits


def argmax(logits: np.ndarray) -> np.ndarray:
    return np.argmax(logits, axis=-1).astype(np.int32)


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


class TokenByToken:
    """Greedy decoding (argmax) or sampling (a `sampler`): one token per row per step until every row ends."""

    def __init__(self, choose: Callable[[np.ndarray], np.ndarray] = argmax, no_repeat_ngram_size: int = 0):
        self.choose = choose
        self.no_repeat_ngram_size = no_repeat_ngram_size

    def start(self, batch: int, spec) -> np.ndarray:
        self.spec = spec
        self.histories: list[list[int]] = [[] for _ in range(batch)]
        self.ended = [False] * batch  # per source
        self.live = batch  # sources not ended
        self.sources = list(range(batch))  # the source each current row decodes (rows of ended ones leave)
        return np.full(batch, spec.bos, dtype=np.int32)

    def advance(self, logits: np.ndarray, position: int):
        # plain Python over the rows: at batch 1 each step's bookkeeping must cost microseconds, not tens
        if self.no_repeat_ngram_size:
            logits = ban_repeated_ngrams(logits, [self.histories[s] for s in self.sources], self.no_repeat_ngram_size)
        if self.spec.figures is not None:
            logits = keep_figures(logits, self.spec, self.sources, [self.histories[s] for s in self.sources])
        if self.spec.caps:
            capped = [row for row, s in enumerate(self.sources) if position + 1 >= self.spec.cap(s)]
            if capped:
                logits = end_capped(logits, capped, self.spec)
        chosen = self.choose(logits).tolist()
        eos, pad = self.spec.eos, self.spec.pad
        for row, source in enumerate(self.sources):
            if self.ended[source]:
                chosen[row] = pad
            elif chosen[row] == eos:
                self.ended[source] = True
                self.live -= 1
            else:
                self.histories[source].append(chosen[row])
        return np.array(chosen, dtype=np.int32), None

    def shrink(self) -> np.ndarray | None:
        """The rows worth keeping once few enough still decode (`SHRINK_AT`; None: keep all)."""
        if 0 < self.live <= SHRINK_AT * len(self.sources):
            keep = [row for row, source in enumerate(self.sources) if not self.ended[source]]
            self.sources = [self.sources[row] for row in keep]
            return np.array(keep)
        return None

    @property
    def finished(self) -> bool:
        return self.live == 0

    def outputs(self) -> list[list[int]]:
        return self.histories


class Forced:
    """Teacher forcing: feeds `targets[:, t]` at step t (targets start with <s>), whatever the logits say;
    export verification compares two runtimes' logits on the same prefixes."""

    def __init__(self, targets: np.ndarray):
        self.targets = np.asarray(targets, dtype=np.int32)

    def start(self, batch: int, spec) -> np.ndarray:
        self.position = 0
        return self.targets[:, 0]

    def advance(self, logits: np.ndarray, position: int):
        self.position = position + 1
        return (self.targets[:, self.position] if not self.finished else self.targets[:, -1]), None

    def shrink(self) -> None:
        return None

    @property
    def finished(self) -> bool:
        return self.position >= self.targets.shape[1]

    def outputs(self) -> list[list[int]]:
        return [list(row[1:]) for row in self.targets.tolist()]


class Beam:
    """Beam search. Each source keeps `size` live hypotheses. Every step, each live hypothesis is extended by
    its best tokens; among the 2*size best candidates, those ending in </s> within the best `size` join the
    finished list, the best `size` others stay live. A source is done when it has `size` finished hypotheses or no live one can
    still beat its best finished one. Finished hypotheses are ranked by
    log-probability / length**length_penalty (length counts </s>).

    The rows kept each step always come from the same source's group of rows, so a runtime's `reorder`
    only moves the self-attention cache: the cross-attention K/V and source mask are the same in a group."""

    def __init__(self, size: int = 4, length_penalty: float = 1.0, no_repeat_ngram_size: int = 0):
        self.size = size
        self.length_penalty = length_penalty
        self.no_repeat_ngram_size = no_repeat_ngram_size

    def start(self, batch: int, spec) -> np.ndarray:
        self.spec, self.batch = spec, batch
        self.sources = np.arange(batch)  # the source of each current group of rows (done ones leave)
        # all beams would start identical: the first step runs one row per source, and its `advance` widens
        # each group to `size` rows (the loop then `select`s those rows: cache, cross-attention K/V and mask)
        self.width = 1  # rows per group now
        self.scores = np.zeros((batch, 1))  # per current group and row
        self.histories: list[list[int]] = [[] for _ in range(batch)]  # per current row
        self.done_hypotheses: list[list[tuple[float, list[int]]]] = [[] for _ in range(batch)]
        self.done = np.zeros(batch, dtype=bool)
        return np.full(batch, spec.bos, dtype=np.int32)

    def _normalize(self, score: float, length: int) -> float:
        return score / (length ** self.length_penalty)

    def advance(self, logits: np.ndarray, position: int):
        K, R, groups, eos = self.size, self.width, len(self.sources), self.spec.eos
        logits = ban_repeated_ngrams(logits, self.histories, self.no_repeat_ngram_size)
        if self.spec.figures is not None:
            logits = keep_figures(logits, self.spec, np.repeat(self.sources, R), self.histories)
        if self.spec.caps:
            capped = [g * R + r for g, b in enumerate(self.sources) if position + 1 >= self.spec.cap(b) for r in range(R)]
            if capped:
                logits = end_capped(logits, capped, self.spec)
        # a group's 2K best extensions are among its rows' own 2K best tokens: only those are scored
        width = min(2 * K, logits.shape[1])
        tokens = top_k_indices(logits, width)  # [G*R, 2K]
        log_probs = np.take_along_axis(logits, tokens, axis=1).astype(np.float64) - log_sum_exp(logits)
        candidates = (self.scores.reshape(-1, 1) + log_probs).reshape(groups, R * width)
        order = np.argsort(-candidates, axis=1)[:, : 2 * K]  # best first
        new_rows, new_tokens, new_scores = [], [], []
        for g, b in enumerate(self.sources):
            kept = []
            if not self.done[b]:
                for rank, flat in enumerate(order[g]):
                    score = candidates[g, flat]
                    if not np.isfinite(score):
                        break
                    beam = int(flat) // width
                    token = int(tokens[g * R + beam, int(flat) % width])
                    history = self.histories[g * R + beam]
                    if token == eos:
                        if rank < K:  # as fairseq: an ending below the K best is not worth finishing
                            self.done_hypotheses[b].append((self._normalize(score, len(history) + 1), history))
                    else:
                        kept.append((g * R + beam, token, score))
                    if len(kept) == K:
                        break
                finished = self.done_hypotheses[b]
                if len(finished) >= K:
                    self.done[b] = True
                elif finished and kept:
                    best_finished = max(s for s, _ in finished)
                    # a live hypothesis only gets worse; at best it ends at the longest length allowed
                    best_possible = max(self._normalize(s, self.spec.cap(b) + 1)
                                        if self.length_penalty > 0 else s for _, _, s in kept)
                    if best_possible < best_finished:
                        self.done[b] = True
            if self.done[b] or not kept:
                self.done[b] = True
                kept = [(g * R, self.spec.pad, -np.inf)] * K
            kept += [kept[-1][:2] + (-np.inf,)] * (K - len(kept))
            for row, token, score in kept:
                new_rows.append(row)
                new_tokens.append(token)
                new_scores.append(score)
        if self.finished:
            return np.array(new_tokens, dtype=np.int32), None
        self.histories = [self.histories[row] + [token] for row, token in zip(new_rows, new_tokens)]
        self.scores = np.array(new_scores).reshape(groups, K)
        self.width = K
        return np.array(new_tokens, dtype=np.int32), np.array(new_rows)

    def shrink(self) -> np.ndarray | None:
        """The rows worth keeping once few enough groups still search (`SHRINK_AT`; None: keep all). Only groups
        with a finished hypothesis leave: a group without one answers with its best live hypothesis."""
        K = self.width
        stay = ~self.done[self.sources] | np.array([not self.done_hypotheses[b] for b in self.sources], dtype=bool)
        live = np.flatnonzero(stay)
        if 0 < len(live) <= SHRINK_AT * len(self.sources):
            rows = (live[:, None] * K + np.arange(K)).ravel()
            self.sources, self.scores = self.sources[live], self.scores[live]
            self.histories = [self.histories[row] for row in rows]
            return rows
        return None

    @property
    def finished(self) -> bool:
        return bool(self.done.all())

    def alternatives(self, n: int) -> list[list[tuple[float, list[int]]]]:
        """Per source, up to `n` distinct finished hypotheses, best first: (normalized log-prob, ids)."""
        results = []
        for b in range(self.batch):
            ranked, seen = [], set()
            for score, ids in sorted(self.done_hypotheses[b], key=lambda item: -item[0]):
                if tuple(ids) not in seen:
                    seen.add(tuple(ids))
                    ranked.append((float(score), ids))
            results.append(ranked[:n])
        return results

    def outputs(self) -> list[list[int]]:
        K, results = self.width, []
        group_of = {int(b): g for g, b in enumerate(self.sources)}
        for b in range(self.batch):
            if self.done_hypotheses[b]:
                # the best that writes every year of its source, if one does (`figures.keeps_years`)
                results.append(max(self.done_hypotheses[b],
                                   key=lambda item: (keeps_years(self.spec, b, item[1]), item[0]))[1])
            else:  # nothing ended within the limit: the best live hypothesis
                g = group_of[b]
                results.append(self.histories[g * K + int(np.argmax(self.scores[g]))])
        return results


def strategy_for(options: DecodeOptions | None = None):
    """A fresh strategy for these options (strategies hold one decode's state: never share one)."""
    options = (options or DecodeOptions()).validate()
    if options.strategy == "beam" and options.beam_size > 1:
        return Beam(options.beam_size, options.length_penalty, options.no_repeat_ngram_size)
    if options.strategy == "sample":
        return TokenByToken(sampler(options.temperature, options.top_k, options.top_p, options.seed),
                            options.no_repeat_ngram_size)
    return TokenByToken(argmax, options.no_repeat_ngram_size)


def streams_tokens(options: DecodeOptions | None) -> bool:
    """Whether partial outputs mean anything while decoding (not for beam search, whose best changes)."""
    options = options or DecodeOptions()
    return not (options.strategy == "beam" and options.beam_size > 1)


__all__ = ["TokenByToken", "Beam", "Forced", "strategy_for", "streams_tokens", "sampler", "argmax"]
