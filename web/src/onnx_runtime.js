// A decode.js runtime over encode.onnx + decode_step.onnx with onnxruntime-web (WASM, CPU).
// The port of studio/runtimes/onnx_runtime.py for batch 1. In Node, pass the model files' bytes; in a
// browser, bytes or URLs, and `wasmPaths` (the folder serving onnxruntime-web's .wasm/.mjs files) so
// nothing is fetched from a CDN.

import * as ort from "onnxruntime-web";

import { padSource } from "./decode.js";
import { SOURCE_STEP } from "./generated/constants.js";

/** The manifest's shape of an input or output with its named dimensions set: "batch" 1, the others from `sizes`
 * (e.g. { cache_len: 40 }); a manifest of format 2 names only "batch". */
export function batchOneShape(spec, sizes = {}) {
  return spec.shape.map((dim) => (dim === "batch" ? 1 : sizes[dim] ?? dim));
}

/** The length a source of `tokens` ids is padded to: a multiple of SOURCE_STEP, at most `limit` (as
 * studio.runtimes.graph_state.source_length); exactly `limit` for graphs of a fixed source length (format 2). */
export function sourceLength(tokens, limit, fixed = false) {
  if (fixed) return limit;
  return Math.min(limit, Math.max(SOURCE_STEP, Math.ceil(tokens / SOURCE_STEP) * SOURCE_STEP));
}

/**
 * options: encodeModel, stepModel (Uint8Array | ArrayBuffer | URL string), manifest (the export's
 * manifest.json, parsed), threads (default 1), wasmPaths (browser: where the ORT wasm files are served).
 */
export async function createOnnxRuntime({ encodeModel, stepModel, manifest, threads = 1, wasmPaths = null }) {
  ort.env.wasm.numThreads = threads;
  if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
  const sessionOptions = { executionProviders: ["wasm"], graphOptimizationLevel: "all" };
  const asModel = (model) => (model instanceof ArrayBuffer ? new Uint8Array(model) : model);
  const encoder = await ort.InferenceSession.create(asModel(encodeModel), sessionOptions);
  const stepper = await ort.InferenceSession.create(asModel(stepModel), sessionOptions);

  const S = manifest.max_source_len;
  const pad = manifest.special_ids.pad;
  const stepInputs = manifest.signatures.decode_step.inputs;
  const cacheNames = Object.keys(stepInputs).filter((name) => name.startsWith("cache_"));
  const fixedSource = typeof manifest.signatures.encode.inputs.source_ids.shape[1] === "number";

  return {
    name: "onnx",
    maxSourceLen: S,
    maxTargetLen: manifest.max_target_len,

    async encode(sourceIds) {
      // the graphs take any source length (export format 3): pad only to a multiple of SOURCE_STEP
      const length = sourceLength(sourceIds.length, S, fixedSource);
      const source = padSource(sourceIds, length, pad);
      const outputs = await encoder.run({ source_ids: new ort.Tensor("int32", source, [1, length]) });
      const cache = {}; // the self-attention cache starts as zeros: [1, heads, C, head_dim] (its whole capacity)
      for (const name of cacheNames) {
        const shape = batchOneShape(stepInputs[name], { cache_len: manifest.max_target_len });
        cache[name] = new ort.Tensor("float32", new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
      }
      return { cache, encoded: outputs }; // encoded: source_mask and cross_k_<i>/cross_v_<i>
    },

    async step(state, token, position) {
      const feeds = {
        ...state.encoded,
        ...state.cache,
        tokens: new ort.Tensor("int32", Int32Array.of(token), [1]),
        position: new ort.Tensor("int32", Int32Array.of(position), []), // a scalar
      };
      const outputs = await stepper.run(feeds);
      const cache = {};
      for (const name of cacheNames) cache[name] = outputs[`new_${name}`];
      return { logits: outputs.logits.data, state: { cache, encoded: state.encoded } };
    },

    // ORT never writes into its input tensors and the outputs are plain JS arrays (the garbage collector
    // frees them): a fork can share the cache tensors, and there is nothing to drop or release
    fork(state) {
      return { cache: { ...state.cache }, encoded: state.encoded };
    },

    async dispose() {
      await encoder.release();
      await stepper.release();
    },
  };
}
