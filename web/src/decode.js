// The decode loop, for one sentence at a time (batch 1), over any runtime of the exported graphs.
// Ports of studio/text/preprocess.py (prepareSource, finishOutput), studio/generate/loop.py +
// strategies.py + constraints.py (generate: greedy, sampling or beam search) and guards.py (lengthCap, and
// generateUnlooped: TextGenerator's retry of an output caught in a loop). Written to be ported as is
// to Kotlin or Swift: plain arrays and loops, no dependency beyond the pipeline and tokenizer objects passed in and
// the Python package's values (the length cap, the loop guard, DecodeOptions' defaults) in generated/constants.js.
//
// THE RUNTIME CONTRACT (see onnx_runtime.js, litert_runtime.js):
//   runtime.maxSourceLen, runtime.maxTargetLen   S and C of the exported graphs
//   await runtime.encode(sourceIds)              sourceIds: Int32Array of at most S ids (ending in </s>);
//                                                the runtime pads them with <pad> (0) to exactly S.
//                                                -> state (the cross-attention K/V, the source mask and
//                                                   an all-zero self-attention cache [1, heads, C, head_dim])
//   await runtime.step(state, token, position)   feeds `token` at `position` (0, 1, 2, ...: the cache row
//                                                this step writes) -> { logits: Float32Array[V], state }.
//                                                The new state replaces `state`, which may not be used again
//                                                (LiteRT.js frees its cache); if step throws, `state` is intact.
//   await runtime.fork?.(state)                  beam search only: a new state with its own copy of the
//                                                self-attention cache, sharing the read-only encoder outputs
//   runtime.drop?.(state)                        optional: free one state's cache, not the shared encoder outputs
//   runtime.release?.(state)                     optional: free the state's cache and the encoder outputs (once
//                                                per encode, the last state of a decode)
//
// THE LOOP: token = <s> (1) at position 0; each step picks the next token from the logits (argmax, or a
// sample); </s> (2) ends the output; at most C steps (the cache capacity). The output excludes <s>/</s>.
// Beam search keeps `beamSize` hypotheses, each with its own state, stepped one at a time (batch 1).

import {
  CAP_EXTRA, CAP_RATIO, DECODE_DEFAULTS, LOOP_MAX_N, LOOP_REPEATS, RETRIED, RETRY_NO_REPEAT, UNREADABLE,
} from "./generated/constants.js";
import { pyStrip } from "./pystr.js";

// guards.REPEATS, guards.RETRY_NO_REPEAT, inference.RETRIED (the retry's warning), preprocess.UNREADABLE
export { LOOP_REPEATS, RETRIED, RETRY_NO_REPEAT, UNREADABLE };

export const PAD_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;

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

// ---- constraints on the logits (loop.py, constraints.py, strategies.end_capped, guards.length_cap) ----

/** The most tokens (</s> included) Python lets an output of a source of `sourceLength` ids (</s> included)
 * have (guards.length_cap); pass it as generate's lengthCap to decode a translation as the Python app does
 * (the app caps translations only, not chat replies). */
export function lengthCap(sourceLength) {
  return Math.ceil(CAP_RATIO * sourceLength) + CAP_EXTRA;
}

/** Whether some n-gram (n <= maxN) occurs LOOP_REPEATS times back to back: "a a a", "a b a b a b"
 * (guards.is_degenerate). */
export function isDegenerate(ids, maxN = LOOP_MAX_N) {
  for (let n = 1; n <= maxN; n++) {
    for (let start = 0; start + n * LOOP_REPEATS <= ids.length; start++) {
      let repeated = true;
      for (let i = n; i < n * LOOP_REPEATS && repeated; i++) repeated = ids[start + i] === ids[start + (i % n)];
      if (repeated) return true;
    }
  }
  return false;
}

