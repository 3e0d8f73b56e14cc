"""Text pipelines: how text becomes model input, and model output becomes text to show.

- `tutorial`: the tutorials' normalization (`normalize`: space out `?.!,`, keep Hangul/Latin/digits and a
  little punctuation, optionally lower-case the target) with `tidy` spacing on output. Kept for the tutorial
  presets and for bundles trained before the translator pipeline existed.
- `translator`: text as people write it. Only Unicode and whitespace are normalized (`clean_text`: NFC,
  full-width ASCII, East Asian brackets as quotes, a middle dot between words as a comma); case, quotes,
  brackets, digits, symbols and Latin names pass through, SentencePiece with byte fallback reads anything,
  and its detokenized output is shown as is (no ` .` spacing to undo) but for the Penn Treebank habits some
  training data taught it (`untokenize_ptb`).

A bundle's `config.task.text_pipeline` names its pipeline; `pipeline_for(config)` is the one place that
turns that name into behaviour.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from studio.text.normalize import normalize, tidy

TUTORIAL, TRANSLATOR = "tutorial", "translator"
PIPELINES = (TUTORIAL, TRANSLATOR)

_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}  # ！..～ -> !..~
# East Asian title and quotation brackets as quotation marks, and a middle dot between two words as a comma ("한국·미국
# ·일본", "윤석열·이재명": "and") or between digits as a point ("6·25"): the training data has almost none of them, so the
# tokenizer spells them byte by byte and the model wrote other characters ("»") or lost the sentence around them
_QUOTES = str.maketrans("「『《〈」』》〉", "““““””””")
_MIDDLE_DOT = re.compile(r"(?<=\w)[·・∙‧](?=\w)")
_SPACES = re.compile(r"\s+")
_DIGITS = "0123456789"
# Part of the English training data is tokenized the Penn Treebank way (``quoted'', "the film 's", "1995 -- 2005")
# and the model writes what it learned: undone on output, and on training targets so later models learn English.
_PTB_QUOTE = re.compile(r"``\s*|\s*''")
_SPACED_POSSESSIVE = re.compile(r"(?<=[A-Za-z0-9]) 's(?=\s|$)")
_CLOSING_QUOTE = re.compile(r"[A-Za-z0-9]'(?![A-Za-z])")  # "film 's Nike' premiere": 's opened a quote
_RANGE_DASH = re.compile(r"(?<=\d) ?-- ?(?=\d)")


# the Unicode version the shipped models' golden data and the Android and web ports follow: Python 3.11's. What
# `_keep` removes as unassigned (Cn) follows the running Python's tables (3.10: 13.0, 3.12: 15.0)
UNICODE_VERSION = "14.0.0"


def unicode_difference() -> str | None:
    """What to say when this Python's Unicode is not the pinned one, else None."""
    if unicodedata.unidata_version == UNICODE_VERSION:
        return None
    return (f"this Python follows Unicode {unicodedata.unidata_version}, not {UNICODE_VERSION} (Python 3.11's): "
            "text with characters assigned in only one of the two versions may give other outputs than the app's "
            "golden data")


def _keep(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Zs" or char in "\t\n\r\v\f\u2028\u2029\x85":
        return " "
    if category in ("Cc", "Cf", "Cs", "Co", "Cn"):  # controls, zero-width and bidi marks, lone surrogates
        return ""
    return char


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # Unicode's Cc, but tab and line break


def clean_text(text: str) -> str:
    """NFC, full-width ASCII to ASCII, East Asian brackets to quotes, a middle dot between words to a comma, every
    kind of space to one space, invisible characters removed.

    Not NFKC: it would turn Hangul compatibility jamo (ㅋㅋ, ㅠㅠ) into conjoining jamo and ligatures or
    superscripts into other text; the full-width mapping is the part of it that helps here."""
    text = unicodedata.normalize("NFC", text).translate(_FULLWIDTH).translate(_QUOTES)
    text = _MIDDLE_DOT.sub(lambda m: "." if text[m.start() - 1] in _DIGITS and text[m.end()] in _DIGITS else ", ", text)
    text = "".join(_keep(char) for char in text)
    return _SPACES.sub(" ", text).strip()


def untokenize_ptb(text: str) -> str:
    """``quoted'' -> “quoted” (a '' with no `` open is a closing single quote), "film 's" -> "film's",
    "1995 --2005" -> "1995-2005"; and one style of double quotes: where straight and curly ones are mixed
    ("“Do not think…\"", as the model writes a quote it opened one way and closed the other), straight."""
    opened = False

    def quote(match: re.Match) -> str:
        nonlocal opened
        if match.group(0).startswith("`"):
            opened = True
            return "“"
        closing, opened = ("”" if opened else "'"), False
        return closing

    text = _PTB_QUOTE.sub(quote, text)
    text = _SPACED_POSSESSIVE.sub(lambda m: m.group(0) if _CLOSING_QUOTE.search(text, m.end()) else "'s", text)
    if '"' in text:
        text = text.replace("“", '"').replace("”", '"')
    return _RANGE_DASH.sub("-", text)


@dataclass(frozen=True)
class TextPipeline:
    name: str
    lowercase_target: bool = False

    def source(self, text: str) -> str:
        """What the model reads."""
        return normalize(text) if self.name == TUTORIAL else clean_text(text)

    def target(self, text: str) -> str:
        """A training target, as the model should learn to write it."""
        if self.name == TUTORIAL:
            return normalize(text, lowercase=self.lowercase_target)
        return untokenize_ptb(clean_text(text))

    def output(self, text: str) -> str:
        """Detokenized model output as shown to a user, without control characters (a byte-fallback piece the
        model sampled can decode to one: a reply held a raw \\x10)."""
        return _CONTROL.sub("", tidy(text) if self.name == TUTORIAL else untokenize_ptb(text.strip()))

    def describe(self) -> str:
        if self.name == TUTORIAL:
            return ("Input is normalized as in the tutorials: only Hangul, Latin letters, digits and ?.!,'-% "
                    "survive" + (", and English is lower-cased." if self.lowercase_target else "."))
        return ("Input is read as written: only Unicode (NFC, full-width ASCII, East Asian brackets as quotes, a "
                "middle dot between words as a comma) and whitespace are normalized; case, quotes, brackets, "
                "numbers and symbols pass through.")


def pipeline_for(task_config) -> TextPipeline:
    name = getattr(task_config, "text_pipeline", TUTORIAL)
    if name not in PIPELINES:
        raise ValueError(f"unknown text pipeline {name!r}; choose one of {', '.join(PIPELINES)}")
    return TextPipeline(name, bool(getattr(task_config, "lowercase_target", False)))
