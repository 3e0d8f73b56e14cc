// Normalization equals Python's for every case in normalization.json (see scripts/golden-data.mjs for the
// environment variables), plus the JS/Python differences normalize.js handles.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";

import { NORMALIZATION_CASES, readJson } from "../scripts/golden-data.mjs";
import { cleanText, normalize, pipeline, pipelineForConfig, pyStrip, tidy, untokenizePtb } from "../src/normalize.js";

const missing = existsSync(NORMALIZATION_CASES) ? false : `no normalization cases at ${NORMALIZATION_CASES}`;

test("every normalization case equals Python's", { skip: missing }, () => {
  const cases = readJson(NORMALIZATION_CASES);
  const tutorial = pipeline("tutorial");
  const translator = pipeline("translator");
  const failures = [];
  for (const c of cases) {
    const got = {
      tutorial: tutorial.source(c.text),
      tutorial_lower: pipeline("tutorial", true).target(c.text),
      translator: translator.source(c.text),
      tutorial_output: tutorial.output(c.text),
      translator_output: translator.output(c.text),
    };
    for (const [key, value] of Object.entries(got)) {
      if (key in c && value !== c[key]) failures.push({ text: c.text, key, js: value, python: c[key] });
    }
  }
  assert.deepEqual(failures, [], `${failures.length} of ${cases.length} cases differ`);
});

test("Python's whitespace, not JavaScript's", () => {
  assert.equal(pyStrip("\x1c\x85 a \ufeff"), "a \ufeff"); // trim() would keep \x1c and \x85, drop U+FEFF
  assert.equal(tidy("네 .\x1f"), "네.");
});

test("characters unassigned in Unicode 14 are dropped as Python 3.11 drops them", () => {
  assert.equal(cleanText("a\u{1FAE8}b"), "ab"); // shaking face: Unicode 15
  assert.equal(cleanText("a\u{31350}b"), "ab"); // CJK extension H: Unicode 15
  assert.equal(cleanText("a\u{1F600}b"), "a\u{1F600}b"); // Unicode 6
  assert.equal(cleanText("a\ud800b\udc00"), "ab"); // lone surrogates (Cs)
});

test("full-width ASCII, NFC, spaces", () => {
  assert.equal(cleanText("ＡＢＣ！\u3000\u1112\u1161\u11ab"), "ABC! 한");
  assert.equal(normalize("Hello, WORLD!", true), "hello , world !");
});

test("East Asian brackets to quotes, a middle dot between words to a comma, between digits to a point", () => {
  assert.equal(cleanText("한국·미국·일본 《기생충》과 「인용」"), "한국, 미국, 일본 “기생충”과 “인용”");
  assert.equal(cleanText("6·25 전쟁 · 항목"), "6.25 전쟁 · 항목");
});

test("double quotes mixed in one output become straight ones", () => {
  assert.equal(untokenizePtb('He said: “Do not think it is a solution."'), 'He said: "Do not think it is a solution."');
  assert.equal(untokenizePtb("The film “Parasite” won."), "The film “Parasite” won.");
});

test("a config without text_pipeline is the tutorial pipeline", () => {
  assert.equal(pipelineForConfig({ task: {} }).name, "tutorial");
  assert.equal(pipelineForConfig({ task: { text_pipeline: "translator" } }).name, "translator");
  assert.throws(() => pipeline("other"), /unknown text pipeline/);
});

test("an output shows no control character a byte piece decoded to", () => {
  for (const name of ["tutorial", "translator"]) assert.equal(pipeline(name).output("안녕\x10하세요\x7f"), "안녕하세요");
});
