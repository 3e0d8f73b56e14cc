"""The one way text is translated: `translate` (lines: the Translate tab, `studio translate`, the API, MCP,
evaluation), `translate_document` (any document format, `studio.formats`, rendered back) and
`n_best` (beam search's different translations). Paragraphs are split into sentences (and sentences too long for
the model into chunks that fit), protected terms pass through placeholders, all pieces are decoded in batches,
then joined back per input line. Empty lines stay empty, so a file keeps its line count and order."""

from __future__ import annotations

import itertools
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from studio.generate import DecodeOptions
from studio.generate.confidence import Confidence
from studio.inference import Latency, distinct_outputs
from studio.tasks import KOREAN_ENGLISH, LanguagePair
from studio.text.dates import repair_months
from studio.text.protect import ANY_PLACEHOLDER, Protected, Protector, Span

log = logging.getLogger(__name__)

# not after a Latin abbreviation or initial ("Dr. Smith", "U.S. Steel", "J. Kim"), nor after a list marker that
# starts the line ("가. 서론", "1. 개요")
_SENTENCE_END = re.compile(r"(?<=[.!?。？！])(?<!\b[A-Z]\.)(?<!\b[A-Z][a-z]\.)(?<!\b[A-Z][a-z]{2}\.)"
                           r"(?<!^[가-힣]\.)(?<!^\d\.)(?<!^\d\d\.)\s+")
_CLAUSE_END = re.compile(r"(?<=[,;:，])\s+")


# a lower-case word written twice in a row ("the draft draft of this plan"): this model's slip, which English writes
# on purpose almost only as "had had" and "that that" (a name written twice, "Bora Bora", has capitals)
_DOUBLED = re.compile(r"\b([a-z]{3,})(?: \1\b)+")
_MEANT_TWICE = ("had", "that")
_TERMINAL = ".!?"
_CLOSING = "\"'”’)]」』"
_OPENING = "\"'“‘([「『"


def finish_sentence(source: str, output: str, pair: LanguagePair = KOREAN_ENGLISH) -> str:
    """The model's English with the two things it most often leaves undone: a first letter in lower case
    ("magnitude 6.8 earthquake hits") is capitalized unless the source has that word as written or it has a
    capital inside ("iPhone"), and a sentence that stops where the source ends with . ! or ? (it tends to,
    right after a protected span: "Samsung invested $3 billion") gets the source's mark; a comma or semicolon
    that ends it ("Hello,") is dropped unless the source ends with one; a lower-case word written twice in a row
    ("the draft draft") is written once; a month named beside one of the source's days or years is that date's month
    ("On September 9" for `1월 9일`: `studio.text.dates.repair_months`). For a model of another `pair`, only what
    that pair calls for (`LanguagePair.english_target`, `korean_to_english`): the output stripped, at least."""
    if pair.korean_to_english:
        output = repair_months(source, output)
    if not pair.english_target:
        return output.strip()
    output = _DOUBLED.sub(lambda m: m.group(0) if m.group(1) in _MEANT_TWICE else m.group(1), output.strip())
    if not output:
        return output
    first = output.split()[0].lstrip(_OPENING)
    at = len(output) - len(output.lstrip(_OPENING))  # "“parasite” was seen" -> "“Parasite” …"
    if (first[:1].islower() and first not in source and not any(c.isupper() for c in first)  # not "eBay"
            and len(first[0].upper()) == 1):  # "ß" has no one-letter capital
        output = output[:at] + output[at].upper() + output[at + 1:]
    end = source.rstrip().rstrip(_CLOSING)[-1:]
    if output[-1] in ",;" and end not in (",", ";"):  # "안녕하세요" -> "Hello,": no sentence ends so
        output = output[:-1].rstrip()
    if end and end in _TERMINAL and output.rstrip(_CLOSING)[-1:] not in _TERMINAL + "…:;,":
        output += end
    return output


def finish_generation(source: str, generation, pair: LanguagePair = KOREAN_ENGLISH):
    """`finish_sentence` on a generation: its text, and its confidence's words alike (the first letter, the final
    mark), so that the words marked as unsure read as the text does."""
    text = finish_sentence(source, generation.text, pair)
    confidence = generation.confidence
    if confidence is not None:
        written, words = text.split(), confidence.words
        if len(written) != len(words):  # a word written twice was written once: its second score goes too
            words = [pair for i, pair in enumerate(words) if not (i and _written_again(words[i - 1][0], pair[0]))]
        if len(written) == len(words):
            confidence = Confidence([(word, score) for word, (_, score) in zip(written, words)], confidence.sentence)
    return replace(generation, text=text, confidence=confidence)


