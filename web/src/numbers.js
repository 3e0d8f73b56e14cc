// Korean amounts written with the myriad scales (만 10^4, 억 10^8, 조 10^12) in English, a port of
// studio/text/numbers.py: "30억 달러" -> "$3 billion", "3조 5천억 원" -> "3.5 trillion won", "1만8500" -> "18,500".
// src/protect.js protects what AMOUNT matches and gives the model's output amountInEnglish(match).
// test/protect.test.mjs holds it to Python's answers (test/protect-cases.json, scripts/protect-fixture.py).
//
// Where JavaScript differs from Python:
// - `\d` and `\s` are Unicode in Python's str patterns: DIGIT (\p{Nd}) and SPACE (str.isspace()) here; Decimal()
//   reads any decimal digit ("３０억"), so digits are read by their Unicode value (asciiDigits).
// - Python's Decimal computes with 28 significant digits, rounding half to even after each operation (an amount
//   can have 30: "123456789012,345,678,901,234.123456만"): Dec below does the same on BigInts.
// - `$` in Python also matches before a final "\n"; every `$` here follows `[^가-힣]|`, which matches that "\n".

import { PY_WHITESPACE, pyStrip } from "./pystr.js";

export const SPACE = `[${PY_WHITESPACE}]`; // Python's \s
export const DIGIT = "\\p{Nd}"; // Python's \d, also inside a character class
const S = SPACE;
const D = DIGIT;

const NUM = `${D}{1,12}(?:,${D}{3}){0,4}(?:\\.${D}{1,6})?`; // "135", "3.5", "1,000"; bounded, so sums stay exact
const SUB = `${D}{1,4}${S}?[천백십]`; // "5천", "3 백"
const SUBS = `${SUB}(?:${S}?${SUB})*(?:${S}?${D}{1,4}(?!${D}))?`; // "3천5백", "2천 500": a value below 10^4 in words
const GROUP = `(?:${SUBS}|${NUM})${S}?[조억만](?!큼)`; // "3천5백만", "135만", "3.5 조"; not "3만큼" (as much as 3)
// currency words, with the words they begin that are no currency: 엔진 (engine), 유로존, 위안부, 파운드리 (foundry);
// 불 (dollars, colloquial) only where its word ends or a particle follows (불안, 불법 are other words)
const CURRENCY = new Map([["달러", ["$", ""]], ["유로", ["€", ""]], ["파운드", ["£", ""]], ["불", ["$", ""]],
  ["원", ["", " won"]], ["엔", ["", " yen"]], ["위안", ["", " yuan"]]]);
const CURRENCY_WORD = "(?:달러|유로(?![존파])|파운드(?!리)|불(?=[을를이은는의에로도만]|[^가-힣]|$)|원|엔(?![진터지])|위안(?!부))";
// a part below 10^4 after 만, the lowest scale: "1만8500", "1만 2천", "1만 2천5백" (after 억 or 조, "1억 5천" means
// 1억 5천만 in speech: left to the model, as is "100만 3회" - a second number, not part of the amount)
const TAIL = `(?<=만)(?:${D}{1,4}(?![${D}.,]?${D})|${S}?${SUBS})`;
// not after 제 ("제3조", "제 3조": Article 3), nor inside a longer number or a multiplier run ("3천5백만" whole), and
// never the first part of one: what follows 억 or 조 with a number ("1억 5천", "2억 500") is left whole to the model
const SCALED = `${GROUP}(?:${S}?${GROUP})*(?:${TAIL})?` +
  `(?![${D}.,]?${D}|${S}?[천백십조억만]|(?<=[억조])${S}?${D})(?:${S}?${CURRENCY_WORD})?`;
// a number with a currency and no scale, "127.95달러", "1,000원": only before a particle or a word's end ("3원칙" is
// three principles), and after 원 not before 가, 정, 부, 인... ("3원가", "3원정": other words)
const AFTER_PRICE = "[을를이은는의에로으도만과와까씩짜어대쯤밖보며다였나면라]";
const PRICE = `${NUM}(?![${D}.,]?${D})${S}?(?:원(?=${AFTER_PRICE}|[^가-힣]|$)` +
  `|(?!원)${CURRENCY_WORD}(?=${AFTER_PRICE}|[가정선미부인]|[^가-힣]|$))`;