/** The tokens that would complete an n-gram already in `history` (constraints.ban_repeated_ngrams). */
export function repeatedNgramEnds(history, n) {
  const banned = [];
  if (n <= 0 || history.length < n - 1) return banned;
  const prefix = history.length - n + 1; // the last n - 1 tokens start here
  for (let i = 0; i + n - 1 < history.length; i++) {
    let same = true;
    for (let j = 0; j < n - 1 && same; j++) same = history[i + j] === history[prefix + j];
    if (same) banned.push(history[i + n - 1]);
  }
  return banned;
}

/**
 * The logits with Python's constraints, in its order: no </s> before `minNewTokens` tokens, no token that
 * repeats an n-gram (`noRepeatNgram`), no number the source lacks (`figures`: { guard: a figures.js FigureGuard,
 * numbers: sourceNumbers(the source's text) }, or null), only </s> once `position + 1` reaches `cap` (null: no cap). Returns
 * `logits` itself when none applies, else a changed copy.
 */
function constrain(logits, position, history, { eosId, minNewTokens, noRepeatNgram, cap, figures = null }) {
  const early = position < minNewTokens;
  const banned = repeatedNgramEnds(history, noRepeatNgram);
  const invented = figures ? figures.guard.banned(history, figures.numbers) : [];
  const capped = cap !== null && position + 1 >= cap;
  if (!early && banned.length === 0 && invented.length === 0 && !capped) return logits;
  const changed = Float32Array.from(logits);
  if (early) changed[eosId] = -Infinity;
  for (const token of banned) changed[token] = -Infinity;
  for (const token of invented) changed[token] = -Infinity;
  // the guard alone always leaves a token (every number it allows can be finished); with the other constraints it
  // may not: then it gives way (a scan of the row only then, not at every step)
  if (invented.length && (early || banned.length) && !changed.some(Number.isFinite)) {
    changed.set(logits);
    if (early) changed[eosId] = -Infinity;
    for (const token of banned) changed[token] = -Infinity;
  }
  if (capped) {
    changed.fill(-Infinity);
    changed[eosId] = 0;
  }
  return changed;
}

// ---- beam search (strategies.Beam, for one source) ----

/**
 * log(sum(exp(logits))) as constraints.log_sum_exp computes it: the differences and their exp in float32
 * (NumPy on a float32 array), the sum and the log in float64.
 */
export function logSumExp(logits) {
  let top = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > top) top = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.fround(Math.exp(Math.fround(logits[i] - top)));
  return top + Math.log(sum);
}

/** The `count` tokens with the largest finite logits, best first (the lower id first on equal logits). */
export function topTokens(logits, count) {
  const best = []; // token ids, best first
  for (let token = 0; token < logits.length; token++) {
    const value = logits[token];
    if (!Number.isFinite(value)) continue;
    if (best.length === count && value <= logits[best[count - 1]]) continue;
    let at = Math.min(best.length, count - 1);
    while (at > 0 && logits[best[at - 1]] < value) at--;
    best.splice(at, 0, token);
    if (best.length > count) best.pop();
  }
  return best;
}

/**
 * One step of every live hypothesis (in order): its candidates { beam, token, score } for its best
 * min(2 * beamSize, V) tokens, score = the hypothesis' log-probability plus the token's. The hypotheses'
 * states are replaced by the stepped ones (tracked in `owned`).
 */
async function extend(runtime, live, position, search) {
  const candidates = [];
  for (let beam = 0; beam < live.length; beam++) {
    const hypothesis = live[beam];
    const { logits, state } = await runtime.step(hypothesis.state, hypothesis.token, position);
    search.owned.delete(hypothesis.state);
    search.owned.add(state);
    hypothesis.state = state;
    search.modelSteps++;
    const constrained = constrain(logits, position, hypothesis.ids, search);
    const normalizer = logSumExp(constrained);
    for (const token of topTokens(constrained, Math.min(2 * search.beamSize, constrained.length))) {
      const score = hypothesis.score + (constrained[token] - normalizer);
      if (Number.isFinite(score)) candidates.push({ beam, token, score });
    }
  }
  return candidates;
}

