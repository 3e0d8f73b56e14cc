// Beam search (and the logit constraints it shares with greedy) on a table-driven fake runtime: the cases
// and expected ids of tests/unit/test_decoding.py, where Python's Beam computes the same.
import assert from "node:assert/strict";
import { test } from "node:test";

import { generate, lengthCap, logSumExp, repeatedNgramEnds, topTokens } from "../src/decode.js";
import { CAP_EXTRA, CAP_RATIO } from "../src/generated/constants.js";

const [PAD, BOS, EOS, A, B, C, D] = [0, 1, 2, 3, 4, 5, 6];
const V = 7;

// table[source][previous] = next-token probabilities (a missing previous token: only </s>).
// Source A: greedy takes B (0.5) and then has only weak choices; beam finds C (0.4) then D (0.9).
const TABLE = {
  [A]: { [BOS]: { [B]: 0.5, [C]: 0.4, [EOS]: 0.1 }, [B]: { [A]: 0.4, [D]: 0.25, [EOS]: 0.35 },
    [C]: { [D]: 0.9, [EOS]: 0.1 }, [D]: { [EOS]: 1.0 }, [A]: { [EOS]: 1.0 } },
  [B]: { [BOS]: { [A]: 0.6, [B]: 0.4 }, [A]: { [B]: 0.9, [EOS]: 0.1 }, [B]: { [A]: 0.9, [EOS]: 0.1 } }, // a b a b …
};

/**
 * The Python tests' FakeRuntime at batch 1: logits = log p(next | the source's first id, the token fed),
 * -1e9 elsewhere. States behave as LiteRT.js' do (a stepped, dropped or released state is dead: using one
 * throws), and `counts.live` counts the states not freed yet. `failAt`: { step: n } or { fork: n } throws
 * on the n-th call (1-based).
 */
function tableRuntime({ capacity = 8, failAt = {} } = {}) {
  const counts = { live: 0, steps: 0, forks: 0, drops: 0, releases: 0 };
  const fed = []; // [token, position] of every step
  const alive = (state) => {
    if (state.dead) throw new Error("a freed or stepped state was used");
  };
  const make = (source) => {
    counts.live++;
    return { source, dead: false };
  };
  const kill = (state) => {
    alive(state);
    state.dead = true;
    counts.live--;
  };
  return {
    counts, fed, maxSourceLen: 4, maxTargetLen: capacity,
    async encode(sourceIds) { return make(sourceIds[0]); },
    async step(state, token, position) {
      alive(state);
      if (++counts.steps === failAt.step) throw new Error("step failed");
      fed.push([token, position]);
      const logits = new Float32Array(V).fill(-1e9);
      for (const [next, p] of Object.entries(TABLE[state.source][token] ?? { [EOS]: 1 })) logits[next] = Math.log(p);
      kill(state);
      return { logits, state: make(state.source) };
    },
    async fork(state) {
      alive(state);
      if (++counts.forks === failAt.fork) throw new Error("fork failed");
      return make(state.source);
    },
    drop(state) {
      kill(state);
      counts.drops++;
    },
    release(state) {
      kill(state);
      counts.releases++;
    },
  };
}

const beam = (beamSize, lengthPenalty = 1.0, more = {}) => ({ strategy: "beam", beamSize, lengthPenalty, ...more });

/** Ids of a decode of [source, </s>]; checks that every state was freed and the encoder outputs once. */
async function decodeIds(source, options, runtimeOptions) {
  const runtime = tableRuntime(runtimeOptions);
  const result = await generate(runtime, [source, EOS], options);
  assert.deepEqual([runtime.counts.live, runtime.counts.releases], [0, 1]);
  return result.ids;
}

test("beam search finds the more likely output greedy misses; beam size 1 is greedy, streamed", async () => {
  // p(C D </s>) = 0.36 > p(B A </s>) = 0.2
  assert.deepEqual(await decodeIds(A, beam(3, 0.0)), [C, D]);
  assert.deepEqual(await decodeIds(A, {}), [B, A]);
  const streamed = [];
  const result = await generate(tableRuntime(), [A, EOS], beam(1, 1.0, { onToken: (id) => streamed.push(id) }));
  assert.deepEqual([result.ids, streamed, result.alternatives], [[B, A], [B, A], undefined]);
});

test("each source gets its most likely finished output, as Python's batched beam search", async () => {
  assert.deepEqual(await decodeIds(A, beam(4, 0.0)), [C, D]);
  // source B: greedy loops without end; the most likely finished output is A </s> (0.6 x 0.1)
  assert.deepEqual(await decodeIds(B, beam(4, 0.0)), [A]);
  // with length penalty 1, A B </s> (log(0.6 x 0.9 x 0.1) / 3) beats A </s> (log(0.06) / 2)
  assert.deepEqual(await decodeIds(B, beam(4, 1.0)), [A, B]);
});

test("finished hypotheses come back best first, distinct, with Python's normalized scores", async () => {
  const check = async (options, expected) => {
    const { alternatives, stop } = await generate(tableRuntime(), [A, EOS], options);
    assert.equal(stop, "eos");
    assert.deepEqual(alternatives.map((a) => a.ids), expected.map(([, ids]) => ids));
    for (const [i, [score]] of expected.entries()) assert.ok(Math.abs(alternatives[i].score - score) < 1e-6);
  };
  // Beam.alternatives in Python: p(C D) = 0.36 > p(B A) = 0.2 > p(B) = 0.5 x 0.35 (> p(B D) = 0.125)
  await check(beam(3, 0.0), [[-1.021651238030668, [C, D]], [-1.609437906473635, [B, A]], [-1.7429692384896263, [B]]]);
  await check(beam(4, 1.0), [[-0.3405504126768893, [C, D]], [-0.5364793021578783, [B, A]],
    [-0.6931471704541837, [B, D]], [-0.8714846192448131, [B]]]);
});

