"""Korean amounts written with the myriad scales (만 10^4, 억 10^8, 조 10^12) in English: "30억 달러" ->
"$3 billion", "3조 5천억 원" -> "3.5 trillion won", "3천5백만 달러" -> "$35 million", "1만8500" -> "18,500". A small
model turns these into wrong numbers ("£35bn") more often than not, and a wrong number is the worst error a
translation can make, so the translator's term protection (`studio.text.protect`) passes them through already in
English. Anything that does not read as one amount by the rules below is left to the model."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_NUM = r"\d{1,12}(?:,\d{3}){0,4}(?:\.\d{1,6})?"  # "135", "3.5", "1,000"; bounded, so sums stay exact
_SUB = r"\d{1,4}\s?[천백십]"  # "5천", "3 백"
_SUBS = rf"{_SUB}(?:\s?{_SUB})*(?:\s?\d{{1,4}}(?!\d))?"  # "3천5백", "2천 500": a value below 10^4 in words
_GROUP = rf"(?:{_SUBS}|{_NUM})\s?[조억만](?!큼)"  # "3천5백만", "135만", "3.5 조"; not "3만큼" (as much as 3)
# currency words, with the words they begin that are no currency: 엔진 (engine), 유로존, 위안부, 파운드리 (foundry);
# 불 (dollars, colloquial) only where its word ends or a particle follows (불안, 불법 are other words)
_CURRENCY = {"달러": ("$", ""), "유로": ("€", ""), "파운드": ("£", ""), "불": ("$", ""), "원": ("", " won"),
             "엔": ("", " yen"), "위안": ("", " yuan")}
_CURRENCY_WORD = r"(?:달러|유로(?![존파])|파운드(?!리)|불(?=[을를이은는의에로도만]|[^가-힣]|$)|원|엔(?![진터지])|위안(?!부))"
# a part below 10^4 after 만, the lowest scale: "1만8500", "1만 2천", "1만 2천5백" (after 억 or 조, "1억 5천" means
# 1억 5천만 in speech: left to the model, as is "100만 3회" - a second number, not part of the amount)
_TAIL = rf"(?<=만)(?:\d{{1,4}}(?![\d.,]?\d)|\s?{_SUBS})"
# not after 제 ("제3조", "제 3조": Article 3), nor inside a longer number or a multiplier run ("3천5백만" whole), and
# never the first part of one: what follows 억 or 조 with a number ("1억 5천", "2억 500") is left whole to the model
_SCALED = (rf"{_GROUP}(?:\s?{_GROUP})*(?:{_TAIL})?"
           rf"(?![\d.,]?\d|\s?[천백십조억만]|(?<=[억조])\s?\d)(?:\s?{_CURRENCY_WORD})?")
# a number with a currency and no scale, "127.95달러", "1,000원": the model had written "$500" for "5달러" and
# "1,000 employees" for "1,000원"; only before a particle or a word's end ("3원칙" is three principles), and after 원
# not before 가, 정, 부, 인... ("3원가", "3원정": other words)
_AFTER_PRICE = "[을를이은는의에로으도만과와까씩짜어대쯤밖보며다였나면라]"
_PRICE = (rf"{_NUM}(?![\d.,]?\d)\s?(?:원(?={_AFTER_PRICE}|[^가-힣]|$)"
          rf"|(?!원){_CURRENCY_WORD}(?={_AFTER_PRICE}|[가정선미부인]|[^가-힣]|$))")
AMOUNT = rf"(?<![제\d.,천백십조억만])(?<!제 )(?:{_SCALED}|{_PRICE})"
_PARTS = re.compile(rf"(?P<value>{_SUBS}|{_NUM})\s?(?P<scale>[조억만])?")
_SUB_PARTS = re.compile(r"(\d{1,4})\s?([천백십])")
_MULTIPLIER = {"십": 10, "백": 100, "천": 1000}
_SCALE = {"조": 10**12, "억": 10**8, "만": 10**4, None: 1}
_NAMES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"))


def amount_in_english(text: str) -> str | None:
    """The English of an amount `AMOUNT` matched, or None where it is not one amount: scales that do not fall
    from left to right ("3만 2억"), or a trillion with nothing after it ("2조로": in two groups; "250조": an
    article of a law) unless a currency says it is money."""
    currency = next((word for word in _CURRENCY if text.endswith(word)), None)
    number = text[: len(text) - len(currency)].strip() if currency else text.strip()
    total, scales = Decimal(0), []
    for part in _PARTS.finditer(number):
        scale = part.group("scale")
        if scales and _SCALE[scale] >= _SCALE[scales[-1]]:
            return None
        total += _sub_myriad(part.group("value")) * _SCALE[scale]
        scales.append(scale)
    if scales == ["조"] and not currency:
        return None
    prefix, suffix = _CURRENCY[currency] if currency else ("", "")
    words = _in_words(total)
    return f"{prefix}{words}{suffix}" if words else None


def _sub_myriad(value: str) -> Decimal:
    """"3천5백" -> 3500, "2천 500" -> 2500, "135" -> 135, "1,000" -> 1000."""
    total = Decimal(0)
    for digits, multiplier in _SUB_PARTS.findall(value):
        total += Decimal(digits) * _MULTIPLIER[multiplier]
    rest = _SUB_PARTS.sub("", value).strip().replace(",", "")
    return total + (Decimal(rest) if rest else 0)


def _in_words(value: Decimal) -> str | None:
    """12300000000000 -> "12.3 trillion", 110000000 -> "110 million", 18500 -> "18,500"."""
    try:
        for scale, name in _NAMES:
            if value >= scale:
                quotient = value / scale
                if quotient == quotient.quantize(Decimal("0.01")):
                    return f"{_plain(quotient)} {name}"
                break
        return f"{int(value):,}" if value == value.to_integral() else f"{value:,f}".rstrip("0").rstrip(".")
    except InvalidOperation:  # more digits than a Decimal context holds: no amount anyone writes
        return None


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