/**
 * Python's Beam.advance for one source: walk the 2K best candidates, best first (a stable sort: on equal
 * scores the earlier hypothesis, then the better token). An ending within the K best joins `finished`
 * (length-normalized, </s> counted); the first K others are kept. Returns { kept, done }: done when K
 * hypotheses have finished, when no kept one can beat the best finished one, or when none is kept.
 */
function advance(candidates, live, search) {
  const K = search.beamSize;
  const order = candidates.slice().sort((a, b) => b.score - a.score);
  const kept = [];
  for (let rank = 0; rank < Math.min(order.length, 2 * K); rank++) {
    const candidate = order[rank];
    if (candidate.token === search.eosId) {
      const ids = live[candidate.beam].ids;
      if (rank < K) search.finished.push({ score: search.normalize(candidate.score, ids.length + 1), ids });
    } else {
      kept.push(candidate);
    }
    if (kept.length === K) break;
  }
  let done = kept.length === 0 || search.finished.length >= K;
  if (!done && search.finished.length > 0) {
    const bestFinished = Math.max(...search.finished.map((f) => f.score));
    // a live hypothesis only gets worse; at best it ends at the longest length allowed
    const bestPossible = Math.max(...kept.map((c) =>
      search.lengthPenalty > 0 ? search.normalize(c.score, search.longest + 1) : c.score));
    done = bestPossible < bestFinished;
  }
  return { kept, done };
}

/** The kept candidates as the next live hypotheses: a parent's first child takes its state, the others get
 * forks of it; parents without children are dropped. */
async function nextHypotheses(runtime, live, kept, search) {
  const taken = new Set(); // parents whose state a child has
  const next = [];
  for (const { beam, token, score } of kept) {
    const parent = live[beam];
    let state = parent.state;
    if (taken.has(beam)) {
      state = await runtime.fork(parent.state);
      search.owned.add(state);
    }
    taken.add(beam);
    next.push({ ids: [...parent.ids, token], token, score, state });
  }
  for (let beam = 0; beam < live.length; beam++) {
    if (taken.has(beam)) continue;
    search.owned.delete(live[beam].state);
    runtime.drop?.(live[beam].state);
  }
  return next;
}

/** Free every state a search holds: drop all but one, release that one (and with it the encoder outputs). */
function freeStates(runtime, owned) {
  const states = [...owned];
  owned.clear();
  for (const state of states.slice(1)) runtime.drop?.(state);
  if (states.length) runtime.release?.(states[0]);
}

/** The best of `items` by `score` (the first one on ties, as Python's max). */
function best(items) {
  return items.reduce((top, item) => (item.score > top.score ? item : top));
}

/** Up to `n` distinct finished hypotheses, best first (Beam.alternatives). */
function alternatives(finished, n) {
  const seen = new Set();
  const ranked = [];
  for (const item of finished.slice().sort((a, b) => b.score - a.score)) {
    const key = item.ids.join(",");
    if (!seen.has(key)) {
      seen.add(key);
      ranked.push({ ids: item.ids, score: item.score });
    }
  }
  return ranked.slice(0, n);
}

