// The decode loop, for one sentence at a time (batch 1), over any runtime of the exported graphs.
// Ports of studio/text/preprocess.py (prepareSource, finishOutput) and studio/generate/loop.py +
// strategies.py (generate: greedy or sampling). Written to be ported as is to Kotlin or Swift: plain
// arrays and loops, no dependency beyond the pipeline and tokenizer objects passed in.
//
// THE RUNTIME CONTRACT (see onnx_runtime.js, litert_runtime.js):
//   runtime.maxSourceLen, runtime.maxTargetLen   S and C of the exported graphs
//   await runtime.encode(sourceIds)              sourceIds: Int32Array of at most S ids (ending in </s>);
//                                                the runtime pads them with <pad> (0) to exactly S.
//                                                -> state (the cross-attention K/V, the source mask and
//                                                   an all-zero self-attention cache [1, heads, C, head_dim])
//   await runtime.step(state, token, position)   feeds `token` at `position` (0, 1, 2, ...: the cache row
//                                                this step writes) -> { logits: Float32Array[V], state }
//   runtime.release?.(state)                     optional: free the state's native memory
//
// THE LOOP: token = <s> (1) at position 0; each step picks the next token from the logits (argmax, or a
// sample); </s> (2) ends the output; at most C steps (the cache capacity). The output excludes <s>/</s>.

import { pyStrip } from "./normalize.js";

export const PAD_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;

export const UNREADABLE =
  "the input has no characters this model reads (with the tutorial pipeline: Korean, Latin letters, " +
  "digits, punctuation; otherwise only invisible characters); the output is a guess from an empty input";

/**
 * Text -> the source ids the model reads: normalize (pipeline.source), tokenize, keep at most
 * maxSourceLen - 1 ids (a warning says when some were cut), append </s>. Returns { ids, normalized, warnings }.
 */
export function prepareSource(text, pipeline, tokenizer, maxSourceLen, eosId = EOS_ID) {
  const warnings = [];
  const normalized = pipeline.source(text);
  if (!normalized && pyStrip(text)) warnings.push(UNREADABLE);
  let ids = tokenizer.encode(normalized);
  const limit = maxSourceLen - 1; // room for </s>
  if (ids.length > limit) {
    warnings.push(`input was ${ids.length} tokens; only the first ${limit} were used ` +
      `(this model reads at most ${limit})`);
    ids = ids.slice(0, limit);
  }
  return { ids: [...ids, eosId], normalized, warnings };
}

/** Generated ids (without <s>/</s>) -> the text to show: detokenize, then pipeline.output (tidy spacing). */
export function finishOutput(ids, pipeline, tokenizer) {
  return pipeline.output(tokenizer.decode(ids));
}

/** Source ids padded with <pad> to exactly `length` (the exported graphs take sources of length S). */
export function padSource(sourceIds, length, padId = PAD_ID) {
  if (sourceIds.length > length) {
    throw new Error(`source has ${sourceIds.length} tokens; the exported graph takes at most ${length}`);
  }
  const padded = new Int32Array(length).fill(padId);
  padded.set(sourceIds);
  return padded;
}

// ---- choosing tokens ----

