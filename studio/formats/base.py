"""What every format shares: the `Document` (segments out, translations in, bytes out), the limits, and the
splicing renderer of the text formats: a text document is its source plus the spans to replace, so everything
outside a translated span is given back byte for byte."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from studio.errors import DataError
from studio.text.encoding import BOM

_ASCII_SPACE = re.compile(r"[ \t\n\r\f]+")
LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class FormatLimits:
    """Checked while reading, before any translation work: a file over a limit is refused with a message."""
    max_bytes: int = 10_000_000  # the file as uploaded
    max_segments: int = 5_000  # texts to translate (lines, cues, paragraphs...)
    max_unpacked_bytes: int = 50_000_000  # .docx: sum of the members' declared uncompressed sizes
    max_members: int = 1_000  # .docx: zip members
    max_ratio: int = 100  # .docx: uncompressed/compressed size of a member over 1 MB (zip bombs)


@dataclass
class Document:
    """A read document: `segments` are the texts to translate, in order; `render(translations)` gives the
    file back in the same format with each segment replaced by its translation (a translation equal to
    its segment leaves that place's original bytes as they were)."""
    name: str
    kind: str  # the suffix it was read as, e.g. ".srt"
    segments: list[str]
    _render: Callable[[list[str]], bytes] = field(repr=False)
    warnings: list[str] = field(default_factory=list)  # parts kept untranslated, and why
    # per segment: a formatted stretch of the text before it, translated alone only to place its formatting
    # (`studio.formats.phrases`); each follows its own text (a translation stopped between the two loses the
    # stretch's formatting, and its note says the rest was left untranslated)
    stretches: list[bool] = field(default_factory=list)
    # after `render`: the formatted stretches whose English was not found in their text's, written unformatted
    unformatted: list[str] = field(default_factory=list)

    def render(self, translations: Sequence[str]) -> bytes:
        translations = list(translations)
        if len(translations) != len(self.segments):
            raise ValueError(f"{self.name}: {len(self.segments)} segments but {len(translations)} translations")
        if not all(isinstance(t, str) for t in translations):
            raise TypeError("translations must be strings")
        try:
            return self._render(translations)
        except DataError:
            raise
        except Exception as error:  # a library's exception must not reach the user as a traceback
            raise DataError(self.name, f"could not be written back ({type(error).__name__}: {error})") from None


def normalize_space(text: str) -> str:
    """Runs of ASCII white space (line breaks included) as one space; no-break spaces are kept."""
    return _ASCII_SPACE.sub(" ", text).strip(" ")


def has_words(text: str) -> bool:
    """Worth translating: at least one letter (any script). Numbers, punctuation and symbols are kept."""
    return any(c.isalpha() for c in text)


def one_line(text: str) -> str:
    """A translation as one line (a model may return a line break; the structure has no room for it)."""
    return normalize_space(text)


def check_segments(name: str, segments: list[str], limits: FormatLimits, unit: str, empty: bool,
                   text: str = "") -> None:
    """Refuses a document with nothing to translate (`empty`: its `text` is blank) or too many segments."""
    if not any(s.strip() for s in segments):
        controls = empty and any(unicodedata.category(c) == "Cc" and c not in "\t\r\n" for c in text)  # 0x1C...
        raise DataError(name, "has no text to translate, only control characters" if controls
                        else "is empty: there is no text to translate" if empty else "has no text to translate")
    if len(segments) > limits.max_segments:
        raise DataError(name, f"has {len(segments):,} {unit} to translate; the limit is "
                              f"{limits.max_segments:,}. Please split it.")


def line_of(text: str, position: int) -> int:
    """1-based line number of a character offset (any line break counts, as for `split_lines`)."""
    return len(LINE_BREAK.findall(text, 0, position)) + 1


def split_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line's content, line breaks excluded; only real line breaks (CRLF, CR, LF)
    count, as in `studio.data.readers`. A final line break does not start another line."""
    spans, start = [], 0
    for match in LINE_BREAK.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


@dataclass
class Span:
    start: int
    end: int
    segment: str | None  # None: no text of its own, `output` writes the place anew each time (an HTML tag's labels)
    # (translation, its stretches' English) -> the text to write in place of text[start:end]
    output: Callable[[str, list[str]], str]
    stretches: list[str] = field(default_factory=list)  # formatted parts, also translated alone (`phrases`)
    unplaced: Callable[[], list[str]] = lambda: []  # after `output`: the stretches it could not place


def spliced(name: str, kind: str, text: str, bom: bool, spans: list[Span],
            warnings: list[str] | None = None, labels: Sequence[str] = (),
            on_labels: Callable[[list[str]], None] = lambda english: None,
            finish: Callable[[str], str] = lambda body: body) -> Document:
    """A document rendered by replacing `spans` of `text` (sorted, not overlapping), then passed through
    `finish` (a format's last touch on the written text). Its segments are each span's segment followed by its
    stretches, then the `labels`: texts no span has (an HTML image's alt text), whose English `on_labels` hears
    before the spans are written (their outputs put it in place)."""
    spans = sorted(spans, key=lambda s: s.start)
    for before, after in zip(spans, spans[1:]):
        assert before.end <= after.start, "overlapping spans"

    unformatted: list[str] = []

    def render(translations: list[str]) -> bytes:
        out, position = [], 0
        on_labels(translations[len(translations) - len(labels):])
        english = iter(translations)
        unformatted.clear()
        for span in spans:
            out.append(text[position:span.start])
            position = span.end
            if span.segment is None:
                out.append(span.output("", []))
                continue
            translation, own = next(english), [next(english) for _ in span.stretches]
            if translation == span.segment:
                out.append(text[span.start:span.end])
            else:
                out.append(span.output(translation, own))
                unformatted.extend(span.unplaced())
        out.append(text[position:])
        body = finish("".join(out)).encode("utf-8")
        return BOM + body if bom else body

    texts = [s for s in spans if s.segment is not None]
    segments = [part for s in texts for part in (s.segment, *s.stretches)] + list(labels)
    return Document(name, kind, segments, render, warnings or [],
                    [stretch for s in texts for stretch in (False, *[True] * len(s.stretches))] + [False] * len(labels),
                    unformatted)
