// No invented figure (figures.js, the port of studio/generate/figures.py): the decode loop writes only numbers
// the source has, on a fake runtime that would turn 2018 into 1818, with greedy and beam search alike.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { dateInEnglish } from "../src/dates.js";
import { generate, padSource } from "../src/decode.js";
import { koreanDates, sourceNumbers, sourceYears } from "../src/facts.js";
import { FigureGuard, writtenForms } from "../src/figures.js";
import { loadTokenizer } from "../src/tokenizer.js";

// the same toy vocabulary as tests/unit/test_figures.py
const PIECES = ["<pad>", "<s>", "</s>", "▁On", "▁September", "▁30", ",", "▁18", "18", "▁20", ".", "▁in", "▁1",
  "500", "▁people", "▁two", "<0x37>"];
const ID = Object.fromEntries(PIECES.map((p, i) => [p.replace("▁", "_"), i]));
const EOS = 2;
const GUARD = new FigureGuard(PIECES, EOS);
const WRONG_YEAR = ["_On", "_September", "_30", ",", "_18", "18", "."].map((p) => ID[p]);
const text = (ids) => ids.map((i) => PIECES[i]).join("").replaceAll("▁", " ").trim();

/** A model that would write `wanted` (the wrong year), every other piece a little less likely. */
function preferringRuntime(wanted) {
  const script = [...wanted, EOS];
  return {
    maxSourceLen: 4,
    maxTargetLen: 12,
    async encode(sourceIds) { return { source: padSource(sourceIds, 4) }; },
    async step(state, token, position) {
      const logits = new Float32Array(PIECES.length).fill(-4);
      logits[ID._20] = -1; // the next best guesses: the right century, then the right year
      logits[ID["18"]] = -1.5;
      logits[EOS] = -2;
      logits[script[Math.min(position, script.length - 1)]] = 0;
      return { logits, state };
    },
    async fork(state) { return { ...state }; },
  };
}

test("source numbers are digit sequences without separators, as in Python", () => {
  assert.deepEqual([...sourceNumbers("2018년 9월 30일, 1,500명이 3.5배 Xq1.")].sort(),
    ["1", "1500", "2018", "3", "3.5", "30", "5", "500", "9"]);
  assert.deepEqual([...writtenForms(new Set(["1500", "09", "1234567.5"]))].sort(),
    ["09", "1,234,567.5", "1,500", "1234567.5", "1500", "9"]);
  assert.equal(sourceNumbers("지난해 세 명").size, 0);
});

for (const options of [{}, { strategy: "beam", beamSize: 3, lengthPenalty: 1.8 }, { strategy: "sample", topK: 3, seed: 1 }]) {
  test(`a year the model would change is kept (${options.strategy ?? "greedy"})`, async () => {
    const free = await generate(preferringRuntime(WRONG_YEAR), [5, EOS], { eosId: EOS });
    assert.equal(text(free.ids), "On September 30, 1818.");
    const figures = { guard: GUARD, numbers: sourceNumbers("2018년 9월 30일") };
    const kept = await generate(preferringRuntime(WRONG_YEAR), [5, EOS], { ...options, eosId: EOS, figures });
    const written = text(kept.ids);
    assert.ok([...sourceNumbers(written)].every((n) => ["2018", "30", "9"].includes(n)), written);
    if (options.strategy !== "sample") assert.ok(written.includes("2018"), written); // a sample may end sooner
  });
}

