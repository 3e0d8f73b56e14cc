// src/protect.js (with src/numbers.js and src/transliteration.js) answers as studio/text/protect.py, numbers.py,
// transliteration.py and translation.py's unprotect do for every case of protect-cases.json (written by
// scripts/protect-fixture.py; rerun it when they change).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { amountInEnglish } from "../src/numbers.js";
import { KOREAN_ENGLISH, LanguagePair } from "../src/pair.js";
import {
  articleFor, decodeProtected, describe, Glossary, HANGUL_LETTERS, introducedNames, languageSample,
  looksLikeAnotherLanguage, Protector, restoredWith, secondPassWins,
} from "../src/protect.js";
import { finishSentence, joinPieces, keptWarning, planLines } from "../src/sentences.js";
import { koreanSounds, latinSounds, likeness, soundsLike } from "../src/transliteration.js";

const cases = JSON.parse(readFileSync(new URL("./protect-cases.json", import.meta.url), "utf8"));

/** Each case whose `got` differs from Python's `expected`, for one assertion that lists them all. */
function differences(list, got, expected) {
  return list.map((c) => ({ case: c.source ?? c.text ?? c.korean ?? c.document ?? c, js: got(c), python: expected(c) }))
    .filter(({ js, python }) => JSON.stringify(js) !== JSON.stringify(python));
}

/** A case's model's languages: its "pair", else the shipped Korean→English. */
const pairOf = (c) => (c.pair ? new LanguagePair(...c.pair) : KOREAN_ENGLISH);
/** The protector of a case (the fixture's protector()), for its model's pair. */
const protector = (c) => new Protector({
  glossary: c.glossary ? Glossary.parse(c.glossary) : new Glossary(), auto: c.auto }).forPair(pairOf(c));
const spanOf = ({ placeholder, original, english, kind }) => ({ placeholder, original, english, kind });
const protectedOf = (p) => ({ text: p.text, spans: p.spans.map(spanOf), written: [...p.written].sort() });
const expectedProtected = (c) => ({ text: c.text, spans: c.spans, written: c.written });
const placeholders = (spans) => spans.map((span) => span.placeholder);

test("the fixture has cases for everything", () => {
  assert.equal(cases.format, "transformer-studio-web-protect/1");
  for (const key of ["protect", "remembering", "restore", "second_pass", "translate_lines", "describe",
    "amount_in_english", "sounds", "language", "glossaries", "article_for"]) {
    assert.ok(cases[key].length > 0, key);
  }
});

test("the letters looks_like counts as Korean are Python's", () => {
  assert.deepEqual(HANGUL_LETTERS, cases.hangul_letters);
});

test("protect equals Protector.protect", () => {
  assert.deepEqual(differences(cases.protect, (c) => protectedOf(protector(c).protect(c.source)),
    expectedProtected), []);
});

test("remembering names, then protect, equals Protector.remembering", () => {
  const remembered = (c) => {
    const memory = protector(c).remembering(c.document);
    return { names: memory.names.entries, protected: c.protected.map(({ source }) => ({ source, ...protectedOf(memory.protect(source)) })) };
  };
  assert.deepEqual(differences(cases.remembering, remembered, (c) => ({ names: c.names, protected: c.protected })), []);
  const alone = (c) => (c.auto && pairOf(c).protects("named") ? introducedNames(c.document).entries : []);
  assert.deepEqual(differences(cases.remembering, alone, (c) => c.names), []);
});

test("restore, repeated, once, inline and counts equal Protected's", () => {
  const answers = (c) => {
    const shield = protector(c).protect(c.source);
    return {
      protected: protectedOf(shield),
      counts: Object.fromEntries(shield.counts()),
      outputs: c.outputs.map(({ output }) => {
        const { text, applied, dropped } = shield.restore(output);
        const repeated = shield.repeated(output);
        return { output, text, applied: placeholders(applied), dropped: placeholders(dropped),
          repeated: placeholders(repeated), once: shield.once(output), inline: shield.inline([...dropped, ...repeated]) };
      }),
    };
  };
  assert.deepEqual(differences(cases.restore, answers, (c) => ({ protected: c.protected, counts: c.counts, outputs: c.outputs })), []);
});

test("restoredWith and secondPassWins equal translation.py's _restored and _second_pass_wins", () => {
  const answers = (c) => {
    const shield = protector({ ...c, auto: true }).protect(c.source);
    const first = shield.restore(c.first_output);
    const repeated = shield.repeated(c.first_output);
    const writtenIn = [...first.dropped, ...repeated];
    const second = restoredWith(shield, c.second_output, writtenIn);
    return { written_in: placeholders(writtenIn), inline: shield.inline(writtenIn),
      second: { text: second.text, applied: placeholders(second.applied), dropped: placeholders(second.dropped) },
      wins: secondPassWins(shield, first, second, c.second_output, repeated) };
  };
  assert.deepEqual(differences(cases.second_pass, answers,
    (c) => ({ written_in: c.written_in, inline: c.inline, second: c.second, wins: c.wins })), []);
});

const WORDS = { 회의는: "the meeting is", 에서: "at", 열린다: "held", 대표와: "with CEO", 만났다: "met",
  가격은: "the price is", 무게는: "the weight is" };
