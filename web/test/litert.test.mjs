// LiteRT.js (in Node, through src/litert_node.js) against the golden data, for each .tflite with static
// shapes (LITERT_TFLITE; see scripts/golden-data.mjs): greedy ids equal golden's for the same quantization,
// and a float32 model's step-0 logits are within 1e-3. Dynamic-int8 models quantize activations at run
// time, and WASM XNNPACK's int8 kernels round differently from the native ones in places: long outputs
// can part ways after a near-tie, so an int8 model needs 80% of the sentences exact (the rest are listed).
import assert from "node:assert/strict";
import { basename } from "node:path";
import { after, before, test } from "node:test";

import { goldenMissing, isFloat32, readBytes, readGolden, readManifest, tfliteFiles } from "../scripts/golden-data.mjs";
import { generate } from "../src/decode.js";
import { expectedIds, maxAbsDiff, step0Logits } from "../src/golden.js";
import { initLiteRtNode } from "../src/litert_node.js";
import { createLiteRtRuntime } from "../src/litert_runtime.js";

const missing = goldenMissing();
let golden, manifest;
const runtimes = []; // [file, runtime] for each .tflite with static shapes
const dynamic = []; // .tflite files with a dynamic batch dimension: LiteRT.js cannot run them

before(async () => {
  if (missing) return;
  golden = readGolden();
  manifest = readManifest();
  await initLiteRtNode();
  for (const file of tfliteFiles()) {
    try {
      runtimes.push([file, await createLiteRtRuntime({ model: readBytes(file), manifest })]);
    } catch (error) {
      if (!/dynamic shape/.test(error.message)) throw error;
      dynamic.push(basename(file));
    }
  }
});

after(() => runtimes.forEach(([, runtime]) => runtime.dispose()));

test("LiteRT.js golden checks", { skip: missing ?? false }, async (t) => {
  if (dynamic.length) t.diagnostic(`not run (dynamic batch dimension; LiteRT.js needs a batch-1 export): ${dynamic.join(", ")}`);
  if (runtimes.length === 0) {
    t.skip(`no .tflite with static shapes among ${tfliteFiles().map((f) => basename(f)).join(", ") || "none"}`);
    return;
  }
  for (const [file, runtime] of runtimes) {
    await t.test(basename(file), async (t) => {
      const V = golden.vocab_size;
      const quantized = basename(file).includes("int8");
      let exact = 0;
      for (const [i, s] of golden.sentences.entries()) {
        if (isFloat32(file)) {
          const logits = await step0Logits(runtime, s.source_ids, golden.special_ids.bos);
          const diff = maxAbsDiff(logits, golden.step0.subarray(i * V, (i + 1) * V));
          assert.ok(diff <= 1e-3, `${s.text}: max |diff| ${diff}`);
        }
        const { ids } = await generate(runtime, s.source_ids);
        if (!quantized) assert.deepEqual(ids, expectedIds(s, basename(file)), s.text);
        else if (JSON.stringify(ids) === JSON.stringify(expectedIds(s, basename(file)))) exact++;
        else t.diagnostic(`differs from golden: ${s.text.slice(0, 60)}`);
      }
      if (quantized) assert.ok(exact >= 0.8 * golden.sentences.length, `${exact}/${golden.sentences.length} exact`);
    });
  }
});