async function beamSearch(runtime, sourceIds, settings) {
  if (typeof runtime.fork !== "function") {
    throw new Error("beam search needs runtime.fork(state) (see the runtime contract in decode.js)");
  }
  const { beamSize, lengthPenalty, limit, signal, bosId, onStep } = settings;
  const search = {
    ...settings,
    longest: settings.cap ?? limit, // Python's spec.cap(source) without caps
    normalize: (score, length) => score / length ** lengthPenalty,
    finished: [], // { score (normalized), ids }
    owned: new Set(), // every state the search holds, freed at the end whatever happens
    modelSteps: 0,
  };
  const started = performance.now();
  const first = await runtime.encode(Int32Array.from(sourceIds));
  search.owned.add(first);
  const encodeMs = performance.now() - started;
  let live = [{ ids: [], token: bosId, score: 0, state: first }];
  let aborted = false;
  const stepMs = [];
  try {
    for (let position = 0; position < limit; position++) {
      if (signal?.aborted) {
        aborted = true;
        break;
      }
      const stepStarted = performance.now();
      const { kept, done } = advance(await extend(runtime, live, position, search), live, search);
      if (!done) live = await nextHypotheses(runtime, live, kept, search);
      stepMs.push(performance.now() - stepStarted);
      if (done) break;
      if (onStep) await onStep(position);
    }
  } finally {
    freeStates(runtime, search.owned);
  }
  // the best finished hypothesis; if none ended within the limit, the best live one
  // a finished output that writes every year of its source, if one does (Python's figures.keeps_years)
  const years = search.figures?.years;
  const keepsYears = (item) => !years?.size || search.figures.guard.wroteAll(item.ids, years);
  const yearsKept = search.finished.filter(keepsYears);
  const answer = search.finished.length ? best(yearsKept.length ? yearsKept : search.finished) : best(live);
  const stop = aborted ? "aborted" : search.finished.length ? "eos" : "length";
  const searchMs = stepMs.reduce((sum, ms) => sum + ms, 0);
  return {
    ids: answer.ids,
    stop,
    alternatives: alternatives(search.finished, beamSize),
    timings: {
      encodeMs,
      firstTokenMs: stepMs.length ? encodeMs + searchMs : null, // nothing shows before the search ends
      msPerToken: stepMs.length > 1 ? (searchMs - stepMs[0]) / (stepMs.length - 1) : (stepMs[0] ?? null),
      totalMs: performance.now() - started,
      steps: stepMs.length,
      modelSteps: search.modelSteps,
    },
  };
}

// ---- the loop ----

/** The checks of DecodeOptions.validate (options.py), and of the options only JS has. */
function validateOptions(o) {
  if (!["greedy", "beam", "sample"].includes(o.strategy)) {
    throw new Error(`unknown decoding strategy ${JSON.stringify(o.strategy)}; choose greedy, beam or sample`);
  }
  if (!(Number.isInteger(o.beamSize) && o.beamSize >= 1)) throw new Error("beam size must be at least 1");
  if (!Number.isFinite(o.lengthPenalty)) throw new Error("length penalty must be a number");
  if (!(o.temperature > 0)) throw new Error("temperature must be positive");
  if (!(o.topP > 0 && o.topP <= 1)) throw new Error("top-p must be in (0, 1]");
  if (!(o.topK >= 0) || !(Number.isInteger(o.noRepeatNgram) && o.noRepeatNgram >= 0)) {
    throw new Error("top-k and no-repeat-ngram size cannot be negative");
  }
  if (o.maxNewTokens != null && !(o.maxNewTokens >= 1)) throw new Error("max new tokens must be at least 1");
  if (o.lengthCap != null && !(o.lengthCap >= 1)) throw new Error("length cap must be at least 1");
  if (!(o.minNewTokens >= 0)) throw new Error("min new tokens cannot be negative");
}