def _written_again(previous: str, word: str) -> bool:
    """Whether `word` repeats `previous` as `finish_sentence` writes once ("draft", "draft," in "the draft draft,")."""
    core = word.rstrip(".,;:!?")
    return core == previous and core not in _MEANT_TWICE and bool(_DOUBLED.fullmatch(f"{core} {core}"))


def split_sentences(paragraph: str) -> list[str]:
    return [s for s in (part.strip() for part in _SENTENCE_END.split(paragraph.strip())) if s]


def fit_to_length(sentence: str, count_tokens: Callable[[str], int], limit: int) -> list[str]:
    """Split a sentence whose token count exceeds `limit`: first at clause punctuation, then by words."""
    if count_tokens(sentence) <= limit:
        return [sentence]
    clauses = [c for c in _CLAUSE_END.split(sentence) if c.strip()]
    units = clauses if len(clauses) > 1 else sentence.split()
    pieces, current = [], ""
    for unit in units:
        candidate = f"{current} {unit}".strip()
        if current and count_tokens(candidate) > limit:
            pieces.append(current)
            current = unit
        else:
            current = candidate
    if current:
        pieces.append(current)
    if len(pieces) == 1 and len(units) == 1:
        return pieces  # one enormous "word": the generator truncates it and says so
    return [p for piece in pieces for p in fit_to_length(piece, count_tokens, limit)]


def _unprotect(generator, shielded: Sequence[Protected], results: list, options: DecodeOptions | None = None
               ) -> tuple[list, list[tuple[Span, bool]]]:
    """The generations of placeholder sources (`Protector.protect`) with the protected spans put back, and
    (span, applied) for every protected span. A sentence whose placeholders the model dropped, or wrote twice, is
    decoded once more with those spans' English written into the source."""
    restored = [s.restore(r.text) for s, r in zip(shielded, results)]
    repeated = [s.repeated(r.text) for s, r in zip(shielded, results)]
    again = [i for i, (_, _, lost) in enumerate(restored) if lost or repeated[i]]
    retried = generator.generate([shielded[i].inline(restored[i][2] + repeated[i]) for i in again], options=options,
                                 scores=any(r.confidence is not None for r in results)) if again else []
    results, report = list(results), []
    for i, result in zip(again, retried):
        second = _restored(shielded[i], result.text, restored[i][2] + repeated[i])
        if _second_pass_wins(shielded[i], restored[i], second, result.text, repeated[i]):
            restored[i] = second
            results[i] = result
    for i, (shield, (text, applied, lost)) in enumerate(zip(shielded, restored)):
        confidence = results[i].confidence
        if confidence is not None and shield.spans:
            confidence = Confidence([(shield.restore(w)[0], v) for w, v in confidence.words], confidence.sentence)
        results[i] = replace(results[i], text=text, confidence=confidence)
        report += [(span, True) for span in applied] + [(span, False) for span in lost]
    return results, report


@dataclass
class Alternatives:
    """Beam search's different translations of one input, best first, each with its length-normalized
    log-probability; warnings about the input; (span, applied) for the best one's protected spans."""
    choices: list[tuple[str, float]]
    warnings: list[str] = field(default_factory=list)
    report: list[tuple[Span, bool]] = field(default_factory=list)


