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
from studio.text.protect import ANY_PLACEHOLDER, Protected, Protector, Span
from studio.text.script import has_hangul

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


def finish_sentence(source: str, output: str) -> str:
    """The model's English with the two things it most often leaves undone: a first letter in lower case
    ("magnitude 6.8 earthquake hits") is capitalized unless the source has that word as written or it has a
    capital inside ("iPhone"), and a sentence that stops where the source ends with . ! or ? (it tends to,
    right after a protected span: "Samsung invested $3 billion") gets the source's mark; a comma or semicolon
    that ends it ("Hello,") is dropped unless the source ends with one; a lower-case word written twice in a row
    ("the draft draft") is written once."""
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


def finish_generation(source: str, generation):
    """`finish_sentence` on a generation: its text, and its confidence's words alike (the first letter, the final
    mark), so that the words marked as unsure read as the text does."""
    text = finish_sentence(source, generation.text)
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


def unprotect(generator, shielded: Sequence[Protected], results: list, options: DecodeOptions | None = None,
              report: list | None = None) -> list:
    """The generations of placeholder sources (`Protector.protect`) with the protected spans put back. A
    sentence whose placeholders the model dropped, or wrote twice, is decoded once more with those spans'
    English written into the source; `report` receives (span, applied) for every protected span."""
    restored = [s.restore(r.text) for s, r in zip(shielded, results)]
    repeated = [s.repeated(r.text) for s, r in zip(shielded, results)]
    again = [i for i, (_, _, lost) in enumerate(restored) if lost or repeated[i]]
    retried = generator.generate([shielded[i].inline(restored[i][2] + repeated[i]) for i in again], options=options,
                                 scores=any(r.confidence is not None for r in results)) if again else []
    results = list(results)
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
        if report is not None:
            report += [(span, True) for span in applied] + [(span, False) for span in lost]
    return results