/**
 * Generate the output ids for one source.
 *
 * options (those DecodeOptions has default to its defaults, DECODE_DEFAULTS):
 *   maxNewTokens   at most this many steps (</s> included); default and upper bound: runtime.maxTargetLen
 *   strategy       "greedy" (default), "sample" or "beam"
 *   temperature, topK, topP, seed   sampling only (seed: a number for repeatable samples)
 *   beamSize, lengthPenalty   beam only: finished hypotheses rank by log-prob / length**lengthPenalty
 *                  (length counts </s>); beamSize 1 is greedy, as in Python
 *   noRepeatNgram  0 (default: off), or n: no n-gram may appear twice in the output
 *   lengthCap      null (default: none), or the most tokens (</s> included): at that length only </s> is
 *                  possible (Python caps each translation at lengthCap(source length); the golden data does not)
 *   minNewTokens   0 (default), or n: no </s> before n tokens (the benchmark's fixed lengths)
 *   figures        null (default), or { guard, numbers, years }: write no number the source lacks (figures.js;
 *                  Python's translator does, DecodeOptions.keep_figures); beam search prefers a finished output
 *                  that writes every one of `years` (a Set)
 *   onToken(id, ids)   called after each generated token (not </s>), ids = the output so far: streaming.
 *                  When it returns a promise, the loop waits for it (a page lets the browser paint there).
 *                  Beam search does not stream (its best hypothesis changes until the end): never called.
 *   onStep(position)   called after each decode position the search goes on from (greedy and sampling: after
 *                  onToken); awaited when it returns a promise (a page lets the browser paint and take a Stop
 *                  click there)
 *   signal         an AbortSignal: stop after the current step when it is aborted (beam: the best so far)
 *   bosId, eosId   special ids (default 1, 2)
 *
 * Returns { ids, stop: "eos" | "length" | "aborted", timings } where timings (milliseconds):
 *   encodeMs       the encoder
 *   firstTokenMs   encoder + first decode step: the wait before the first token
 *                  (beam: encoder + the whole search, the wait before the output)
 *   msPerToken     mean time of each later step (the first step's time when there is only one); beam: of
 *                  each later position, every live hypothesis stepped
 *   totalMs        wall time of the whole call (onToken included); steps: decode steps run (beam: positions;
 *                  modelSteps: runtime.step calls)
 * Step times count the model and the token choice, not the onToken callbacks.
 * Beam search also returns alternatives: up to beamSize distinct finished outputs, best first, as
 * { ids, score } (score: the length-normalized log-probability).
 */
export async function generate(runtime, sourceIds, options = {}) {
  const D = DECODE_DEFAULTS; // DecodeOptions' defaults
  const {
    strategy = D.strategy, temperature = D.temperature, topK = D.topK, topP = D.topP, seed = null,
    beamSize = D.beamSize, lengthPenalty = D.lengthPenalty, noRepeatNgram = D.noRepeatNgram, lengthCap = null,
    minNewTokens = 0, onToken = null, onStep = null, signal = null, bosId = BOS_ID, eosId = EOS_ID, figures = null,
  } = options;
  validateOptions({ strategy, temperature, topK, topP, beamSize, lengthPenalty, noRepeatNgram, lengthCap,
    minNewTokens, maxNewTokens: options.maxNewTokens });
  const limit = Math.min(options.maxNewTokens ?? runtime.maxTargetLen, runtime.maxTargetLen);
  const cap = lengthCap === null ? null : Math.min(lengthCap, limit); // Python's spec.cap(source)
  const constraints = { eosId, minNewTokens: Math.min(minNewTokens, limit), noRepeatNgram, cap, figures };
  if (strategy === "beam" && beamSize > 1) {
    return beamSearch(runtime, sourceIds, { ...constraints, beamSize, lengthPenalty, limit, signal, bosId, onStep });
  }
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
      token = choose(constrain(result.logits, position, ids, constraints));
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
      if (onStep) await onStep(position);
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

/**
 * generate(), and, when its output is caught in a loop (isDegenerate), generate() again with repeated
 * RETRY_NO_REPEAT-grams banned, whose output replaces it: TextGenerator._unloop (inference.py). Not when the
 * options ban repeated n-grams already, nor after a Stop (the first output is kept, stop "aborted", when the retry
 * is stopped). The retry is not streamed (onToken is not called; onStep is). Returns generate's result with
 * `retried` (true when the retry's output is the answer) and timings.totalMs counting both.
 */
export async function generateUnlooped(runtime, sourceIds, options = {}) {
  const first = await generate(runtime, sourceIds, options);
  if (first.stop === "aborted" || options.noRepeatNgram || !isDegenerate(first.ids)) {
    return { ...first, retried: false };
  }
  const again = await generate(runtime, sourceIds, { ...options, noRepeatNgram: RETRY_NO_REPEAT, onToken: null });
  if (again.stop === "aborted") return { ...first, stop: "aborted", retried: false };
  const totalMs = first.timings.totalMs + again.timings.totalMs;
  return { ...again, retried: true, timings: { ...again.timings, totalMs } };
}