def n_best(generator, text: str, n: int, options: DecodeOptions | None = None,
           protector: Protector | None = None) -> Alternatives:
    """Beam search's `n` different translations of `text`, taken as one input (its white space as single
    spaces). For `studio translate --alternatives`, the Translate tab's Alternatives and
    `/translate_alternatives`. With a `protector`, the search runs on the placeholder source and every
    alternative gets the spans' English back; when the best one dropped a span or wrote one twice, the search
    runs once more with those spans' English written in, as `_unprotect` does, and the set whose best keeps more
    of them is used. A text without Korean (the model's source language: `LanguagePair.has_text`) is its only
    alternative, as written."""
    text = " ".join(text.split())
    if not text:
        return Alternatives([])
    pair = generator.preprocessor.pair
    if not _has_text(pair, text):  # kept as written, as `translate` keeps it
        return Alternatives([(text, 0.0)], [kept_warning([text], pair)])
    protector = protector.for_pair(pair) if protector else None
    shield = protector.protect(text) if protector else Protected(text)  # protect() knows the text's own names
    source, restored = _searched(generator, shield, n, options)
    report = []
    if restored and shield.spans:
        _, applied, dropped = restored[0][0]
        report = [(span, True) for span in applied] + [(span, False) for span in dropped]
    _, warnings = generator.preprocessor.encode(source)  # the kept pass's input ("truncated …")
    sentences = len(split_sentences(text))
    if sentences > 1:
        warnings.append(f"the alternatives translate the input as one sentence, and it has {sentences}: this model "
                        "translates one sentence at a time best (translate it without alternatives, or ask for one "
                        "sentence's alternatives)")
    choices = distinct_outputs([(finish_sentence(text, t, pair), s) for (t, _, _), s in restored], n)
    return Alternatives(choices, warnings, report)


def _searched(generator, shield: Protected, n: int, options: DecodeOptions | None) -> tuple[str, list]:
    """(the source searched, [((output, applied, dropped), score)]) for `n_best`: the placeholder
    source's search, or the second one with the dropped or repeated spans' English written in when it wins."""
    found = generator.alternatives(shield.text, n, options)
    restored = [(_restored(shield, t, []), s) for t, s in found]
    if not (restored and shield.spans):
        return shield.text, restored
    repeated = shield.repeated(found[0][0])
    written_in = restored[0][0][2] + repeated
    if written_in:
        again = generator.alternatives(shield.inline(written_in), n, options)
        if again and _second_pass_wins(shield, restored[0][0], _restored(shield, again[0][0], written_in),
                                       again[0][0], repeated):
            return shield.inline(written_in), [(_restored(shield, t, written_in), s) for t, s in again]
    return shield.text, restored

def _second_pass_wins(shield: Protected, first: tuple, second: tuple, second_output: str, repeated: list[Span]) -> bool:
    """Whether the pass decoded with spans' English written in (`second`, as `_restored` gives it, from the
    model's `second_output`) is kept over the first: it applied more of the spans, or as many where the first
    wrote a number twice (`repeated`) and it wrote none of them twice."""
    if len(second[1]) != len(first[1]):
        return len(second[1]) > len(first[1])
    return bool(repeated) and not shield.repeated(second_output) and all(
        second[0].casefold().count(span.english.casefold()) <= 1 for span in repeated)


def _restored(shield: Protected, output: str, written_in: list[Span]) -> tuple[str, list[Span], list[Span]]:
    """(output with the spans' English back, spans applied, spans dropped); the spans `written_in` the source as
    English, not as placeholders, count as applied where their English is in the output."""
    text, applied, _ = shield.restore(output)
    applied += [span for span in written_in if span.english.casefold() in text.casefold() and span not in applied]
    return text, applied, [span for span in shield.spans if span not in applied]


def plan_lines(preprocessor, lines: Sequence[str]) -> list[list[str]]:
    """Per line, the pieces the model decodes: its sentences, each split further if too long (none for a
    blank line, nor for one without Korean, the model's source language: `translate` keeps it as written). Their
    total is what a progress bar counts."""
    limit, count, pair = preprocessor.source_limit, preprocessor.count_tokens, preprocessor.pair
    return [[piece for sentence in split_sentences(line) for piece in fit_to_length(sentence, count, limit)]
            if _has_text(pair, line) else [] for line in lines]


def _has_text(pair: LanguagePair, line: str) -> bool:
    """Whether `line` has text to translate (`LanguagePair.has_text`) besides placeholders (a document format's
    markup tokens, "Xq1")."""
    return pair.has_text(ANY_PLACEHOLDER.sub(" ", line))


def kept_warning(kept: list[str], pair: LanguagePair = KOREAN_ENGLISH) -> str:
    """What is said about the lines without Korean (`pair.source_text`) that `translate` kept as written (`kept`:
    not blank)."""
    first, what = _opening(kept[0].strip()), pair.source_text
    return (f"kept as written, without {what} to translate: {first!r}" if len(kept) == 1 else
            f"{len(kept):,} lines without {what} kept as written (the first: {first!r})")