/** The index of the largest logit (the first one on ties, as numpy's argmax). */
export function argmax(logits) {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** A seeded PRNG (mulberry32): uniform numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Sample a token from softmax(logits / temperature), restricted to the topK largest logits (0: all; ties at
 * the k-th value stay) and to the smallest set of most likely tokens whose probability reaches topP (1: all;
 * always at least the best token). The same filters as strategies.py; `random` returns numbers in [0, 1).
 */
export function sampleToken(logits, { temperature = 1, topK = 0, topP = 1 }, random = Math.random) {
  const V = logits.length;
  const scores = new Float64Array(V);
  for (let i = 0; i < V; i++) scores[i] = logits[i] / temperature;
  if (topK > 0 && topK < V) {
    const kth = Float64Array.from(scores).sort()[V - topK]; // the k-th largest
    for (let i = 0; i < V; i++) if (scores[i] < kth) scores[i] = -Infinity;
  }
  // candidates, best first (the filtered-out ones cannot be drawn; leaving them out keeps the sort short)
  const order = [];
  for (let i = 0; i < V; i++) if (scores[i] > -Infinity) order.push(i);
  order.sort((a, b) => scores[b] - scores[a]);
  const best = scores[order[0]];
  const weights = order.map((i) => Math.exp(scores[i] - best));
  let total = weights.reduce((sum, w) => sum + w, 0);
  if (topP < 1) {
    let kept = 0;
    let before = 0; // probability mass of the tokens before this one
    while (kept < order.length && before < topP) {
      before += weights[kept] / total;
      kept++;
    }
    order.length = weights.length = kept;
    total = weights.reduce((sum, w) => sum + w, 0);
  }
  let r = random() * total;
  for (let j = 0; j < order.length; j++) {
    r -= weights[j];
    if (r < 0) return order[j];
  }
  return order[order.length - 1];
}

// ---- the loop ----

/** The checks of DecodeOptions.validate (options.py); beam search is not ported. */
function validateOptions(strategy, temperature, topK, topP, maxNewTokens) {
  if (strategy !== "greedy" && strategy !== "sample") {
    throw new Error(`unknown decoding strategy ${JSON.stringify(strategy)}; choose greedy or sample`);
  }
  if (!(temperature > 0)) throw new Error("temperature must be positive");
  if (!(topP > 0 && topP <= 1)) throw new Error("top-p must be in (0, 1]");
  if (!(topK >= 0)) throw new Error("top-k cannot be negative");
  if (maxNewTokens != null && !(maxNewTokens >= 1)) throw new Error("max new tokens must be at least 1");
}

/**
 * Generate the output ids for one source.
 *
 * options:
 *   maxNewTokens   at most this many steps (</s> included); default and upper bound: runtime.maxTargetLen
 *   strategy       "greedy" (default) or "sample"
 *   temperature, topK, topP, seed   sampling only (seed: a number for repeatable samples)
 *   onToken(id, ids)   called after each generated token (not </s>), ids = the output so far: streaming.
 *                  When it returns a promise, the loop waits for it (a page lets the browser paint there).
 *   signal         an AbortSignal: stop after the current step when it is aborted
 *   bosId, eosId   special ids (default 1, 2)
 *
 * Returns { ids, stop: "eos" | "length" | "aborted", timings } where timings (milliseconds):
 *   encodeMs       the encoder
 *   firstTokenMs   encoder + first decode step: the wait before the first token
 *   msPerToken     mean time of each later step (the first step's time when there is only one)
 *   totalMs        wall time of the whole call (onToken included); steps: decode steps run
 * Step times count the model and the token choice, not the onToken callbacks.
 */
export async function generate(runtime, sourceIds, options = {}) {
  const {
    strategy = "greedy", temperature = 1, topK = 0, topP = 1, seed = null,
    onToken = null, signal = null, bosId = BOS_ID, eosId = EOS_ID,
  } = options;
  validateOptions(strategy, temperature, topK, topP, options.maxNewTokens);
  const limit = Math.min(options.maxNewTokens ?? runtime.maxTargetLen, runtime.maxTargetLen);
  const random = seed === null ? Math.random : seededRandom(seed);
  const choose = strategy === "sample"
    ? (logits) => sampleToken(logits, { temperature, topK, topP }, random)
    : argmax;

  const started = performance.now();
  let state = await runtime.encode(Int32Array.from(sourceIds));
  const encodeMs = performance.now() - started;
  const ids = [];
  let stop = "length";
  let steps = 0;
  let firstStepMs = null; // model time only: the onToken callbacks are not counted
  let laterStepsMs = 0;
  try {
    let token = bosId;
    for (let position = 0; position < limit; position++) {
      if (signal?.aborted) {
        stop = "aborted";
        break;
      }
      const stepStarted = performance.now();
      const result = await runtime.step(state, token, position);
      state = result.state;
      token = choose(result.logits);
      const stepMs = performance.now() - stepStarted;
      steps++;
      if (firstStepMs === null) firstStepMs = stepMs;
      else laterStepsMs += stepMs;
      if (token === eosId) {
        stop = "eos";
        break;
      }
      ids.push(token);
      if (onToken) await onToken(token, ids);
    }
  } finally {
    runtime.release?.(state);
  }
  return {
    ids,
    stop,
    timings: {
      encodeMs,
      firstTokenMs: firstStepMs === null ? null : encodeMs + firstStepMs,
      msPerToken: steps > 1 ? laterStepsMs / (steps - 1) : firstStepMs,
      totalMs: performance.now() - started,
      steps,
    },
  };
}
