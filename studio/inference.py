"""Text in, text out: a bundle's preprocessor around a runtime and the decode loop."""

from __future__ import annotations

import logging
import queue
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from studio.bundle import Bundle, load_bundle
from studio.generate import DecodeOptions, DecodeSpec, decode, decode_steps, strategy_for, streams_tokens
from studio.generate.confidence import Confidence, confidence, token_logprobs
from studio.generate.figures import FigureGuard
from studio.generate.guards import RETRIED, RETRY_NO_REPEAT, is_degenerate, length_cap
from studio.runtimes import load_runtime
from studio.tasks import task_named
from studio.text.facts import source_numbers, source_years
from studio.text.preprocess import Preprocessor



log = logging.getLogger(__name__)


@dataclass
class Generation:
    text: str
    ids: list[int]
    warnings: list[str] = field(default_factory=list)
    confidence: Confidence | None = None  # with generate(..., scores=True)


@dataclass
class Latency:
    backend: str
    first_token_ms: float = 0.0  # encode + first decode step
    total_ms: float = 0.0
    tokens: int = 0  # generated tokens, including </s>
    confidence: Confidence | None = None  # with stream(..., scores=True): how sure the model is of the reply
    search: str | None = None  # e.g. "beam 4": the output came all at once, so it has no first-token time

    @property
    def ms_per_token(self) -> float:
        """Mean time of a decode step after the first; for a search, its whole time per output token."""
        if self.search:
            return self.total_ms / max(1, self.tokens)
        return (self.total_ms - self.first_token_ms) / (self.tokens - 1) if self.tokens > 1 else self.first_token_ms

    def summary(self) -> str:
        if self.search:
            return (f"{self.backend} · {self.search} · {self.ms_per_token:.2f} ms/token (whole search) · "
                    f"{self.tokens} tokens · {self.total_ms:.1f} ms total")
        return (f"{self.backend} · first token {self.first_token_ms:.1f} ms · {self.ms_per_token:.2f} ms/token · "
                f"{self.tokens} tokens · {self.total_ms:.1f} ms total")


def distinct_outputs(scored: list[tuple[str, float]], n: int) -> list[tuple[str, float]]:
    """The first `n` outputs (best first) that differ by more than case and a closing period or comma: pieces
    can join into the same text, and "… by fire." / "… by fire" is no alternative to offer ("… fire?" is: a
    Korean question may be marked only by its question mark)."""
    kept: dict[str, tuple[str, float]] = {}
    for text, score in scored:
        kept.setdefault(text.strip().rstrip(".,;:").strip().casefold(), (text, score))
    return list(kept.values())[:n]