/** The source of the regex (flag "u") for an amount, numbers.py's AMOUNT. */
export const AMOUNT = `(?<![제${D}.,천백십조억만])(?<!제 )(?:${SCALED}|${PRICE})`;
const PARTS = new RegExp(`(?<value>${SUBS}|${NUM})${S}?(?<scale>[조억만])?`, "gu");
const SUB_PARTS = new RegExp(`(${D}{1,4})${S}?([천백십])`, "gu");
const MULTIPLIER = { 십: 10n, 백: 100n, 천: 1000n };
const SCALE = { 조: 10n ** 12n, 억: 10n ** 8n, 만: 10n ** 4n };
const NAMES = [[10n ** 12n, "trillion"], [10n ** 9n, "billion"], [10n ** 6n, "million"]];
const ONE_DIGIT = new RegExp(`^${D}$`, "u");

/** A Unicode decimal digit's value: decimal digits come in runs of ten, 0 to 9, one run after another. */
function digitValue(code) {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  let run = 0;
  while (ONE_DIGIT.test(String.fromCodePoint(code - run - 1))) run++;
  return run % 10;
}

/** `text` with every decimal digit written in ASCII ("３０" -> "30"), as Python's int() and Decimal() read it. */
export function asciiDigits(text) {
  return text.replace(new RegExp(D, "gu"), (digit) => String(digitValue(digit.codePointAt(0))));
}

// ---- Python's Decimal, the little of it numbers.py uses: value = c * 10^e, 28 significant digits ----

const PRECISION = 28;
const TEN = (n) => 10n ** BigInt(n);
const digitCount = (c) => (c === 0n ? 1 : c.toString().length);

/** c / 10^k rounded half to even; `sticky`: something non-zero lies below the digits dropped. */
function roundDigits(c, k, sticky = false) {
  if (k <= 0) return c;
  const unit = TEN(k);
  let q = c / unit;
  const r = c % unit;
  const twice = 2n * r;
  if (twice > unit || (twice === unit && (sticky || q % 2n === 1n))) q += 1n;
  return q;
}

class Dec {
  constructor(c, e = 0) {
    this.c = c;
    this.e = e;
  }

  /** Decimal(text): exact, whatever its length. */
  static parse(text) {
    const match = /^([0-9]*)(?:\.([0-9]*))?$/.exec(pyStrip(asciiDigits(text)));
    if (!match || !(match[1] || match[2])) throw new Error(`decimal.InvalidOperation: ${JSON.stringify(text)}`);
    const fraction = match[2] ?? "";
    return new Dec(BigInt((match[1] || "0") + fraction), -fraction.length);
  }

  /** This value rounded to the context's 28 significant digits. */
  rounded(sticky = false) {
    const k = digitCount(this.c) - PRECISION;
    if (k <= 0 && !sticky) return this;
    let c = roundDigits(this.c, k, sticky);
    let e = this.e + Math.max(k, 0);
    if (digitCount(c) > PRECISION) { // 99…9 rounded up: one more digit, a zero
      c /= 10n;
      e += 1;
    }
    return new Dec(c, e);
  }

  plus(other) {
    const e = Math.min(this.e, other.e);
    return new Dec(this.c * TEN(this.e - e) + other.c * TEN(other.e - e), e).rounded();
  }

  times(other) {
    return new Dec(this.c * other.c, this.e + other.e).rounded();
  }

  dividedBy(other) {
    if (this.c === 0n) return new Dec(0n);
    const shift = Math.max(0, PRECISION + 2 + digitCount(other.c) - digitCount(this.c));
    const numerator = this.c * TEN(shift);
    const q = numerator / other.c;
    const remainder = numerator % other.c;
    const k = digitCount(q) - PRECISION;
    let c = roundDigits(q, k, remainder !== 0n);
    let e = this.e - other.e - shift + k;
    if (digitCount(c) > PRECISION) {
      c /= 10n;
      e += 1;
    }
    return new Dec(c, e);
  }