def translate_alternatives(generator, text: str, n: int, options: DecodeOptions | None = None,
                           protector: Protector | None = None, report: list | None = None
                           ) -> tuple[list[tuple[str, float]], list[str]]:
    """Beam search's `n` different translations of `text`, taken as one input (its white space as single
    spaces), best first, each with its length-normalized log-probability; and warnings about the input (mostly
    not Korean, truncated, several sentences). For `studio translate --alternatives`, the Translate tab's
    Alternatives and `/translate_alternatives`. With a `protector`, the search runs on the placeholder source
    and every alternative gets the spans' English back; when the best one dropped a span or wrote one twice,
    the search runs once more with those spans' English written in, as `unprotect` does, and the set whose best
    keeps more of them is used. `report` receives (span, applied) for the best. A text without Korean is its only
    alternative, as written."""
    from studio.inference import distinct_outputs

    text = " ".join(text.split())
    if not text:
        return [], []
    if not has_hangul(text):  # kept as written, as translate_lines keeps it
        return [(text, 0.0)], [kept_warning([text])]
    shield = protector.protect(text) if protector else Protected(text)  # protect() knows the text's own names
    source = shield.text
    found = generator.alternatives(source, n, options)
    restored = [(_restored(shield, t, []), s) for t, s in found]
    if restored and shield.spans:
        repeated = shield.repeated(found[0][0])
        written_in = restored[0][0][2] + repeated
        if written_in:
            again = generator.alternatives(shield.inline(written_in), n, options)
            if again and _second_pass_wins(shield, restored[0][0], _restored(shield, again[0][0], written_in),
                                           again[0][0], repeated):
                source = shield.inline(written_in)
                restored = [(_restored(shield, t, written_in), s) for t, s in again]
        if report is not None:
            _, applied, dropped = restored[0][0]
            report += [(span, True) for span in applied] + [(span, False) for span in dropped]
    _, warnings = generator.preprocessor.encode(source)  # the kept pass's input ("truncated …")
    sentences = len(split_sentences(text))
    if sentences > 1:
        warnings.append(f"the alternatives translate the input as one sentence, and it has {sentences}: this model "
                        "translates one sentence at a time best (translate it without alternatives, or ask for one "
                        "sentence's alternatives)")
    return distinct_outputs([(finish_sentence(text, t), s) for (t, _, _), s in restored], n), warnings


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
    blank line, nor for one without Korean: `translate_lines` keeps it as written). Their total is what a
    progress bar counts."""
    limit, count = preprocessor.source_limit, preprocessor.count_tokens
    return [[] if not has_hangul(line) else [p for s in split_sentences(line) for p in fit_to_length(s, count, limit)]
            for line in lines]


def kept_warning(kept: list[str]) -> str:
    """What is said about the lines without Korean that `translate_lines` kept as written (`kept`: not blank)."""
    first = _opening(kept[0].strip())
    return (f"kept as written, without Korean to translate: {first!r}" if len(kept) == 1 else
            f"{len(kept):,} lines without Korean kept as written (the first: {first!r})")


def translate_lines(generator, lines: Sequence[str], options: DecodeOptions | None = None, batch_size: int = 32,
                    on_progress: Callable[[int, int], None] | None = None, scores: list | None = None,
                    protector: Protector | None = None, report: list | None = None,
                    stop: Callable[[], bool] | None = None, say_kept: bool = True,
                    line_warnings: list | None = None) -> tuple[list[str], list[str]]:
    """Translate each line (one without Korean is kept as written, and a warning says so); returns (outputs
    aligned with `lines`, warnings). Given a list as `line_warnings`, it receives each line's own warnings (its
    sentences' decoding warnings), for a caller that names lines. Given a list as `scores`, it
    receives each line's `Confidence` (its sentences' words together). `on_progress(done, total)` hears the
    number of sentences (pieces, see `plan_lines`) before the first batch and after each. With a `protector`,
    glossary terms and protected spans pass through placeholders (see `unprotect`; `report` receives what was
    applied). When `stop()` turns true, decoding ends after the current batch: the lines done are translated,
    the others are left as they were (a warning says how far it got)."""
    plan = plan_lines(generator.preprocessor, lines)
    flat = [piece for pieces in plan for piece in pieces]
    protector = protector.remembering("\n".join(lines)) if protector else None
    translated, warnings, confidences, piece_warnings = [], [], [], []
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
        for source, result in zip(batch, results):
            result = finish_generation(source, result)
            translated.append(result.text)
            warnings += result.warnings
            piece_warnings.append(result.warnings)
            confidences.append(result.confidence)
        if on_progress:
            on_progress(start + len(batch), len(flat))
    outputs, position = [], 0
    kept = [line for line, pieces in zip(lines, plan) if not pieces and line.strip()]
    if kept and say_kept:
        warnings.append(kept_warning(kept))
    for line, pieces in zip(lines, plan):
        done = position + len(pieces) <= len(translated)  # else stopped before this line was done
        if not pieces:
            outputs.append(line if line.strip() else "")
        else:
            outputs.append(" ".join(t for t in translated[position: position + len(pieces)] if t) if done else line)
        if line_warnings is not None:
            line_warnings.append([w for ws in piece_warnings[position: position + len(pieces)] for w in ws])
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
                                        protector=protector, report=report, stop=stop, say_kept=False)
    stretches = document.stretches or [False] * len(document.segments)
    # its texts without Korean, as the reader sees them (a formatted phrase is part of one; markup tokens are not)
    kept = [" ".join(ANY_PLACEHOLDER.sub(" ", segment).split()) for segment, stretch in zip(document.segments, stretches)
            if not stretch and segment.strip() and not has_hangul(segment)]
    rendered = document.render(outputs)
    lost = [unformatted_warning(document.unformatted)] if document.unformatted else []
    return rendered, list(document.warnings) + ([kept_warning(kept)] if kept else []) + lost + warnings


def _opening(text: str, most: int = 40) -> str:
    """A text as a note names it: its first `most` characters."""
    return text[:most] + "…" if len(text) > most else text


def unformatted_warning(phrases: list[str]) -> str:
    """What is said about formatted phrases (bold, italic...) whose formatting the English could not keep (their
    English not found in their sentence's, or their markup dropped by the model)."""
    first = _opening(phrases[0])
    return (f"the formatting of {first!r} was not kept in the English" if len(phrases) == 1 else
            f"the formatting of {len(phrases):,} phrases was not kept in the English (the first: {first!r})")
