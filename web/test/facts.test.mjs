// The facts of a text (facts.js, the port of studio/text/facts.py) are Python's, case by case: years, months,
// numbers, Korean amounts, the numbers the decode guard allows and Latin names (test/facts-cases.json, written by
// scripts/facts-fixture.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  koreanAmounts, koreanDates, latinNames, monthForms, sourceNumbers, sourceYears, writtenNumbers,
} from "../src/facts.js";

const CASES = JSON.parse(readFileSync(new URL("./facts-cases.json", import.meta.url), "utf8"));
const sorted = (values) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)); // Python's sorted(): code units
const covered = (text, [[start, end], value]) => [text.slice(start, end), value];

test("the fixture is Python's and holds texts of every kind", () => {
  assert.equal(CASES.format, "transformer-studio-web-facts/1");
  assert.ok(CASES.texts.length > 200);
});

test("a month is written in English as Python writes it", () => {
  assert.deepEqual(CASES.month_forms, Array.from({ length: 12 }, (_, i) => monthForms(i + 1)));
});

for (const [kind, read] of [
  ["years", (text) => sorted(sourceYears(text))],
  ["dates", (text) => koreanDates(text).map((d) => [d.month, d.day, d.year, text.slice(...d.span)])],
  ["numbers", (text) => writtenNumbers(text).map((found) => covered(text, found))],
  ["amounts", (text) => koreanAmounts(text).map((found) => covered(text, found))],
  ["allowed", (text) => sorted(sourceNumbers(text))],
  ["names", (text) => latinNames(text)],
]) {
  test(`every text's ${kind} are Python's`, () => {
    for (const expected of CASES.texts) {
      assert.deepEqual(read(expected.text), expected[kind], JSON.stringify(expected.text));
    }
  });
}
