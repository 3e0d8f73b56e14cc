"""Translating more than one sentence: paragraphs are split into sentences (and sentences too long for
the model into chunks that fit), all pieces are decoded in batches, then joined back per input line.
Empty lines stay empty, so a file keeps its line count and order. `translate_document` does the same for
the segments of any document format (`studio.formats`) and renders the same format back."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from dataclasses import replace

from studio.generate import DecodeOptions
from studio.generate.confidence import Confidence
from studio.text.protect import Protected, Protector

_SENTENCE_END = re.compile(r"(?<=[.!?。？！])\s+")
_CLAUSE_END = re.compile(r"(?<=[,;:，])\s+")


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


def unprotect(generator, shielded: Sequence[Protected], results: list, options: DecodeOptions | None = None,
              report: list | None = None) -> list:
    """The generations of placeholder sources (`Protector.protect`) with the protected spans put back. A
    sentence whose placeholders the model dropped is decoded once more with those spans' English written
    into the source; `report` receives (span, applied) for every protected span."""
    restored = [s.restore(r.text) for s, r in zip(shielded, results)]
    again = [i for i, (_, _, lost) in enumerate(restored) if lost]
    retried = generator.generate([shielded[i].inline(restored[i][2]) for i in again], options=options,
                                 scores=any(r.confidence is not None for r in results)) if again else []
    results = list(results)
    for i, result in zip(again, retried):
        text, applied, _ = shielded[i].restore(result.text)
        written_in = restored[i][2]  # these spans' English was in the retry's source, not a placeholder
        applied += [span for span in written_in if span.english.casefold() in text.casefold()]
        if len(applied) > len(restored[i][1]):  # keep whichever pass applied more of the spans
            restored[i] = (text, applied, [span for span in shielded[i].spans if span not in applied])
            results[i] = result
    for i, (shield, (text, applied, lost)) in enumerate(zip(shielded, restored)):
        confidence = results[i].confidence
        if confidence is not None and shield.spans:
            confidence = Confidence([(shield.restore(w)[0], v) for w, v in confidence.words], confidence.sentence)
        results[i] = replace(results[i], text=text, confidence=confidence)
        if report is not None:
            report += [(span, True) for span in applied] + [(span, False) for span in lost]
    return results


def plan_lines(preprocessor, lines: Sequence[str]) -> list[list[str]]:
    """Per line, the pieces the model decodes: its sentences, each split further if too long (none for a
    blank line). Their total is what a progress bar counts."""
    limit, count = preprocessor.source_limit, preprocessor.count_tokens
    return [[] if not line.strip() else [p for s in split_sentences(line) for p in fit_to_length(s, count, limit)]
            for line in lines]


def translate_lines(generator, lines: Sequence[str], options: DecodeOptions | None = None, batch_size: int = 32,
                    on_progress: Callable[[int, int], None] | None = None, scores: list | None = None,
                    protector: Protector | None = None, report: list | None = None,
                    stop: Callable[[], bool] | None = None) -> tuple[list[str], list[str]]:
    """Translate each line; returns (outputs aligned with `lines`, warnings). Given a list as `scores`, it
    receives each line's `Confidence` (its sentences' words together). `on_progress(done, total)` hears the
    number of sentences (pieces, see `plan_lines`) before the first batch and after each. With a `protector`,
    glossary terms and protected spans pass through placeholders (see `unprotect`; `report` receives what was
    applied). When `stop()` turns true, decoding ends after the current batch: the lines done are translated,
    the others are left as they were (a warning says how far it got)."""
    plan = plan_lines(generator.preprocessor, lines)
    flat = [piece for pieces in plan for piece in pieces]
    translated, warnings, confidences = [], [], []
    if on_progress:
        on_progress(0, len(flat))
    for start in range(0, len(flat), batch_size):
        if stop is not None and stop():
            warnings.append(f"Stopped after {start:,} of {len(flat):,} sentences; the rest is left untranslated.")
            break
        batch = flat[start:start + batch_size]
        shielded = [protector.protect(source) for source in batch] if protector else None
        results = generator.generate([s.text for s in shielded] if shielded else batch, options=options,
                                     scores=scores is not None)
        if shielded:
            results = unprotect(generator, shielded, results, options, report)
        for result in results:
            translated.append(result.text)
            warnings += result.warnings
            confidences.append(result.confidence)
        if on_progress:
            on_progress(start + len(batch), len(flat))
    outputs, position = [], 0
    for line, pieces in zip(lines, plan):
        done = position + len(pieces) <= len(translated)  # else stopped before this line was done
        outputs.append(" ".join(t for t in translated[position: position + len(pieces)] if t) if done else line)
        if scores is not None:
            words = [w for c in confidences[position: position + len(pieces)] for w in c.words] if done else []
            scores.append(Confidence(words, sum(s for _, s in words) / len(words) if words else 0.0))
        position += len(pieces)
    return outputs, warnings


def translate_document(generator, document, options: DecodeOptions | None = None, batch_size: int = 32,
                       on_progress: Callable[[int, int], None] | None = None, protector: Protector | None = None,
                       report: list | None = None, stop: Callable[[], bool] | None = None) -> tuple[bytes, list[str]]:
    """A read document (`studio.formats.read_document`) translated, in the same format; and warnings."""
    outputs, warnings = translate_lines(generator, document.segments, options, batch_size, on_progress,
                                        protector=protector, report=report, stop=stop)
    return document.render(outputs), list(document.warnings) + warnings
