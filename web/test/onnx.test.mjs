// ONNX (onnxruntime-web, WASM) against the golden data: greedy ids and beam ids (fp32 graphs: golden
// beam_ids, Python LiteRT's on model.tflite) equal, step-0 logits within 1e-3.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { GOLDEN_DIR, goldenMissing, readBytes, readGolden, readManifest } from "../scripts/golden-data.mjs";
import { generate } from "../src/decode.js";
import { beamOptions, maxAbsDiff, step0Logits } from "../src/golden.js";
import { createOnnxRuntime } from "../src/onnx_runtime.js";

const skip = goldenMissing() ?? false;
const golden = skip ? null : readGolden();
const noBeam = !skip && !beamOptions(golden) &&
  "golden.json has no beam ids (written before beam search was ported: export again)";
let runtime;

before(async () => {
  if (skip) return;
  runtime = await createOnnxRuntime({
    encodeModel: readBytes(join(GOLDEN_DIR, "encode.onnx")),
    stepModel: readBytes(join(GOLDEN_DIR, "decode_step.onnx")),
    manifest: readManifest(),
  });
});

after(() => runtime?.dispose());

test("ONNX step-0 logits are within 1e-3 of the reference", { skip }, async () => {
  const V = golden.vocab_size;
  for (const [i, s] of golden.sentences.entries()) {
    const logits = await step0Logits(runtime, s.source_ids, golden.special_ids.bos);
    const diff = maxAbsDiff(logits, golden.step0.subarray(i * V, (i + 1) * V));
    assert.ok(diff <= 1e-3, `${s.text}: max |diff| ${diff}`);
  }
});

test("ONNX greedy ids equal golden greedy_ids for every sentence", { skip }, async () => {
  for (const s of golden.sentences) {
    const { ids } = await generate(runtime, s.source_ids, { bosId: golden.special_ids.bos, eosId: golden.special_ids.eos });
    assert.deepEqual(ids, s.greedy_ids, s.text);
  }
});

test("ONNX beam ids equal golden beam_ids for every sentence", { skip: skip || noBeam }, async () => {
  for (const s of golden.sentences) {
    const { ids } = await generate(runtime, s.source_ids, beamOptions(golden));
    assert.deepEqual(ids, s.beam_ids, s.text);
  }
});
