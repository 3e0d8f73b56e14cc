"""SubRip subtitles (.srt), parsed with the `srt` library's own cue pattern so that its leniency (missing
final blank line, `.` in timecodes, blank lines inside a cue) is ours too.

A cue's text is one segment: its lines joined with a space, formatting tags (`<i>`, `{\\an8}`...) taken
out; in a dialogue cue (a line after the first starts with `-` or `–`) each speaker's line is a segment
of its own, written back on its own line after its dash. Cue numbers, timecodes, blank lines and line
breaks are given back exactly; a translated cue (or speaker's line) is re-wrapped to lines of at most 42
characters, two lines where it fits, its opening and closing tags put back around it. What is lost on a
translated cue: its own line breaks, and tags inside the text (only the ones that open and close the cue,
or a speaker's line, are kept). Cues without letters (e.g. "♪") are not segments."""

from __future__ import annotations

import re
import textwrap

import srt

from studio.errors import DataError
from studio.formats.base import Document, FormatLimits, Span, check_segments, has_words, line_of
from studio.formats.base import normalize_space, split_lines, spliced
from studio.text.encoding import decode_text

WIDTH = 42
_TAG = r"(?:\{\\[^{}\n]*\}|</?(?:[ibus]|font)\b[^<>\n]*>)"
_LEADING = re.compile(rf"^(?:{_TAG}|\s)*", re.IGNORECASE)
_TRAILING = re.compile(rf"(?:{_TAG}|\s)*$", re.IGNORECASE)
_ANY_TAG = re.compile(_TAG, re.IGNORECASE)
# a dialogue line: "- 어디 가?" (not a negative number: "-5도까지")
_DASH = re.compile(rf"((?:{_TAG}|\s)*)([-–—])(?![\d.,\-–—])([ \t]*)", re.IGNORECASE)


def wrap_cue(text: str, width: int = WIDTH) -> list[str]:
    """One line if it fits, else the most balanced two lines that fit, else as many lines as needed."""
    words = text.split()
    whole = " ".join(words)
    if len(whole) <= width:
        return [whole] if whole else []
    best = None
    for cut in range(1, len(words)):
        top, bottom = " ".join(words[:cut]), " ".join(words[cut:])
        if len(top) <= width and len(bottom) <= width:
            score = abs(len(top) - len(bottom))
            if best is None or score < best[0]:
                best = (score, [top, bottom])
    if best:
        return best[1]
    return textwrap.wrap(whole, width, break_long_words=False, break_on_hyphens=False)


def _speakers(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A cue's text as (start, end) spans to translate: the whole cue, or in a dialogue cue (a line after
    the first starts with a dash) one span per speaker, from a dashed line to the next."""
    lines = [(start + a, start + b) for a, b in split_lines(text[start:end])]
    cuts = [i for i, (a, b) in enumerate(lines) if i and _DASH.match(text, a, b)]
    if not cuts:
        return [(start, end)]
    bounds = [0] + cuts + [len(lines)]
    return [(lines[i][0], lines[j - 1][1]) for i, j in zip(bounds, bounds[1:])]


def _snippet(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return repr(first[:60] + ("…" if len(first) > 60 else ""))


def read_subtitles(name: str, data: bytes, limits: FormatLimits) -> Document:
    text, bom, note = decode_text(name, data, "a .srt file")
    newline = "\r\n" if "\r\n" in text else "\n"
    spans: list[Span] = []
    expected, count = 0, 0
    for match in srt.SRT_REGEX.finditer(text):
        _check_contiguous(name, text, expected, match.start(), count)
        count += 1
        raw_index, raw_start, raw_end = match.group(1), match.group(2), match.group(3)
        number = raw_index or str(count)
        where = f"cue {number} (line {line_of(text, match.start(2))})"
        try:
            start, end = srt.srt_timestamp_to_timedelta(raw_start), srt.srt_timestamp_to_timedelta(raw_end)
        except ValueError:
            raise DataError(name, f"{where}: unreadable timecode {raw_start} --> {raw_end}; "
                                  f"expected HH:MM:SS,mmm --> HH:MM:SS,mmm") from None
        if end < start:
            raise DataError(name, f"{where}: ends ({raw_end}) before it starts ({raw_start}); "
                                  f"is the file cut short?")
        expected = match.end()
        for start, end in _speakers(text, *match.span(5)):
            content = text[start:end]
            dash = _DASH.match(content) if (start, end) != match.span(5) else None
            skip = dash.end() if dash else 0
            lead = skip + _LEADING.match(content[skip:]).end()
            trail = _TRAILING.search(content, lead).start()
            opening, closing = content[:lead].strip(), content[trail:].strip()
            if dash:  # "- " stays before the line's text, with its space
                opening = (dash.group(1).strip() + dash.group(2) + (" " if dash.group(3) else "")
                           + content[dash.end():lead].strip())
            segment = normalize_space(_ANY_TAG.sub(" ", content[lead:trail]))
            if has_words(segment):
                # the span is the whole cue (or speaker's) text, so it is written with its tags around it
                spans.append(Span(start, end, segment,
                                  lambda t, _, o=opening, c=closing: o + newline.join(wrap_cue(t)) + c))
    _check_contiguous(name, text, expected, len(text), count)
    if count == 0 and text.strip():
        raise DataError(name, "cue 1 (line 1): no subtitle found; expected a number, then a "
                              "'HH:MM:SS,mmm --> HH:MM:SS,mmm' line, then the text")
    check_segments(name, [s.segment for s in spans], limits, "cues", empty=not text.strip(), text=text)
    return spliced(name, ".srt", text, bom, spans, [note] if note else [])


def _check_contiguous(name: str, text: str, expected: int, actual: int, count: int) -> None:
    """As `srt.parse` does: text between two cues (or after the last) that is not a cue is an error."""
    gap = text[expected:actual]
    if not gap.strip() or (expected == 0 and gap.strip() == "\ufeff"):
        return
    offset = expected + len(gap) - len(gap.lstrip())
    raise DataError(name, f"cue {count + 1} (line {line_of(text, offset)}): not a subtitle cue: {_snippet(gap)}; "
                          f"expected a number, then a 'HH:MM:SS,mmm --> HH:MM:SS,mmm' line, then the text")
