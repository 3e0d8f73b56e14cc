// A decode.js runtime over a .tflite with LiteRT.js (@litertjs/core): the browser path, also usable in
// Node through litert_node.js. The port of studio/runtimes/tflite_runtime.py for batch 1.
//
// LiteRT.js facts this relies on (@litertjs/core 2.5):
// - `loadLiteRt(folder)` loads the WASM runtime once per page from `folder` (the package's wasm/ files,
//   served by the site: no CDN). It picks litert_wasm_internal.js (relaxed SIMD) or
//   litert_wasm_compat_internal.js itself; the threaded and JSPI builds are only used when asked for.
// - `loadAndCompile(bytes or url, {accelerator: "wasm"})` -> a CompiledModel whose `signatures` are keyed
//   by signature name; `model.run("decode_step", {name: Tensor})` -> {name: Tensor}.
// - Tensors live in WASM memory: every Tensor made or returned must be `delete()`d.
// - Shapes must be static. Our standard .tflite has batch -1 (Python resizes it); LiteRT.js rejects a
//   [1, S] tensor for a [-1, S] input, and even past that check its decode_step has dynamic-size outputs
//   it cannot bind. The model this runtime loads must be exported with batch fixed at 1.

import { loadLiteRt, loadAndCompile, Tensor } from "@litertjs/core";

import { padSource } from "./decode.js";

let loading = null;

/** LiteRT's own log lines: its INFO and WARNING ones, written on every start ("Creating LiteRT environment", "NPU
 * accelerator could not be loaded"), to console.debug; the rest (errors) to console.error, as before. */
const liteRtLog = (line) => (/^(INFO|WARNING): /.test(line) ? console.debug(line) : console.error(line));

/** Load the LiteRT.js WASM runtime from `wasmFolder` (once; later calls return the same promise). */
export function initLiteRt(wasmFolder) {
  if (!loading) {
    // Emscripten's options, which LiteRT.js hands the WASM from `self.Module` (then clears it): where its log lines
    // go (its default is console.error for all). A Module set by the caller (litert_node.js) stays.
    globalThis.Module ??= { print: liteRtLog, printErr: liteRtLog };
    loading = loadLiteRt(wasmFolder);
  }
  return loading;
}

const elements = (shape) => shape.reduce((a, b) => a * b, 1);

/**
 * options: model (Uint8Array | ArrayBuffer | URL string of the .tflite), manifest (manifest.json, parsed),
 * accelerator ("wasm", the default, or "webgpu"). Call initLiteRt first.
 */
export async function createLiteRtRuntime({ model, manifest, accelerator = "wasm" }) {
  if (!loading) throw new Error("call initLiteRt(wasmFolder) before createLiteRtRuntime");
  await loading;
  const compiled = await loadAndCompile(model instanceof ArrayBuffer ? new Uint8Array(model) : model,
    { accelerator });
  const signatures = compiled.signatures;
  for (const key of ["encode", "decode_step"]) {
    if (!signatures[key]) {
      compiled.delete();
      throw new Error(`the .tflite has no "${key}" signature`);
    }
  }
  // encode_<L>/decode_step_<L>: the same model for sources of at most L ids (16, 32, 64...), sharing the weights;
  // a source is encoded at the shortest that holds it, not at S (studio/runtimes/signatures.py)
  const buckets = Object.keys(signatures).map((key) => /^encode_(\d+)$/.exec(key)).filter(Boolean)
    .map((match) => Number(match[1])).filter((length) => signatures[`decode_step_${length}`])
    .sort((a, b) => a - b);
  const keys = ["encode", "decode_step", ...buckets.flatMap((length) => [`encode_${length}`, `decode_step_${length}`])];
  for (const key of keys) {
    for (const input of signatures[key].getInputDetails()) {
      if (input.shape.some((dim) => dim < 0)) {
        compiled.delete();
        throw new Error(`${key} input ${input.name} has a dynamic shape [${input.shape}]: LiteRT.js needs ` +
          "static shapes; use the .tflite exported for the web (batch fixed at 1)");
      }
    }
  }
  const S = manifest.max_source_len;
  const pad = manifest.special_ids.pad;
  const cacheInputs = signatures.decode_step.getInputDetails().filter((d) => d.name.startsWith("cache_"));

  const deleteAll = (tensors) => Object.values(tensors).forEach((tensor) => tensor.delete());

  return {
    name: "litert",
    maxSourceLen: S,
    maxTargetLen: manifest.max_target_len,

    async encode(sourceIds) {
      const length = buckets.find((b) => sourceIds.length <= b) ?? S;
      const source = padSource(sourceIds, length, pad); // each signature takes exactly its length of ids
      const input = new Tensor(source, [1, length]);
      const suffix = length < S ? `_${length}` : "";
      let encoded;
      try {
        encoded = await compiled.run(`encode${suffix}`, { source_ids: input }); // source_mask, cross_k_<i>, ...
      } finally {
        input.delete();
      }
      const cache = {}; // the self-attention cache starts as zeros: [1, heads, C, head_dim]
      try {
        for (const { name, shape } of cacheInputs) {
          cache[name] = new Tensor(new Float32Array(elements(shape)), [...shape]);
        }
      } catch (error) {
        deleteAll(cache);
        deleteAll(encoded);
        throw error;
      }
      return { cache, encoded, step: `decode_step${suffix}` };
    },

    // On success the input state's cache is deleted (this step's outputs replace it); on an error nothing
    // of the input state is, and nothing made here is left behind.
    async step(state, token, position) {
      const inputs = { tokens: new Tensor(Int32Array.of(token), [1]) };
      let outputs;
      try {
        inputs.position = new Tensor(Int32Array.of(position), []); // a scalar
        outputs = await compiled.run(state.step, { ...state.encoded, ...state.cache, ...inputs });
      } finally {
        deleteAll(inputs);
      }
      let logits;
      try {
        logits = outputs.logits.toTypedArray(); // a copy out of WASM memory
      } catch (error) {
        deleteAll(outputs);
        throw error;
      }
      outputs.logits.delete();
      deleteAll(state.cache);
      const cache = {};
      for (const { name } of cacheInputs) cache[name] = outputs[`new_${name}`];
      return { logits, state: { cache, encoded: state.encoded, step: state.step } };
    },

    /** A state with its own copy of the cache (copied where the cache lives), sharing the encoder outputs. */
    async fork(state) {
      const cache = {};
      try {
        for (const [name, tensor] of Object.entries(state.cache)) cache[name] = await tensor.copyTo(tensor.accelerator);
      } catch (error) {
        deleteAll(cache);
        throw error;
      }
      return { cache, encoded: state.encoded, step: state.step };
    },

    /** Free one state's cache; the encoder outputs stay for the other states of the same source. */
    drop(state) {
      deleteAll(state.cache);
    },

    /** Free the state's cache and the encoder outputs: the last state of a decode. */
    release(state) {
      deleteAll(state.cache);
      deleteAll(state.encoded);
    },

    dispose() {
      compiled.delete();
    },
  };
}