@dataclass
class Translation:
    """What translating some lines gave. `lines`: the English, one per input line (a line without Korean as
    written; lines a stop left undone as they were). `warnings`: every warning, the input's own (lines kept,
    a stop) and each sentence's; `line_warnings`: each line's sentences' warnings. `confidences`: with
    `scores`, each line's words and their scores. `report`: (span, applied) for every protected span.
    `latency`: the timings of an input of one sentence, decoded alone (with `timed`). `document`: the rendered
    file, for `translate_document`."""
    lines: list[str]
    warnings: list[str] = field(default_factory=list)
    line_warnings: list[list[str]] = field(default_factory=list)
    confidences: list[Confidence] | None = None
    report: list[tuple[Span, bool]] = field(default_factory=list)
    sentences: int = 0  # the input's sentences with Korean
    pieces: int = 0  # what was decoded: sentences, split further when too long (see `plan_lines`)
    planned: int = 0  # what was to be decoded (fewer decoded: stopped)
    seconds: float = 0.0
    latency: Latency | None = None
    document: bytes | None = None

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def translate(generator, lines: Sequence[str] | str, options: DecodeOptions | None = None, *,
              protector: Protector | None = None, scores: bool = False, batch_size: int = 32,
              on_progress: Callable[[int, int], None] | None = None, stop: Callable[[], bool] | None = None,
              say_kept: bool = True, timed: bool = False) -> Translation:
    """The one way text is translated (the Translate tab, `studio translate`, the API, MCP, evaluation, documents):
    each line split into sentences (and sentences too long for the model into chunks), decoded in batches, the
    English joined back per line; a line without Korean is kept as written, and a warning says so (unless not
    `say_kept`). With a `protector`, glossary terms and protected spans pass through placeholders and are put
    back (a sentence that lost one is decoded again with its English written in). The steps written for Korean to
    English (the lines kept, protection's kinds, `finish_sentence`) follow the model's language pair
    (`generator.preprocessor.pair`, `studio.tasks.LanguagePair`). `scores`: each line's
    confidence too (one more forced pass). `on_progress(done, total)` hears the number of pieces before the first
    batch and after each. When `stop()` turns true, decoding ends after the current batch. `timed`: an input of
    one sentence (one line with Korean, one sentence) is decoded alone and whole, in the backend's running batch
    when the server batches, with its latency."""
    started = time.perf_counter()
    lines = [lines] if isinstance(lines, str) else list(lines)
    plan = plan_lines(generator.preprocessor, lines)
    timed = timed and _one_sentence(lines, plan)
    flat = [piece for pieces in plan for piece in pieces]
    pair = generator.preprocessor.pair
    protector = protector.for_pair(pair).remembering("\n".join(lines)) if protector else None
    decoded = _decode_pieces(generator, flat, options, protector, scores, batch_size, on_progress, stop, timed)
    result = _per_line(lines, plan, decoded.results, scores)
    kept = [line for line, pieces in zip(lines, plan) if not pieces and line.strip()]
    result.warnings = [w for r in decoded.results for w in r.warnings] + decoded.warnings + (
        [kept_warning(kept, pair)] if kept and say_kept else [])
    result.report, result.latency = decoded.report, decoded.latency
    result.sentences = sum(len(split_sentences(line)) for line, pieces in zip(lines, plan) if pieces)
    result.pieces, result.planned = len(decoded.results), len(flat)
    result.seconds = time.perf_counter() - started
    log.debug("%d lines, %d of %d pieces decoded in batches of %d in %.0f ms; %d protected spans", len(lines),
              result.pieces, result.planned, batch_size, result.seconds * 1000, len(result.report))
    return result


