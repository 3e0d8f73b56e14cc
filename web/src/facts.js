// The facts a translation must keep — years, months, numbers and Latin-script names — recognised in one place: the
// port of studio/text/facts.py. figures.js (the decode guard), dates.js and protect.js read a text's facts here, as
// their Python originals do. test/facts.test.mjs holds it to Python's answers (test/facts-cases.json, written by
// scripts/facts-fixture.py).
//
// Where JavaScript differs from Python: `\d` and `\s` are Unicode in Python's str patterns (DIGIT and SPACE here,
// from numbers.js); int() reads any decimal digit ("２０１８"), so a date's numbers are read through asciiDigits;
// spans are in UTF-16 code units, not code points (the fixture compares the text they cover).

import { AMOUNT, amountInEnglish, asciiDigits, DIGIT, SPACE } from "./numbers.js";

const D = DIGIT;
const S = SPACE;

export const TILDES = "~∼〜"; // the marks Korean writes a range with: `2018~2020년`, `3~4%`
export const SEPARATORS = ",."; // what a number is written with between its digits (and what may end one)

// a number as one reads it: digits, thousands commas, a decimal; the lookbehind: no rescans inside a run of digits
export const NUMERAL = `(?<![${D}.,])${D}+(?:,${D}{3})*(?:\\.${D}+)?`;
// a number as written, with any separators between its digits, and a period or comma after it
export const NUMBER_RUN = `${D}[${D}.,]*`;
const RUN = new RegExp(NUMBER_RUN, "gu");
// a run that is one number: "1,500", "3.5", "2024.03.15"; else it is a list of them ("1,2,3", "12,34")
const ONE_NUMBER = new RegExp(`^(?:${D}{1,3}(?:,${D}{3})+(?:\\.${D}+)?|${D}+(?:\\.${D}+)*)$`, "u");
const PART = /[^.,]+/gu;
const AMOUNTS = new RegExp(AMOUNT, "gu");

// a year as Korean writes it: `2018년`, a range `2018~2020년` or `2018-2020년`
const YEAR = new RegExp(`(?<![${D}.,])(${D}{4})(?:${S}?[${TILDES}-]${S}?(${D}{4}))?${S}?년`, "gu");
export const YEAR_RANGE = `${D}{4}${S}?[${TILDES}]${S}?${D}{4}년`; // a span of years, written with a hyphen

export const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
  "October", "November", "December"];
// the abbreviations news English writes (AP style: no short form for March to July)
export const SHORT = { 1: "Jan.", 2: "Feb.", 8: "Aug.", 9: "Sept.", 10: "Oct.", 11: "Nov.", 12: "Dec." };
export const SHORT_NAMES = { jan: 1, feb: 2, mar: 3, apr: 4, jun: 6, jul: 7, aug: 8, sep: 9, sept: 9, oct: 10,
  nov: 11, dec: 12 };
// a Korean date that names a month: `2018년 9월 30일`, `9월 30일`, `2018년 9월`, `9월`
const KOREAN_DATE = new RegExp(`(?<![${D}.,])(?:(?<year>${D}{4})${S}?년${S}?)?` +
  `(?<written>(?<month>1[0-2]|0?[1-9])${S}?월)(?:${S}?(?<day>3[01]|[12][0-9]|0?[1-9])${S}?일)?`, "dgu");

// Latin script with diacritics ("Köln", "José"); words joined by single spaces, a number among them ("iPhone 15");
// a hyphen only inside a word ("Jean-Claude", "COVID-19"): as a separator too, a long run would take exponential time
export const LATIN_LETTER = "A-Za-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u024F";
const LATIN_WORD = `[${LATIN_LETTER}][${LATIN_LETTER}0-9&'’.\\-]*[${LATIN_LETTER}0-9]`;
export const LATIN_NAME = `${LATIN_WORD}(?: (?:${LATIN_WORD}|${D}+))*`;
const LATIN_NAMES = new RegExp(LATIN_NAME, "gu");

/** The dates of `text` that name a month, as { month, day, year, span } (day and year null when not given; span:
 * where the month is written, `9월`). */
export function koreanDates(text) {
  return [...text.matchAll(KOREAN_DATE)].map((m) => ({
    month: Number(m.groups.month),
    day: m.groups.day ? Number(m.groups.day) : null,
    year: m.groups.year ? Number(asciiDigits(m.groups.year)) : null,
    span: m.indices.groups.written,
  }));
}

/** The ways English writes `month` (1-12): ["September", "Sep.", "Sept."]. */
export function monthForms(month) {
  const name = MONTHS[month - 1];
  return [...new Set([name, `${name.slice(0, 3)}.`, SHORT[month] ?? name])];
}

/** The years `text` writes as years: Set {"2018", "2020"} for `2018년에서 2020년까지` or `2018~2020년`. */
export function sourceYears(text) {
  return new Set([...text.matchAll(YEAR)].flatMap((m) => [m[1], m[2]].filter(Boolean)));
}

const rstripSeparators = (text) => text.replace(/[.,]+$/, "");

/** Each number `text` writes, as [[start, end], its value without thousands commas]; a run that is a list
 * ("1,2,3") gives each of its numbers. */
export function writtenNumbers(text) {
  const found = [];
  for (const run of text.matchAll(RUN)) {
    const body = rstripSeparators(run[0]);
    if (ONE_NUMBER.test(body)) {
      found.push([[run.index, run.index + body.length], body.replaceAll(",", "")]);
      continue;
    }
    for (const part of body.matchAll(PART)) {
      found.push([[run.index + part.index, run.index + part.index + part[0].length], part[0]]);
    }
  }
  return found;
}

/** The values of the numbers `text` writes (writtenNumbers), a Set. */
export function numberValues(text) {
  return new Set(writtenNumbers(text).map(([, value]) => value));
}

/** Each Korean amount of `text` that reads as one (numbers.js), as [[start, end], its English]. */
export function koreanAmounts(text) {
  return [...text.matchAll(AMOUNTS)].map((m) => [[m.index, m.index + m[0].length], amountInEnglish(m[0])])
    .filter(([, english]) => english);
}

/**
 * The numbers a translation of `text` may write, a Set: each number without thousands commas and its parts
 * between separators ("2018년 9월 1,500명이 3.5배" -> {"2018", "9", "1500", "1", "500", "3.5", "3", "5"}), a Korean
 * amount's also as English writes it (`1만8500` -> "18,500").
 */
export function sourceNumbers(text) {
  const numbers = new Set();
  const amounts = koreanAmounts(text).map(([, english]) => english);
  for (const [run] of [text, ...amounts].join(" ").matchAll(RUN)) {
    const body = rstripSeparators(run);
    numbers.add(body.replaceAll(",", ""));
    for (const part of body.split(/[.,]/)) if (part) numbers.add(part);
  }
  return numbers;
}

/** The runs of Latin script `text` writes: "Zoran Zaev", "iPhone 15", "Köln". */
export function latinNames(text) {
  return [...text.matchAll(LATIN_NAMES)].map((m) => m[0]);
}