test("lengths: the best live hypothesis when none ends, maxNewTokens, lengthCap (Python's caps)", async () => {
  const runtime = tableRuntime();
  const looping = await generate(runtime, [B, EOS], beam(2, 0.0));
  assert.deepEqual([looping.ids, looping.stop], [[A, B, A, B, A, B, A, B], "length"]);
  assert.equal(looping.timings.steps, 8); // the cache capacity
  assert.deepEqual(await decodeIds(B, beam(3, 0.0, { maxNewTokens: 3 })), [A]);
  // at 3 tokens (</s> included) only </s> is possible: "a b a b …" has to end
  assert.deepEqual(await decodeIds(B, beam(3, 0.0, { lengthCap: 3 })), [A, B]);
  assert.equal(lengthCap(4), Math.ceil(CAP_RATIO * 4) + CAP_EXTRA); // guards.length_cap
});

test("no repeated n-grams, and no </s> before minNewTokens (greedy and beam, as Python)", async () => {
  assert.deepEqual(await decodeIds(B, beam(2, 0.0)), [A, B, A, B, A, B, A, B]);
  assert.deepEqual(await decodeIds(B, beam(2, 0.0, { noRepeatNgram: 2 })), [A, B, A]);
  assert.deepEqual(await decodeIds(B, { noRepeatNgram: 2 }), [A, B, A]);
  assert.deepEqual(await decodeIds(A, { minNewTokens: 3 }), [B, A, PAD]);
  assert.deepEqual(repeatedNgramEnds([A, B, A], 2), [B]); // "a b" is there: after "a", b is banned
  assert.deepEqual(repeatedNgramEnds([A, B, C, A, B], 3), [C]);
  assert.deepEqual(repeatedNgramEnds([A, B], 1), [A, B]);
  assert.deepEqual(repeatedNgramEnds([A], 3), []);
});

test("the first step runs one hypothesis; the kept ones fork from it; beam does not stream", async () => {
  const runtime = tableRuntime();
  let called = 0;
  const result = await generate(runtime, [A, EOS], beam(4, 0.0, { onToken: () => called++ }));
  // Python runs batches of 1, then 4, 4 rows: the hypotheses B, C and two -1e9 ones (kept as Python keeps them)
  assert.deepEqual(runtime.fed.slice(0, 1), [[BOS, 0]]);
  assert.equal(runtime.fed.filter(([, position]) => position === 1).length, 4);
  assert.deepEqual([result.timings.steps, result.timings.modelSteps], [3, 9]);
  assert.ok(runtime.counts.forks >= 3);
  assert.equal(called, 0);
  assert.ok(result.timings.firstTokenMs >= result.timings.encodeMs && result.timings.msPerToken >= 0);
});

test("every state is freed, the encoder outputs once: on errors and on abort too", async () => {
  for (const failAt of [{ step: 1 }, { step: 2 }, { step: 7 }, { fork: 1 }, { fork: 4 }]) {
    const runtime = tableRuntime({ failAt });
    await assert.rejects(generate(runtime, [A, EOS], beam(4, 0.0)), /failed/);
    assert.deepEqual([runtime.counts.live, runtime.counts.releases], [0, 1], JSON.stringify(failAt));
  }
  const controller = new AbortController();
  const runtime = tableRuntime();
  const step = runtime.step;
  runtime.step = async (...args) => {
    if (runtime.counts.steps === 5) controller.abort(); // during position 3 (1 + 2 + 2 steps before it)
    return step(...args);
  };
  const result = await generate(runtime, [B, EOS], beam(2, 0.0, { signal: controller.signal })); // loops
  assert.deepEqual([result.stop, result.timings.steps, result.ids.length], ["aborted", 4, 4]); // the best live one
  assert.deepEqual([runtime.counts.live, runtime.counts.releases], [0, 1]);
});

test("beam options are validated as DecodeOptions.validate; beam needs runtime.fork", async () => {
  const reject = (options, pattern, runtime = tableRuntime()) =>
    assert.rejects(generate(runtime, [A, EOS], options), pattern);
  await reject(beam(0), /beam size must be at least 1/);
  await reject(beam(2.5), /beam size must be at least 1/);
  await reject(beam(4, 1, { noRepeatNgram: -1 }), /cannot be negative/);
  await reject(beam(4, Number.NaN), /length penalty/);
  await reject(beam(4, 1, { lengthCap: 0 }), /length cap/);
  const { fork, ...noFork } = tableRuntime();
  await reject(beam(4), /runtime.fork/, noFork);
});

test("topTokens: best first, the lower id on equal logits, finite only; logSumExp", () => {
  const logits = Float32Array.of(0.5, 2, -Infinity, 2, 1, -1e9);
  assert.deepEqual(topTokens(logits, 3), [1, 3, 4]);
  assert.deepEqual(topTokens(logits, 10), [1, 3, 4, 0, 5]);
  const exact = Math.log([0.5, 2, 2, 1].reduce((sum, x) => sum + Math.exp(x), 0));
  assert.ok(Math.abs(logSumExp(logits) - exact) < 1e-6);
});