test("a number in progress must become one of the source's, as Python's guard says", () => {
  const numbers = sourceNumbers("2018년 9월 30일 1,500명");
  const history = [ID._On, ID._September, ID._30, ID[","]];
  const banned = new Set(GUARD.banned(history, numbers));
  assert.ok(banned.has(ID._18) && !banned.has(ID._20) && !banned.has(ID._1));
  const after20 = new Set(GUARD.banned([...history, ID._20], numbers));
  assert.ok(!after20.has(ID["18"]) && [EOS, ID._in, ID._two, ID["500"]].every((i) => after20.has(i)));
  const afterYear = new Set(GUARD.banned([...history, ID._20, ID["18"]], numbers));
  assert.ok(!afterYear.has(EOS) && !afterYear.has(ID["."]) && afterYear.has(ID["18"]));
  assert.ok(!GUARD.banned([ID._1], sourceNumbers("1500명")).includes(ID[","]));
  assert.ok(GUARD.banned([ID._1, ID[","]], sourceNumbers("1500명")).includes(ID[","])); // "1,," is no number
  assert.ok(!GUARD.banned([ID._20, ID["18"]], sourceNumbers("2018년")).includes(ID["."])); // "in 2018." ends a sentence
  assert.ok(new Set(GUARD.banned([], new Set())).has(ID["<0x37>"])); // a byte piece that writes "7"
});

test("the tokenizer's pieces come from its model file, in id order", async () => {
  const bytes = readFileSync(new URL("../../assets/translator/tokenizer/shared.spm.model", import.meta.url));
  const tokenizer = await loadTokenizer(bytes);
  assert.deepEqual(tokenizer.pieces.slice(0, 5), ["<pad>", "<s>", "</s>", "<unk>", "<bt>"]);
  const ids = tokenizer.encode("In 2018, 1,500 people");
  assert.equal(ids.map((i) => tokenizer.pieces[i]).join("").replaceAll("▁", " ").trim(), "In 2018, 1,500 people");
});

test("beam search answers with a finished output that keeps every year of its source, if one does", async () => {
  // "On" ends at once and ranks first; "in 2018" ends two steps later; what else there is goes on without ending
  const next = { 1: { [ID._On]: 0, [ID._in]: -0.3 }, [ID._On]: { [EOS]: 0 }, [ID._in]: { [ID._20]: 0, [ID._two]: -0.2 },
    [ID._20]: { [ID["18"]]: 0 }, [ID["18"]]: { [EOS]: 0 }, 0: { 0: 0 }, [ID._two]: { [ID._two]: 0 } };
  const runtime = {
    maxSourceLen: 4,
    maxTargetLen: 8,
    async encode() { return { last: 1 }; },
    async step(state, token) {
      const logits = new Float32Array(PIECES.length).fill(-6);
      for (const [id, value] of Object.entries(next[token] ?? { [EOS]: 0 })) logits[id] = value;
      return { logits, state: { last: token } };
    },
    async fork(state) { return { ...state }; },
  };
  const options = { strategy: "beam", beamSize: 2, lengthPenalty: 1, eosId: EOS };
  const plain = await generate(runtime, [5, EOS], options);
  assert.equal(text(plain.ids), "On");
  const figures = { guard: GUARD, numbers: sourceNumbers("2018년에"), years: sourceYears("2018년에") };
  const kept = await generate(runtime, [5, EOS], { ...options, figures });
  assert.equal(text(kept.ids), "in 2018");
});

test("a Korean amount may be written as English writes it", () => {
  const numbers = sourceNumbers("1만8500메가와트를 전송한다");
  assert.ok(["18500", "1", "8500"].every((n) => numbers.has(n)));
});

test("the guard, the numbers, the years and the dates equal Python's (figures-cases.json)", () => {
  const cases = JSON.parse(readFileSync(new URL("./figures-cases.json", import.meta.url), "utf8"));
  const guard = new FigureGuard(cases.pieces, EOS);
  for (const c of cases.sources) {
    const numbers = sourceNumbers(c.source);
    assert.deepEqual([...numbers].sort(), c.numbers, c.source);
    assert.deepEqual([...writtenForms(numbers)].sort(), c.forms, c.source);
    assert.deepEqual([...sourceYears(c.source)].sort(), c.years, c.source);
    assert.deepEqual(koreanDates(c.source).map(dateInEnglish), c.dates, c.source);
    for (const walk of c.walks) {
      for (const step of walk) {
        const banned = [...guard.banned(step.history, numbers)].sort((a, b) => a - b);
        assert.deepEqual(banned, step.banned, `${c.source} ${step.history}`);
      }
    }
  }
});
