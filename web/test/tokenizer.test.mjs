// The tokenizer and prepareSource give the golden source ids; finishOutput gives the golden output text. An
// imported model's tokenizer (special ids of its own) encodes, decodes and is refused as in Python
// (tokenizer-cases.json, written by web/scripts/tokenizer-fixture.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, test } from "node:test";

import { goldenMissing, goldenPipeline, goldenTokenizer, readGolden } from "../scripts/golden-data.mjs";
import { finishOutput, prepareSource } from "../src/decode.js";
import { loadTokenizer } from "../src/tokenizer.js";

const skip = goldenMissing() ?? false;
let golden, tokenizer, textPipeline;

before(async () => {
  if (skip) return;
  golden = readGolden();
  tokenizer = await goldenTokenizer(golden);
  textPipeline = goldenPipeline(golden);
});

test("tokenizer ids of the normalized text equal golden source_ids", { skip }, () => {
  for (const s of golden.sentences) {
    const ids = tokenizer.encode(s.normalized).slice(0, golden.max_source_len - 1);
    assert.deepEqual([...ids, golden.special_ids.eos], s.source_ids, s.text);
  }
});

test("prepareSource(text) equals golden source_ids, normalized text and warnings", { skip }, () => {
  for (const s of golden.sentences) {
    const prepared = prepareSource(s.text, textPipeline, tokenizer, golden.max_source_len, golden.special_ids.eos);
    assert.equal(prepared.normalized, s.normalized, s.text);
    assert.deepEqual(prepared.ids, s.source_ids, s.text);
    if (s.warnings) assert.deepEqual(prepared.warnings, s.warnings, s.text);
  }
});

test("finishOutput(greedy_ids) equals the golden output text", { skip }, () => {
  for (const s of golden.sentences) {
    assert.equal(finishOutput(s.greedy_ids, goldenPipeline(golden), tokenizer), s.output, s.text);
  }
});

test("a lone surrogate is encoded as U+FFFD, as Python's _encodable does", { skip }, () => {
  assert.deepEqual(tokenizer.encode("가\ud800나"), tokenizer.encode("가\ufffd나"));
  assert.deepEqual(tokenizer.encode("\u{1F600}"), tokenizer.encode("\ud83d\ude00")); // a pair is one character
});

test("decode stops at </s> and skips <pad>, <s>, <unk>", { skip }, () => {
  const ids = golden.sentences[0].greedy_ids;
  assert.equal(tokenizer.decode([1, 0, ...ids, 3, 2, ...ids]), tokenizer.decode(ids));
  assert.equal(tokenizer.decode([]), "");
});

const imported = JSON.parse(readFileSync(new URL("./tokenizer-cases.json", import.meta.url), "utf8"));
const modelBytes = (base64) => new Uint8Array(Buffer.from(base64, "base64"));

test("an imported model's tokenizer has the special ids its model gives, as Python reads them", async () => {
  const tokenizer = await loadTokenizer(modelBytes(imported.model));
  const { padId: pad, bosId: bos, eosId: eos, unkId: unk } = tokenizer;
  assert.deepEqual({ pad, bos, eos, unk }, imported.special_ids);
  assert.notDeepEqual([pad, bos, eos, unk], [0, 1, 2, 3]);
  assert.equal(tokenizer.pieces.length, imported.vocab_size);
});

test("an imported model's tokenizer encodes and decodes as Python does", async () => {
  const tokenizer = await loadTokenizer(modelBytes(imported.model));
  for (const { text, ids } of imported.encode) assert.deepEqual(tokenizer.encode(text), ids, text);
  for (const { ids, text } of imported.decode) assert.equal(tokenizer.decode(ids), text, ids.join(" "));
});

test("a model without one of the four special pieces is refused, as in Python", async () => {
  await assert.rejects(loadTokenizer(modelBytes(imported.without_pad)), { message: imported.without_pad_error });
});
