// Per-token latency of the golden sentences in Node: ONNX Runtime Web (WASM, fp32 graphs) and LiteRT.js
// (WASM, the .tflite named by LITERT_TFLITE). Prints one JSON object; benchmarks/web_latency.py runs it next
// to the browser page and Python LiteRT. Environment: GOLDEN_DIR, BUNDLE_DIR (see golden-data.mjs).
import { join } from "node:path";

import { generate } from "../src/decode.js";
import { initLiteRtNode } from "../src/litert_node.js";
import { createLiteRtRuntime } from "../src/litert_runtime.js";
import { createOnnxRuntime } from "../src/onnx_runtime.js";
import { GOLDEN_DIR, readBytes, readGolden, readManifest, tfliteFiles } from "./golden-data.mjs";

const golden = readGolden();
const manifest = readManifest();
const { bos, eos } = golden.special_ids;

async function measure(runtime) {
  await generate(runtime, golden.sentences[0].source_ids, { bosId: bos, eosId: eos }); // warm-up
  const rows = [];
  for (const s of golden.sentences) { // one at a time: each timing is of one sentence alone
    const { ids, timings } = await generate(runtime, s.source_ids, { bosId: bos, eosId: eos });
    rows.push({ ids, firstTokenMs: timings.firstTokenMs, msPerToken: timings.msPerToken, steps: timings.steps });
  }
  return rows;
}

const onnx = await createOnnxRuntime({
  encodeModel: readBytes(join(GOLDEN_DIR, "encode.onnx")),
  stepModel: readBytes(join(GOLDEN_DIR, "decode_step.onnx")),
  manifest,
});
const result = { onnx: await measure(onnx) };
await onnx.dispose();
await initLiteRtNode();
const [tflite] = tfliteFiles();
const litert = await createLiteRtRuntime({ model: readBytes(tflite), manifest });
result.litert = await measure(litert);
litert.dispose();
console.log(JSON.stringify(result));