def _one_sentence(lines: list[str], plan: list[list[str]]) -> bool:
    """Whether the input is one sentence with Korean that the model reads whole (blank lines aside): then it is
    decoded alone, with its latency (a longer one is split into pieces, as in a file)."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    return len(filled) == 1 and len(plan[filled[0]]) == 1 and len(split_sentences(lines[filled[0]])) == 1


@dataclass
class _Decoded:
    results: list  # the finished Generation of each piece decoded, in order
    warnings: list[str]  # a stop's
    report: list[tuple[Span, bool]]
    latency: Latency | None


def _decode_pieces(generator, flat: list[str], options, protector, scores: bool, batch_size: int, on_progress,
                   stop, timed: bool) -> _Decoded:
    """The pieces decoded in batches; a piece written again (a repeated line or boilerplate sentence, a long run
    of the same words) is decoded once, and each repeat gets the same English. `results` are those of the first
    pieces of `flat` that were decoded (all of them unless stopped)."""
    unique = list(dict.fromkeys(flat))
    decoded, pair = _Decoded([], [], [], None), generator.preprocessor.pair
    if on_progress:
        on_progress(0, len(unique))
    for start in range(0, len(unique), batch_size):
        if stop is not None and stop():
            decoded.warnings.append(f"Stopped after {start:,} of {len(unique):,} sentences; the rest is left "
                                    "untranslated.")
            break
        batch = unique[start:start + batch_size]
        shielded = [protector.protect(source) for source in batch] if protector else None
        sources = [s.text for s in shielded] if shielded else batch
        if timed and len(flat) == 1:
            generation, decoded.latency = generator.timed(sources[0], options, scores=scores)
            results = [generation]
        else:
            results = generator.generate(sources, options=options, scores=scores)
        if shielded:
            results, report = _unprotect(generator, shielded, results, options)
            decoded.report += report
        decoded.results += [finish_generation(source, result, pair) for source, result in zip(batch, results)]
        if on_progress:
            on_progress(start + len(batch), len(unique))
    if decoded.latency is not None and decoded.results:  # the words as the text has them
        decoded.latency.confidence = decoded.results[0].confidence
    decoded.results = _in_text_order(flat, unique, decoded.results)
    return decoded


def _in_text_order(flat: list[str], unique: list[str], results: list) -> list:
    """The results of `unique` (the first of them, when stopped) for the pieces of `flat` in order, as far as
    every piece has one."""
    done = {piece: result for piece, result in zip(unique, results)}
    return list(itertools.takewhile(lambda r: r is not None, (done.get(piece) for piece in flat)))


def _per_line(lines: list[str], plan: list[list[str]], results: list, scores: bool) -> Translation:
    """The pieces' English joined back per line (a line with a piece left undone stays as it was)."""
    outputs, line_warnings, confidences, position = [], [], [] if scores else None, 0
    for line, pieces in zip(lines, plan):
        chunk = results[position: position + len(pieces)]
        done = len(chunk) == len(pieces)  # else stopped before this line was done
        if not pieces:
            outputs.append(line if line.strip() else "")
        else:
            outputs.append(" ".join(r.text for r in chunk if r.text) if done else line)
        line_warnings.append([w for r in chunk for w in r.warnings])
        if scores:
            words = [w for r in chunk for w in r.confidence.words] if done else []
            confidences.append(Confidence(words, sum(s for _, s in words) / len(words) if words else 0.0))
        position += len(pieces)
    return Translation(outputs, line_warnings=line_warnings, confidences=confidences)


def translate_document(generator, document, options: DecodeOptions | None = None, batch_size: int = 32,
                       on_progress: Callable[[int, int], None] | None = None, protector: Protector | None = None,
                       stop: Callable[[], bool] | None = None) -> Translation:
    """A read document (`studio.formats.read_document`) translated: `document` holds the same format's bytes."""
    result = translate(generator, document.segments, options, batch_size=batch_size, on_progress=on_progress,
                       protector=protector, stop=stop, say_kept=False)
    stretches = document.stretches or [False] * len(document.segments)
    pair = generator.preprocessor.pair
    # its texts without Korean, as the reader sees them (a formatted phrase is part of one; markup tokens are not)
    kept = [" ".join(ANY_PLACEHOLDER.sub(" ", segment).split()) for segment, stretch in zip(document.segments, stretches)
            if not stretch and segment.strip() and not _has_text(pair, segment)]
    result.document = document.render(result.lines)
    lost = [unformatted_warning(document.unformatted)] if document.unformatted else []
    result.warnings = list(document.warnings) + ([kept_warning(kept, pair)] if kept else []) + lost + result.warnings
    return result

def _opening(text: str, most: int = 40) -> str:
    """A text as a note names it: its first `most` characters."""
    return text[:most] + "…" if len(text) > most else text


def unformatted_warning(phrases: list[str]) -> str:
    """What is said about formatted phrases (bold, italic...) whose formatting the English could not keep (their
    English not found in their sentence's, or their markup dropped by the model)."""
    first = _opening(phrases[0])
    return (f"the formatting of {first!r} was not kept in the English" if len(phrases) == 1 else
            f"the formatting of {len(phrases):,} phrases was not kept in the English (the first: {first!r})")