  compare(other) {
    const e = Math.min(this.e, other.e);
    const a = this.c * TEN(this.e - e);
    const b = other.c * TEN(other.e - e);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  isInteger() {
    return this.e >= 0 || this.c % TEN(-this.e) === 0n;
  }

  /** Whether quantize(Decimal("0.01")) leaves the value as it is; throws where Python's raises
   * InvalidOperation (more than 28 digits after quantizing). */
  hasCents() {
    const c = this.e >= -2 ? this.c * TEN(this.e + 2) : roundDigits(this.c, -2 - this.e);
    if (digitCount(c) > PRECISION) throw new RangeError("decimal.InvalidOperation");
    return this.e >= -2 || this.c % TEN(-2 - this.e) === 0n;
  }

  /** The integer part's digits and the fraction's, trailing zeros dropped. */
  digits() {
    if (this.e >= 0) return [(this.c * TEN(this.e)).toString(), ""];
    const text = this.c.toString().padStart(-this.e + 1, "0");
    return [text.slice(0, this.e), text.slice(this.e).replace(/0+$/, "")];
  }
}

const ZERO = new Dec(0n);
const big = (n) => new Dec(n);
const grouped = (digits) => digits.replace(/\B(?=(\d{3})+$)/g, ",");

/**
 * The English of an amount AMOUNT matched, or null where it is not one amount: scales that do not fall from left
 * to right ("3만 2억"), or a trillion with nothing after it ("2조로": in two groups; "250조": an article of a law)
 * unless a currency says it is money.
 */
export function amountInEnglish(text) {
  const currency = [...CURRENCY.keys()].find((word) => text.endsWith(word)) ?? null;
  const number = pyStrip(currency ? text.slice(0, text.length - currency.length) : text);
  let total = ZERO;
  const scales = [];
  for (const part of number.matchAll(PARTS)) {
    const scale = part.groups.scale ?? null;
    if (scales.length && scaleOf(scale) >= scaleOf(scales.at(-1))) return null;
    total = total.plus(subMyriad(part.groups.value).times(big(scaleOf(scale))));
    scales.push(scale);
  }
  if (scales.length === 1 && scales[0] === "조" && !currency) return null;
  const [prefix, suffix] = currency ? CURRENCY.get(currency) : ["", ""];
  const words = inWords(total);
  return words ? `${prefix}${words}${suffix}` : null;
}

const scaleOf = (scale) => (scale === null ? 1n : SCALE[scale]);

/** "3천5백" -> 3500, "2천 500" -> 2500, "135" -> 135, "1,000" -> 1000. */
function subMyriad(value) {
  let total = ZERO;
  for (const [, digits, multiplier] of value.matchAll(SUB_PARTS)) {
    total = total.plus(Dec.parse(digits).times(big(MULTIPLIER[multiplier])));
  }
  const rest = pyStrip(value.replace(SUB_PARTS, "")).replaceAll(",", "");
  return total.plus(rest ? Dec.parse(rest) : ZERO);
}

/** 12300000000000 -> "12.3 trillion", 110000000 -> "110 million", 18500 -> "18,500". */
function inWords(value) {
  try {
    for (const [scale, name] of NAMES) {
      if (value.compare(big(scale)) >= 0) {
        const quotient = value.dividedBy(big(scale));
        if (quotient.hasCents()) {
          const [whole, fraction] = quotient.digits();
          return `${fraction ? `${whole}.${fraction}` : whole} ${name}`;
        }
        break;
      }
    }
    const [whole, fraction] = value.digits();
    return value.isInteger() ? grouped(whole) : `${grouped(whole)}.${fraction}`;
  } catch (error) {
    if (error instanceof RangeError) return null; // more digits than a Decimal context holds
    throw error;
  }
}
