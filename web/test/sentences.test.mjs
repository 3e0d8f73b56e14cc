// src/sentences.js answers as studio/translation.py does for every case of sentences-cases.json (written by
// scripts/sentences-fixture.py; rerun it when translation.py changes).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { KOREAN_ENGLISH, LanguagePair, languagePair } from "../src/pair.js";
import { finishSentence, fitToLength, joinPieces, keptWarning, planLines, splitSentences } from "../src/sentences.js";

const cases = JSON.parse(readFileSync(new URL("./sentences-cases.json", import.meta.url), "utf8"));

const TOKENIZERS = {
  words: (text) => text.split(/[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u)
    .filter(Boolean).length,
  characters: (text) => [...text].length,
};

/** The fixture's fake model (fake_translation there): the source without its final marks, an ASCII first letter
 * in lower case. */
function fakeTranslation(source) {
  const text = source.replace(/[.!?]+$/, "");
  return /^[\x00-\x7f]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}

/** A case's model's languages: its "pair", else the shipped Korean→English. */
const pairOf = (c) => (c.pair ? new LanguagePair(...c.pair) : KOREAN_ENGLISH);

/** Each case whose `got` differs from Python's `expected`, for one assertion that lists them all. */
function differences(list, got, expected) {
  return list.map((c) => ({ case: c, js: got(c), python: expected(c) }))
    .filter(({ js, python }) => JSON.stringify(js) !== JSON.stringify(python));
}

test("the fixture has cases for every function", () => {
  assert.equal(cases.format, "transformer-studio-web-sentences/1");
  for (const key of ["split_sentences", "fit_to_length", "finish_sentence", "plan_lines", "pairs", "language_pair"]) {
    assert.ok(cases[key].length > 0, key);
  }
});

test("splitSentences equals split_sentences", () => {
  assert.deepEqual(differences(cases.split_sentences, (c) => splitSentences(c.paragraph), (c) => c.sentences), []);
});

test("fitToLength equals fit_to_length", () => {
  assert.deepEqual(differences(cases.fit_to_length,
    (c) => fitToLength(c.sentence, TOKENIZERS[c.tokenizer], c.limit), (c) => c.pieces), []);
});

test("finishSentence equals finish_sentence, for the shipped pair and for others", () => {
  assert.ok(cases.finish_sentence.some((c) => c.pair));
  const finished = (c) => (c.pair ? finishSentence(c.source, c.output, pairOf(c)) : finishSentence(c.source, c.output));
  assert.deepEqual(differences(cases.finish_sentence, finished, (c) => c.finished), []);
});

test("planLines equals plan_lines, and the finished pieces joined equal translate's output, for each pair", () => {
  assert.ok(cases.plan_lines.some((c) => c.pair));
  const planned = (c) => planLines(c.text, TOKENIZERS.words, c.limit, pairOf(c));
  assert.deepEqual(differences(cases.plan_lines, planned, (c) => c.plan), []);
  const translated = (c) => {
    const plan = planned(c);
    const finished = plan.flat().map((piece) => finishSentence(piece, fakeTranslation(piece), pairOf(c)));
    return joinPieces(plan, finished, c.text);
  };
  assert.deepEqual(differences(cases.plan_lines, translated, (c) => c.translation), []);
  const warned = (c) => [keptWarning(c.text, pairOf(c))].filter(Boolean);
  assert.deepEqual(differences(cases.plan_lines, warned, (c) => c.warnings), []);
});

test("a LanguagePair says what Python's says of its steps, kinds and lines", () => {
  const answers = (c) => {
    const pair = pairOf(c);
    return { pair: [pair.source, pair.target], korean_source: pair.koreanSource,
      korean_to_english: pair.koreanToEnglish, english_target: pair.englishTarget, source_text: pair.sourceText,
      protects: Object.fromEntries(Object.keys(c.protects).map((kind) => [kind, pair.protects(kind)])),
      has_text: Object.fromEntries(Object.keys(c.has_text).map((line) => [line, pair.hasText(line)])) };
  };
  const { pair, ...rest } = cases.pairs[0];
  assert.deepEqual(pair, ["ko", "en"]);
  assert.deepEqual(answers(rest), { pair, ...rest }); // the default is the shipped pair
  assert.deepEqual(differences(cases.pairs, answers, (c) => c), []);
});

test("languagePair reads a config.json's task as language_pair reads it", () => {
  const read = (c) => {
    const pair = languagePair(c.task ? { task: c.task } : {});
    return [pair.source, pair.target];
  };
  assert.deepEqual(differences(cases.language_pair, read, (c) => c.pair), []);
});

test("joinPieces shows the lines reached so far", () => {
  const plan = [["a.", "b."], [], ["c."], []];
  const text = "가. 나.\n\n다.\n";
  assert.equal(joinPieces(plan, [], text), "");
  assert.equal(joinPieces(plan, ["A."], text), "A.");
  assert.equal(joinPieces(plan, ["A.", "B."], text), "A. B.");
  assert.equal(joinPieces(plan, ["A.", "B.", "C"], text), "A. B.\n\nC\n");
  assert.equal(joinPieces(plan, ["A.", "", "C."], text), "A.\n\nC.\n");
  assert.equal(joinPieces([[], ["a."], []], [], "\n가.\n"), "");
  assert.equal(joinPieces([[], []], [], "\n"), "\n");
  // a line without Korean is written as it is once the lines before it are done
  assert.equal(joinPieces([[], ["a."], []], [], "Hi\n가.\n"), "");
  assert.equal(joinPieces([[], ["a."], []], ["A."], "Hi\n가.\n"), "Hi\nA.\n");
});