const PY_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** The fixture's fake model (WordTranslator there), one source per call. */
function wordTranslator(kind) {
  const seen = new Set();
  let calls = 0;
  return (source) => {
    calls++;
    const words = source.split(PY_SPACE).filter(Boolean);
    if (kind === "repeats") return words.map((w) => (w.startsWith("Xq") && calls === 1 ? `${w} ${w}` : WORDS[w] ?? w)).join(" ");
    let out = words.map((w) => WORDS[w] ?? w);
    if (kind === "drops" && /Xq\p{Nd}/u.test(source) && !seen.has(source)) {
      seen.add(source);
      out = out.filter((w) => !/^Xq\p{Nd}+[^\p{L}\p{N}_]*$/u.test(w));
    }
    return out.join(" ");
  };
}

test("decodeProtected, piece by piece, equals translate with a protector, for the model's pair", async () => {
  const translate = async (c) => {
    const pair = pairOf(c);
    const model = wordTranslator(c.translator);
    const countWords = (text) => text.split(PY_SPACE).filter(Boolean).length;
    const plan = planLines(c.text, countWords, 1000, pair);
    const chosen = protector(c);
    const memory = chosen.enabled ? chosen.remembering(c.text) : null;
    const done = [];
    const report = [];
    for (const piece of plan.flat()) {
      let output;
      if (memory) {
        const result = await decodeProtected(memory.protect(piece), async (source) => model(source));
        output = result.text;
        report.push(...result.applied.map((span) => [spanOf(span), true]), ...result.dropped.map((span) => [spanOf(span), false]));
      } else {
        output = model(piece);
      }
      done.push(finishSentence(piece, output, pair));
    }
    return { outputs: joinPieces(plan, done, c.text).split("\n"), report,
      warnings: [keptWarning(c.text, pair)].filter(Boolean) };
  };
  const got = [];
  for (const c of cases.translate_lines) got.push(await translate(c));
  const wrong = cases.translate_lines.map((c, i) => ({ case: c.text, js: got[i],
    python: { outputs: c.outputs, report: c.report, warnings: c.warnings } }))
    .filter(({ js, python }) => JSON.stringify(js) !== JSON.stringify(python));
  assert.deepEqual(wrong, []);
});

test("decodeProtected keeps the first pass when the second is stopped, and says so when the first is", async () => {
  const shield = new Protector().protect("회의는 100만 원 만났다");
  const sources = [];
  const kept = await decodeProtected(shield, async (source, pass) => { sources.push([source, pass]); return pass === 1 ? "Xq1 Xq1" : null; });
  assert.deepEqual(sources, [["회의는 Xq1 만났다", 1], ["회의는 1 million won 만났다", 2]]);
  assert.equal(kept.text, "1 million won");
  assert.equal(kept.pass, 1);
  assert.equal(kept.again, true);
  assert.equal(await decodeProtected(shield, async () => null), null);
});

test("describe equals protect.py's describe", () => {
  assert.deepEqual(differences(cases.describe, (c) => describe(c.report), (c) => c.line), []);
});

test("amountInEnglish equals amount_in_english", () => {
  assert.deepEqual(differences(cases.amount_in_english, (c) => amountInEnglish(c.text), (c) => c.english), []);
});

test("articleFor equals article_for", () => {
  assert.deepEqual(differences(cases.article_for, (c) => articleFor(c.text), (c) => c.article), []);
});

test("the sounds of a name equal transliteration.py's", () => {
  assert.deepEqual(differences(cases.sounds,
    (c) => [koreanSounds(c.korean), latinSounds(c.latin), likeness(c.korean, c.latin), soundsLike(c.korean, c.latin)],
    (c) => [c.korean_sounds, c.latin_sounds, c.likeness, c.sounds_like]), []);
});

test("what is read for the language guess, and the guess, equal language_sample and looks_like", () => {
  assert.deepEqual(differences(cases.language,
    (c) => [languageSample(c.text), looksLikeAnotherLanguage(languageSample(c.text))], (c) => [c.sample, c.not_korean]), []);
});

test("Glossary.parse equals Glossary.parse, its errors DataError's message", () => {
  const parsed = (c) => {
    try {
      return { entries: Glossary.parse(c.text, c.name).entries };
    } catch (error) {
      return { error: error.message };
    }
  };
  assert.deepEqual(differences(cases.glossaries, parsed, (c) => (c.error ? { error: c.error } : { entries: c.entries })), []);
  const many = Array.from({ length: 5001 }, (_, i) => `단어${i}\tword${i}\n`).join("");
  assert.throws(() => Glossary.parse(many, "big.tsv"), { message: "big.tsv: more than 5,000 entries" });
});

test("long inputs stay quick (the Python regexes' linear-time choices kept)", () => {
  const started = performance.now();
  new Protector({ glossary: Glossary.parse("국민보건서비스\tNHS\n") }).protect(`국민보건서비스(${"ab-cd ef ".repeat(220)}`);
  new Protector().protect("1".repeat(8000));
  new Protector().protect(`${"1".repeat(1999)}만`);
  assert.deepEqual(new Protector().remembering(`${"가나 ".repeat(4000)}(${Array(4000).fill("Gana").join(" ")})`).names.entries, []);
  new Protector().protect(`https://${"a".repeat(1990)}`);
  new Protector().protect(`${" ".repeat(1990)}Xq1`).restore(`${" ".repeat(3000)}Xq9 ${"\t".repeat(3000)}.`);
  assert.ok(performance.now() - started < 5000); // a hang guard, not a speed claim
});
