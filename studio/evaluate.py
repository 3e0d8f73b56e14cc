"""Corpus evaluation with sacrebleu: BLEU and chrF of a bundle's outputs against references.

The translator is trained on lower-cased English (as the tutorial does), so scores are computed
case-insensitively; the sacrebleu signature printed with each score says so (`case:lc`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from studio.data.readers import Pair
from studio.generate import DecodeOptions


@dataclass
class Score:
    name: str  # e.g. "greedy", "beam 4"
    bleu: float
    chrf: float
    bleu_signature: str
    chrf_signature: str
    hypotheses: list[str]
    seconds: float


def decode_all(generator, sources: Sequence[str], options: DecodeOptions, batch_size: int = 32,
               on_batch: Callable[[int], None] | None = None) -> list[str]:
    outputs = []
    for start in range(0, len(sources), batch_size):
        chunk = list(sources[start:start + batch_size])
        outputs += [g.text for g in generator.generate(chunk, options=options)]
        if on_batch:
            on_batch(len(chunk))
    return outputs


def score(pairs: Sequence[Pair], hypotheses: Sequence[str], name: str, seconds: float, lowercase: bool = True) -> Score:
    import sacrebleu

    references = [[p.target for p in pairs]]
    bleu = sacrebleu.metrics.BLEU(lowercase=lowercase)
    chrf = sacrebleu.metrics.CHRF(lowercase=lowercase)
    return Score(name, bleu.corpus_score(list(hypotheses), references).score,
                 chrf.corpus_score(list(hypotheses), references).score,
                 str(bleu.get_signature()), str(chrf.get_signature()), list(hypotheses), seconds)


def evaluate(generator, pairs: Sequence[Pair], strategies: dict[str, DecodeOptions], batch_size: int = 32,
             on_batch: Callable[[int], None] | None = None, lowercase: bool = True) -> list[Score]:
    import time

    results = []
    for name, options in strategies.items():
        started = time.monotonic()
        hypotheses = decode_all(generator, [p.source for p in pairs], options, batch_size, on_batch)
        results.append(score(pairs, hypotheses, name, time.monotonic() - started, lowercase))
    return results
