"""Translating more than one sentence: paragraphs are split into sentences (and sentences too long for
the model into chunks that fit), all pieces are decoded in batches, then joined back per input line.
Empty lines stay empty, so a file keeps its line count and order. `translate_document` does the same for
the segments of any document format (`studio.formats`) and renders the same format back."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from studio.generate import DecodeOptions
from studio.generate.confidence import Confidence

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


def translate_lines(generator, lines: Sequence[str], options: DecodeOptions | None = None, batch_size: int = 32,
                    on_progress: Callable[[int], None] | None = None, scores: list | None = None
                    ) -> tuple[list[str], list[str]]:
    """Translate each line; returns (outputs aligned with `lines`, warnings). Given a list as `scores`, it
    receives each line's `Confidence` (its sentences' words together)."""
    preprocessor = generator.preprocessor
    limit, count = preprocessor.source_limit, preprocessor.count_tokens
    plan: list[list[str]] = []
    for line in lines:
        pieces = [] if not line.strip() else [p for s in split_sentences(line) for p in fit_to_length(s, count, limit)]
        plan.append(pieces)
    flat = [piece for pieces in plan for piece in pieces]
    translated, warnings, confidences = [], [], []
    for start in range(0, len(flat), batch_size):
        for result in generator.generate(flat[start:start + batch_size], options=options, scores=scores is not None):
            translated.append(result.text)
            warnings += result.warnings
            confidences.append(result.confidence)
        if on_progress:
            on_progress(min(batch_size, len(flat) - start))
    outputs, position = [], 0
    for pieces in plan:
        outputs.append(" ".join(t for t in translated[position: position + len(pieces)] if t))
        if scores is not None:
            words = [w for c in confidences[position: position + len(pieces)] for w in c.words]
            scores.append(Confidence(words, sum(s for _, s in words) / len(words) if words else 0.0))
        position += len(pieces)
    return outputs, warnings


def translate_document(generator, document, options: DecodeOptions | None = None, batch_size: int = 32,
                       on_progress: Callable[[int], None] | None = None) -> tuple[bytes, list[str]]:
    """A read document (`studio.formats.read_document`) translated, in the same format; and warnings."""
    outputs, warnings = translate_lines(generator, document.segments, options, batch_size, on_progress)
    return document.render(outputs), list(document.warnings) + warnings