class TextGenerator:
    """`preprocessor` turns text into source ids and generated ids into text; `runtime` runs the model.
    With a `scheduler` (`studio.scheduler`, set by the serving layer), `stream` decodes its requests (greedy,
    sampling and beam search) in its running batch, together with other callers' requests."""

    def __init__(self, preprocessor: Preprocessor, runtime, backend: str | None = None, bundle: Bundle | None = None):
        self.preprocessor = preprocessor
        self.runtime = runtime
        self.scheduler = None
        self.backend = backend or runtime.name
        self.bundle = bundle
        self.config = preprocessor.config
        self.tokenizers = preprocessor.tokenizers
        self._figure_guard = None

    @classmethod
    def open(cls, bundle: Bundle, backend: str = "tf", model=None, threads: int | None = None,
             export_dir: Path | None = None) -> "TextGenerator":
        """A generator for `bundle` on `backend` (an exported backend must have been exported: see
        `exporters.ensure_exported`)."""
        runtime = load_runtime(bundle, backend, model=model, threads=threads, export_dir=export_dir)
        return cls(bundle.preprocessor, runtime, backend, bundle)

    @classmethod
    def from_path(cls, path: str | Path, backend: str = "tf", **options) -> "TextGenerator":
        return cls.open(load_bundle(Path(path)), backend, **options)

    def spec(self, options: DecodeOptions | None, sources=()) -> DecodeSpec:
        """The model's limits, where every output ends (beam search's hypotheses too); for a task whose output
        length follows its source's (the translator), each output is also capped by its source's length
        (`guards.length_cap`); for a task that keeps its source's figures, only the source's numbers may be written,
        and beam search prefers a translation that writes every year of its source (`studio.generate.figures`)."""
        spec = DecodeSpec.for_model(self.config.model, options.max_new_tokens if options else None)
        if not sources:
            return spec
        task = task_named(self.config.task.task)
        spec = replace(spec, caps=tuple(length_cap(len(s)) if task.length_follows_source else spec.max_new_tokens
                                        for s in sources))
        if task.keeps_figures and (options is None or options.keep_figures):
            texts = [self.tokenizers.source.decode(s) for s in sources]
            spec = replace(spec, figures=self.figure_guard(), numbers=tuple(map(source_numbers, texts)),
                           years=tuple(map(source_years, texts)))
        return spec

    def figure_guard(self) -> FigureGuard:
        """The target vocabulary's digit pieces (`studio.generate.figures`), found once per generator."""
        if self._figure_guard is None:
            self._figure_guard = FigureGuard.for_tokenizer(self.tokenizers.target, self.config.model.eos_id)
        return self._figure_guard

    def generate(self, texts: list[str], options: DecodeOptions | None = None, scores: bool = False
                 ) -> list[Generation]:
        """Decode `texts` together (greedy unless `options` say otherwise). `scores`: also how sure the model
        is of each output, per word and sentence (`studio.generate.confidence`; one more forced pass)."""
        encoded = [self.preprocessor.encode(text) for text in texts]
        sources = [ids for ids, _ in encoded]
        strategy = strategy_for(options)
        decode(self.runtime, sources, self.spec(options, sources), strategy)
        outputs = strategy.outputs()
        outputs, retried = self._unloop(sources, outputs, options)
        results = [Generation(self.preprocessor.decode(ids), ids, warnings + ([RETRIED] if i in retried else []))
                   for i, (ids, (_, warnings)) in enumerate(zip(outputs, encoded))]
        if scores and results:
            for result, scored in zip(results, self.confidence(sources, outputs)):
                result.confidence = scored
        return results

    def generate_raw(self, texts: list[str], options: DecodeOptions | None = None) -> list[Generation]:
        """The bare model, as another toolkit would run it (`studio translate --raw`): each text encoded by the
        source SentencePiece model alone (no text pipeline), cut to what the model reads, decoded with `options`
        and nothing else (no length cap, figure guard or loop retry), the ids decoded by the target SentencePiece
        model alone (no tidying)."""
        limit = self.preprocessor.source_limit
        eos = self.tokenizers.source.eos_id
        encoded = [self.tokenizers.source.encode(text) for text in texts]
        sources = [ids[:limit] + [eos] for ids in encoded]
        strategy = strategy_for(options)
        decode(self.runtime, sources, DecodeSpec.for_model(self.config.model, options and options.max_new_tokens),
               strategy)
        return [Generation(self.tokenizers.target.decode_plain(ids), ids,
                           [f"input was {len(full)} tokens; only the first {limit} were used"] if len(full) > limit
                           else []) for ids, full in zip(strategy.outputs(), encoded)]

    def _unloop(self, sources, outputs, options: DecodeOptions | None) -> tuple[list, set[int]]:
        """Decode again, with repeated n-grams banned, the sources whose output is a degenerate loop."""
        options = options or DecodeOptions()
        loops = [i for i, ids in enumerate(outputs) if is_degenerate(ids)]
        if not loops or options.no_repeat_ngram_size:
            return outputs, set()
        retry = replace(options, no_repeat_ngram_size=RETRY_NO_REPEAT)
        log.debug("%d of %d outputs repeat in a loop: decoded again with repeated %d-grams banned", len(loops),
                  len(outputs), RETRY_NO_REPEAT)
        again = [sources[i] for i in loops]
        for i, ids in zip(loops, decode(self.runtime, again, self.spec(retry, again), strategy_for(retry))):
            outputs[i] = ids
        return outputs, set(loops)

    def stream(self, text: str, options: DecodeOptions | None = None, scores: bool = False, partial: bool = True):
        """Yield (text so far, Latency, warnings) after every token; beam search yields once, at the end.
        `scores`: the last Latency also carries the reply's confidence (measured after the timings).
        `partial=False`: only the end (for callers that show no text until then: no text is made per token)."""
        latency = Latency(self.backend)
        started = time.perf_counter()
        source, warnings = self.preprocessor.encode(text)
        streaming = streams_tokens(options)
        if self.scheduler is not None:  # in the running batch, with other callers' requests (beam search too)
            ids = yield from self._scheduled(source, options, latency, warnings, started, partial and streaming)
            outputs = [ids]
            if not streaming:  # one figure for the whole search, as below
                latency.first_token_ms, latency.tokens = latency.total_ms, len(ids) + 1
                latency.search = f"beam {options.beam_size}"
        else:
            strategy = strategy_for(options)
            away = 0.0  # time the caller held the stream between tokens (a page drawing them): not the model's
            for _ in decode_steps(self.runtime, [source], self.spec(options, [source]), strategy):
                latency.tokens += 1
                latency.total_ms = (time.perf_counter() - started - away) * 1000
                if latency.tokens == 1:
                    latency.first_token_ms = latency.total_ms
                if streaming and partial and not strategy.finished:
                    text_so_far = self.preprocessor.decode(strategy.outputs()[0])
                    handed = time.perf_counter()
                    yield text_so_far, latency, warnings
                    away += time.perf_counter() - handed
            if not streaming:  # one figure for the whole search
                latency.first_token_ms = latency.total_ms
                latency.tokens = len(strategy.outputs()[0]) + 1
                latency.search = f"beam {options.beam_size}"
            outputs = strategy.outputs()
        retrying = time.perf_counter()
        outputs, retried = self._unloop([source], outputs, options)
        if retried:  # the streamed loop is replaced by the retry's output (the retry's time added)
            warnings = warnings + [RETRIED]
            latency.total_ms += (time.perf_counter() - retrying) * 1000
        if scores:
            latency.confidence = self.confidence([source], outputs)[0]
        yield self.preprocessor.decode(outputs[0]), latency, warnings

    def timed(self, text: str, options: DecodeOptions | None = None, scores: bool = False
              ) -> tuple[Generation, Latency]:
        """One input decoded alone, not streamed (in the running batch, with other callers' requests, when a
        scheduler is set), with its timings; `scores` as in `generate` (its confidence is also the Latency's)."""
        text, latency, warnings = list(self.stream(text, options, scores=scores, partial=False))[-1]
        return Generation(text, [], list(warnings), latency.confidence), latency

    def _scheduled(self, source, options, latency: Latency, warnings, started: float, partial: bool = True):
        """Decode `source` in the scheduler's running batch, yielding as `stream` does after each token (with
        `partial`); returns the ids. Closing the stream (the user went away) takes the row out of the batch."""
        updates: queue.SimpleQueue = queue.SimpleQueue()
        # each token with the time the batch wrote it: the caller may read them later (a page drawing them)
        job = self.scheduler.submit(source, self.spec(options, [source]), lambda: strategy_for(options),
                                    (lambda ids: updates.put((ids, time.perf_counter()))) if partial else None)
        job.future.add_done_callback(lambda _: updates.put((None, time.perf_counter())))
        try:
            while (update := updates.get())[0] is not None:
                ids, written_at = update
                latency.tokens += 1
                latency.total_ms = (written_at - started) * 1000
                if latency.tokens == 1:
                    latency.first_token_ms = latency.total_ms
                yield self.preprocessor.decode(ids), latency, warnings
            ids, done_at = job.future.result(), update[1]
        finally:
            job.cancel()  # nothing if it has ended; else its row leaves at the next step
        latency.tokens = job.position
        latency.first_token_ms = ((job.first_token_at or done_at) - started) * 1000
        latency.total_ms = (done_at - started) * 1000
        return ids

    def alternatives(self, text: str, n: int, options: DecodeOptions | None = None) -> list[tuple[str, float]]:
        """Up to `n` different outputs for `text` from beam search (width at least n), best first, each with
        its length-normalized log-probability."""
        options = replace(options or DecodeOptions(), strategy="beam")
        options.beam_size = max(options.beam_size, n)
        source, _ = self.preprocessor.encode(text)
        strategy = strategy_for(options)
        decode(self.runtime, [source], self.spec(options, [source]), strategy)
        found = strategy.alternatives(options.beam_size)[0] or [(0.0, strategy.outputs()[0])]
        return distinct_outputs([(self.preprocessor.decode(ids), score) for score, ids in found], n)

    def confidence(self, sources, outputs) -> list[Confidence]:
        """How sure the model is of `outputs` (ids) for `sources` (ids): `studio.generate.confidence`."""
        logprobs = token_logprobs(self.runtime, sources, outputs, self.spec(None))
        piece = self.tokenizers.target.id_to_piece
        return [confidence([piece(i) for i in ids], lp) for ids, lp in zip(outputs, logprobs)]

    def __call__(self, text: str) -> str:
        return self.generate([text])[0].text
