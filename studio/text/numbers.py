"""Korean amounts written with the myriad scales (만 10^4, 억 10^8, 조 10^12) in English: "30억 달러" ->
"$3 billion", "3조 5천억 원" -> "3.5 trillion won", "1만8500" -> "18,500". A small model turns these into
wrong numbers ("£35bn") more often than not, and a wrong number is the worst error a translation can make,
so the translator's term protection (`studio.text.protect`) passes them through already in English."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_SCALED = rf"{_NUM}\s?(?:[천백십]\s?)?[조억만](?!큼)"  # "30억", "5천만", "3.5 조"; not "3만큼" (as much as 3)
_TAIL = r"(?<=[조억만])\s?\d{1,4}(?:\s?[천백십])?"  # the part below 10^4: "1만8500", "1만 2천", "2억 500"
_CURRENCY = {"달러": ("$", ""), "불": ("$", ""), "유로": ("€", ""), "파운드": ("£", ""), "원": ("", " won"),
             "엔": ("", " yen"), "위안": ("", " yuan")}  # 불: dollars, after an amount ("3백만불")
# a currency word ends its word, or a particle follows it ("달러를"): "원인" (cause) or "유로존" are other words
_ENDS = "(?=[은는이가을를의에로와과도만화]|[^가-힣]|$)"
# not after 제 ("제3조": Article 3) nor inside a longer number, and never a prefix of one ("1만8500메가와트" is
# 18,500 or nothing)
AMOUNT = (rf"(?<![제\d.,]){_SCALED}(?:\s?{_SCALED})*(?:{_TAIL})?(?![\d.,]?\d)"
          rf"(?:\s?(?:{'|'.join(_CURRENCY)}){_ENDS})?")
_PART = re.compile(rf"({_NUM})\s?([천백십])?\s?([조억만])?")
_MULTIPLIER = {"십": 10, "백": 100, "천": 1000, None: 1}
_SCALE = {"조": 10**12, "억": 10**8, "만": 10**4, None: 1}
_NAMES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"))


def amount_in_english(text: str) -> str | None:
    """The English of a Korean amount `AMOUNT` matched, or None where its scales do not fall from left to
    right ("3만 2억" is no number) and it is best left to the model."""
    currency = next((word for word in _CURRENCY if text.endswith(word)), None)
    number = text[: len(text) - len(currency)].strip() if currency else text.strip()
    total, last_scale = Decimal(0), None
    for digits, multiplier, scale in _PART.findall(number):
        scale = scale or None
        if last_scale is not None and _SCALE[scale] >= last_scale:
            return None
        try:
            total += Decimal(digits.replace(",", "")) * _MULTIPLIER[multiplier or None] * _SCALE[scale]
        except InvalidOperation:
            return None
        last_scale = _SCALE[scale]
    prefix, suffix = _CURRENCY[currency] if currency else ("", "")
    return f"{prefix}{_in_words(total)}{suffix}"


def _in_words(value: Decimal) -> str:
    """12300000000000 -> "12.3 trillion", 110000000 -> "110 million", 18500 -> "18,500"."""
    for scale, name in _NAMES:
        if value >= scale:
            quotient = value / scale
            if quotient == quotient.quantize(Decimal("0.01")):
                return f"{_plain(quotient)} {name}"
            break
    return f"{value:,f}".rstrip("0").rstrip(".") if value != value.to_integral() else f"{int(value):,}"


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
