"""Corpus evaluation with sacrebleu: BLEU and chrF of a bundle's outputs against references.

The primary figures use sacrebleu's standard signatures (cased, 13a tokenization for BLEU); the lower-cased
figures beside them compare with bundles trained on the tutorial pipeline, which lower-cases English.
Sources are decoded as a user's file is (`studio translate --file`): long paragraphs are split into
sentences and pieces that fit the model, and joined back."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sacrebleu

from studio.data.readers import Pair
from studio.fidelity import Facts, facts_kept
from studio.generate import DecodeOptions
from studio.tasks import task_named
from studio.text.retrieval import RetrievalIndex
from studio.translation import translate


@dataclass
class Score:
    name: str  # e.g. "greedy", "beam 4"
    bleu: float  # cased (sacrebleu's default)
    chrf: float
    bleu_lc: float  # lower-cased
    chrf_lc: float
    bleu_signature: str
    chrf_signature: str
    hypotheses: list[str]
    seconds: float
    repeating: float = 0.0  # share of outputs that repeat a word bigram (a fluency failure)
    distinct: float = 0.0  # share of distinct outputs (a chatbot that gives one stock reply scores low)
    repeating_references: float = 0.0  # the same share among the references: what the text itself repeats
    facts: Facts | None = None  # the sources' years, figures and Latin names the outputs keep (`studio.fidelity`)
    facts_references: Facts | None = None  # ... and the references keep: the ceiling


def repeats_itself(text: str) -> bool:
    """Whether an output repeats a word bigram or a word ("괜찮아요 괜찮아요", "the the")."""
    words = text.split()
    bigrams = list(zip(words, words[1:]))
    return len(bigrams) != len(set(bigrams)) or any(a == b for a, b in bigrams)


def decode_all(generator, sources: Sequence[str], options: DecodeOptions, batch_size: int = 32,
               on_progress: Callable[[int, int], None] | None = None, protector=None) -> list[str]:
    """Translations as a user's file gets them (with the `protector`'s term protection); a chatbot replies to
    each source whole. `on_progress(done, total)` counts sentences decoded (see `studio.translation.translate`)."""
    if task_named(generator.config.task.task).translates:
        return translate(generator, list(sources), options, batch_size=batch_size, on_progress=on_progress,
                         protector=protector).lines
    outputs = []
    for start in range(0, len(sources), batch_size):
        if on_progress:
            on_progress(start, len(sources))
        chunk = list(sources[start:start + batch_size])
        outputs += [g.text for g in generator.generate(chunk, options=options)]
    if on_progress:
        on_progress(len(sources), len(sources))
    return outputs


def score(pairs: Sequence[Pair], hypotheses: Sequence[str], name: str, seconds: float, facts: bool = False) -> Score:
    """Corpus BLEU and chrF (and lower-cased), repetition and distinctness; with `facts`, the sources' years,
    figures and Latin names the outputs and the references keep (`studio.fidelity`: a translation's)."""
    references = [[p.target for p in pairs]]
    hypotheses = list(hypotheses)
    bleu, chrf = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    bleu_score, chrf_score = bleu.corpus_score(hypotheses, references), chrf.corpus_score(hypotheses, references)
    bleu_lc = sacrebleu.metrics.BLEU(lowercase=True).corpus_score(hypotheses, references).score
    chrf_lc = sacrebleu.metrics.CHRF(lowercase=True).corpus_score(hypotheses, references).score
    return Score(name, bleu_score.score, chrf_score.score, bleu_lc, chrf_lc, str(bleu.get_signature()),
                 str(chrf.get_signature()), hypotheses, seconds,
                 repeating=_share_repeating(hypotheses), distinct=len(set(hypotheses)) / max(len(hypotheses), 1),
                 repeating_references=_share_repeating(references[0]),
                 facts=facts_kept([p.source for p in pairs], hypotheses) if facts else None,
                 facts_references=facts_kept([p.source for p in pairs], references[0]) if facts else None)


def decoding_name(options: DecodeOptions) -> str:
    """How an evaluation names a decoding: "greedy", "beam 4", "beam 4, lp 1.8", "sample" (", free figures" when
    a translator may write numbers its source lacks)."""
    free = "" if options.keep_figures else ", free figures"
    if options.strategy != "beam":
        return options.strategy + free
    return (f"beam {options.beam_size}" + (f", lp {options.length_penalty:g}" if options.length_penalty != 1.0 else "")
            + free)


def _share_repeating(texts: Sequence[str]) -> float:
    return sum(map(repeats_itself, texts)) / max(len(texts), 1)


RETRIEVAL = "retrieval baseline"  # how `studio eval chatbot` names the row a generative chatbot must beat


def retrieval_baseline(train: Sequence[Pair], pairs: Sequence[Pair]) -> Score:
    """What answering each question with its nearest training question's answer scores (TF-IDF over character
    n-grams, `studio.text.retrieval`): much of ChatbotData is stock answers shared by many questions, so this is
    the bar a generative chatbot must clear on its held-out split."""
    started = time.monotonic()
    index = RetrievalIndex.build([p.source for p in train], [p.target for p in train], "char")
    answers = [index.answers[index.query(p.source, 1)[0][0]] for p in pairs]
    return score(pairs, answers, RETRIEVAL, time.monotonic() - started)


def evaluate(generator, pairs: Sequence[Pair], strategies: dict[str, DecodeOptions], batch_size: int = 32,
             on_progress: Callable[[int, int], None] | None = None, protector=None) -> list[Score]:
    """One score per strategy; `on_progress(done, total)` counts the sentences of every strategy together. A
    translator's scores also count the facts kept, where its language pair has them (`studio.fidelity`: Korean to
    English)."""
    facts = task_named(generator.config.task.task).translates and generator.preprocessor.pair.korean_to_english
    results = []
    for number, (name, options) in enumerate(strategies.items()):
        started = time.monotonic()
        counted = None if on_progress is None else (
            lambda done, total, before=number: on_progress(before * total + done, len(strategies) * total))
        hypotheses = decode_all(generator, [p.source for p in pairs], options, batch_size, counted, protector)
        results.append(score(pairs, hypotheses, name, time.monotonic() - started, facts=facts))
    return results
