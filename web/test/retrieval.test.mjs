// Stored replies (retrieval.js, the port of studio/text/retrieval.py) find what Python finds: test/replies-cases.json
// (written by scripts/replies-fixture.py, the Android library's fixture) holds hundreds of messages of every kind with
// Python's normalized text, best row and cosine on the shipped chatbot's index, whose portable form the script keeps
// in the user cache; and the code points Python's lower case reads around a capital sigma.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { best, findReply, loadReplies, normalize, pyLower, storedSummary } from "../src/retrieval.js";
import { isCasedInUnicode14, isCaseIgnorableInUnicode14, isUnassignedInUnicode14 } from "../src/unicode14.js";

const CASES = JSON.parse(readFileSync(new URL("./replies-cases.json", import.meta.url), "utf8"));
const cache = process.env.STUDIO_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
  "transformer-studio");
const INDEX = join(cache, CASES.cache);
const missing = existsSync(join(INDEX, "replies.bin")) ? false
  : `the shipped chatbot's stored replies are not in ${INDEX}: run scripts/replies-fixture.py`;

function shippedIndex() {
  const files = Object.fromEntries(["replies.json", "replies.bin"]
    .map((name) => [name, readFileSync(join(INDEX, name))]));
  for (const [name, content] of Object.entries(files)) {
    const sha = createHash("sha256").update(content).digest("hex");
    assert.equal(sha, CASES.sha256[name], `${INDEX}/${name} is not the index the fixture was written from`);
  }
  return loadReplies(JSON.parse(files["replies.json"].toString("utf8")), new Uint8Array(files["replies.bin"]));
}

test("the fixture is Python's and holds messages of every kind", () => {
  assert.equal(CASES.format, "transformer-studio-replies-cases/1");
  assert.ok(CASES.cases.length >= 500);
  assert.ok(CASES.cases.some((c) => c.row === null) && CASES.cases.some((c) => c.ties > 1));
});

test("every message is normalized as Python normalizes it", () => {
  const wrong = CASES.cases.filter((c) => normalize(c.text) !== c.normalized)
    .map((c) => `${JSON.stringify(c.text.slice(0, 40))}: ${JSON.stringify(normalize(c.text).slice(0, 40))}`);
  assert.deepEqual(wrong, []);
});

test("a capital sigma's lower case reads the code points Python reads as cased and case-ignorable", () => {
  const inRanges = (ranges) => {
    const set = new Set();
    for (const [start, end] of ranges) for (let code = start; code <= end; code++) set.add(code);
    return set;
  };
  const cased = inRanges(CASES.final_sigma.cased);
  const ignorable = inRanges(CASES.final_sigma.case_ignorable);
  const wrong = [];
  for (let code = 0; code <= 0x10ffff; code++) {
    if ((code >= 0xd800 && code <= 0xdfff) || isUnassignedInUnicode14(code)) continue;
    if (isCasedInUnicode14(code) !== cased.has(code) || isCaseIgnorableInUnicode14(code) !== ignorable.has(code)) {
      wrong.push(code.toString(16));
    }
  }
  assert.deepEqual(wrong, []);
  assert.equal(pyLower("ΟΔΟΣ ΣΣ ΣΑ"), "οδος σς σα"); // Python's str.lower()
  assert.equal(pyLower("AΣ'"), "aς'");
  assert.equal(pyLower("ʕΣ"), "ʕς"); // U+0295 is a cased letter in Unicode 14.0 (not to Node 20's toLowerCase)
  assert.equal(pyLower("İSTANBUL"), "i\u0307stanbul");
});

test("every message finds Python's row and cosine on the shipped chatbot's stored replies", { skip: missing }, () => {
  const index = shippedIndex();
  assert.equal(index.questions.length, CASES.rows);
  let same = 0;
  let largest = 0;
  const wrong = [];
  for (const c of CASES.cases) {
    const { row, match } = best(index, c.text);
    const difference = Math.abs(match - c.match);
    largest = Math.max(largest, difference);
    if (row === (c.row ?? -1) && difference <= 1e-6) same++;
    else wrong.push(`${JSON.stringify(c.text.slice(0, 40))}: row ${row} (${match}), Python's ${c.row} (${c.match})`);
  }
  const ties = CASES.cases.filter((c) => c.ties > 1).length;
  console.log(`replies: ${same} of ${CASES.cases.length} messages find Python's row and cosine (${ties} won by the ` +
    `lowest of equal rows); largest cosine difference ${largest}`);
  assert.deepEqual(wrong, []);
  const found = findReply(index, "영화 볼래?");
  assert.match(storedSummary(found), /^stored reply · match 0\.57 · answers “.+” · \d+\.\d ms$/);
  assert.equal(findReply(index, "😊"), null); // no n-gram in common: the model writes the reply
});

test("a damaged index is refused, saying what does not fit", { skip: missing }, () => {
  const meta = JSON.parse(readFileSync(join(INDEX, "replies.json"), "utf8"));
  const bytes = new Uint8Array(readFileSync(join(INDEX, "replies.bin")));
  assert.throws(() => loadReplies(meta, bytes.subarray(0, 200000)), /the binary file ends before indptr does/);
  assert.throws(() => loadReplies({ ...meta, format: "x" }, bytes), /format "x", expected/);
  assert.throws(() => loadReplies({ ...meta, answers: meta.answers.slice(1) }, bytes), /answers has 10783 strings/);
});
