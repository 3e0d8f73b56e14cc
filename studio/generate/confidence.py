"""How sure the model is of its own output: the log-probability it gives each output token, scored by
teacher forcing the output once more (any strategy's output: greedy, sampling or beam). As in Firefox's
translations (an unsupervised quality estimate): a word's score is the mean log-probability of its pieces,
a sentence's the mean of its words' scores. Scores are <= 0; closer to 0 is surer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from studio.generate.constraints import log_softmax
from studio.generate.loop import DecodeSpec, decode_steps, pad_batch
from studio.generate.strategies import Forced


@dataclass
class Confidence:
    words: list[tuple[str, float]]  # (word, mean log-prob of its pieces)
    sentence: float  # mean of the words' scores (0.0 for an empty output)


def token_logprobs(runtime, sources: Sequence[Sequence[int]], outputs: Sequence[Sequence[int]],
                   spec: DecodeSpec) -> list[list[float]]:
    """log p(token | source, previous tokens) of every output token (without </s>), per source."""
    targets = pad_batch([[spec.bos, *ids, spec.eos] for ids in outputs], spec.pad)
    forced = DecodeSpec(spec.bos, spec.eos, targets.shape[1] - 1, spec.pad)
    steps = decode_steps(runtime, sources, forced, Forced(targets))
    scores = np.zeros((len(outputs), targets.shape[1] - 1))
    for t, logits in enumerate(steps):
        if t >= targets.shape[1] - 1:
            break
        scores[:, t] = np.take_along_axis(log_softmax(np.asarray(logits, np.float64)), targets[:, t + 1, None], 1)[:, 0]
    return [scores[i, : len(ids)].tolist() for i, ids in enumerate(outputs)]


def confidence(pieces: Sequence[str], logprobs: Sequence[float]) -> Confidence:
    """Group SentencePiece pieces into words (a piece starting with ▁ starts one) and score them."""
    words: list[tuple[str, list[float]]] = []
    for piece, score in zip(pieces, logprobs):
        if piece.startswith("\u2581") or not words:
            words.append((piece.lstrip("\u2581"), [score]))
        else:
            words[-1] = (words[-1][0] + piece, words[-1][1] + [score])
    scored = [(word, float(np.mean(scores))) for word, scores in words if word]
    return Confidence(scored, float(np.mean([s for _, s in scored])) if scored else 0.0)
