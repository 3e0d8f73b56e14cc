// The decode loop over a scripted fake runtime: no model needed.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  argmax, generate, generateUnlooped, isDegenerate, lengthCap, padSource, RETRY_NO_REPEAT, sampleToken, seededRandom,
} from "../src/decode.js";

/** A runtime whose step t puts the most weight on script[t] (and records what it was fed). */
function fakeRuntime(script, vocab = 8, capacity = 10) {
  const fed = [];
  return {
    fed,
    maxSourceLen: 6,
    maxTargetLen: capacity,
    released: false,
    async encode(sourceIds) { return { source: padSource(sourceIds, 6) }; },
    async step(state, token, position) {
      fed.push([token, position]);
      const logits = new Float32Array(vocab).fill(-5);
      logits[script[position] ?? 2] = 5;
      logits[(script[position] ?? 2) === 7 ? 6 : 7] = 4; // a runner-up
      return { logits, state };
    },
    release() { this.released = true; },
  };
}

test("greedy: <s> at position 0, each token fed back, stops at </s> (not in the output)", async () => {
  const runtime = fakeRuntime([4, 5, 6, 2, 7]);
  const streamed = [];
  const result = await generate(runtime, [3, 4, 2], { onToken: (id) => streamed.push(id) });
  assert.deepEqual(result.ids, [4, 5, 6]);
  assert.deepEqual(streamed, [4, 5, 6]);
  assert.deepEqual(runtime.fed, [[1, 0], [4, 1], [5, 2], [6, 3]]);
  assert.equal(result.stop, "eos");
  assert.equal(result.timings.steps, 4);
  assert.ok(result.timings.firstTokenMs >= 0 && result.timings.msPerToken >= 0);
  assert.ok(runtime.released);
});

test("at most maxTargetLen steps, or maxNewTokens", async () => {
  const never = Array(20).fill(5);
  assert.equal((await generate(fakeRuntime(never), [2])).ids.length, 10);
  const result = await generate(fakeRuntime(never), [2], { maxNewTokens: 3 });
  assert.deepEqual([result.ids.length, result.stop], [3, "length"]);
  assert.equal((await generate(fakeRuntime(never), [2], { maxNewTokens: 99 })).ids.length, 10);
});

test("an aborted signal stops the loop", async () => {
  const controller = new AbortController();
  const result = await generate(fakeRuntime(Array(20).fill(5)), [2], {
    signal: controller.signal, onToken: (id, ids) => ids.length === 2 && controller.abort(),
  });
  assert.deepEqual([result.ids.length, result.stop], [2, "aborted"]);
});

test("argmax takes the first of equal maxima", () => {
  assert.equal(argmax(Float32Array.of(1, 3, 3, 0)), 1);
});

test("sampling: seeded repeats; top-k 1 and a tiny top-p are greedy; filters are respected", () => {
  const logits = Float32Array.of(0, 2, 1.5, -1, 1.9);
  const draw = (options, seed, n = 200) => {
    const random = seededRandom(seed);
    return Array.from({ length: n }, () => sampleToken(logits, options, random));
  };
  assert.deepEqual(draw({}, 7), draw({}, 7));
  assert.ok(new Set(draw({}, 7)).size > 2);
  assert.deepEqual(new Set(draw({ topK: 1 }, 1)), new Set([1]));
  assert.deepEqual(new Set(draw({ topP: 0.01 }, 1)), new Set([1]));
  assert.deepEqual(new Set(draw({ topK: 2 }, 3)), new Set([1, 4]));
  // p = softmax: 0.07 0.38 0.23 0.02 0.30: top-p 0.5 keeps 1 and 4 (0.38 < 0.5, then 0.68)
  assert.deepEqual(new Set(draw({ topP: 0.5 }, 3)), new Set([1, 4]));
  assert.deepEqual(new Set(draw({ temperature: 0.01 }, 5)), new Set([1]));
});

test("generate with sampling is repeatable with a seed; options are validated", async () => {
  const a = await generate(fakeRuntime([4, 5, 6, 2]), [2], { strategy: "sample", seed: 3, temperature: 5 });
  const b = await generate(fakeRuntime([4, 5, 6, 2]), [2], { strategy: "sample", seed: 3, temperature: 5 });
  assert.deepEqual(a.ids, b.ids);
  await assert.rejects(generate(fakeRuntime([2]), [2], { strategy: "shout" }), /unknown decoding strategy/);
  await assert.rejects(generate(fakeRuntime([2]), [2], { strategy: "sample", temperature: 0 }), /temperature/);
});

test("padSource pads with 0 to the graph's length and refuses longer sources", () => {
  assert.deepEqual([...padSource([5, 2], 4)], [5, 2, 0, 0]);
  assert.throws(() => padSource([1, 2, 3], 2), /at most 2/);
});

test("isDegenerate spots an n-gram (n <= 4) three times in a row: Python's guards.is_degenerate cases", () => {
  const cases = [[[5, 5, 5], true], [[5, 6, 5, 6, 5, 6], true], [[1, 2, 3, 1, 2, 3, 1, 2, 3], true],
    [[5, 5, 6, 5, 5], false], [[1, 2, 3, 4, 1, 2, 3, 4], false], [[], false],
    [[9, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4], true], [[1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5], false]];
  for (const [ids, loop] of cases) assert.equal(isDegenerate(ids), loop, JSON.stringify(ids));
});

/** A runtime whose best token is always `token` and whose runner-up is </s>: greedy loops on it until the cap. */
function loopingRuntime(token = 4, capacity = 10) {
  let encodes = 0;
  return {
    maxSourceLen: 6,
    maxTargetLen: capacity,
    get encodes() { return encodes; },
    async encode() { encodes++; return {}; },
    async step(state) {
      const logits = new Float32Array(8).fill(-5);
      logits[token] = 5;
      logits[2] = 4;
      return { logits, state };
    },
  };
}

test("a looping output is decoded again with repeated 2-grams banned (TextGenerator._unloop)", async () => {
  const runtime = loopingRuntime();
  const streamed = [];
  let steps = 0;
  const result = await generateUnlooped(runtime, [3, 2], { onToken: (id) => streamed.push(id), onStep: () => steps++ });
  // first [4 x 10]; the retry may write "4 4" once, then the bigram is banned and </s> is next best
  assert.deepEqual([result.ids, result.stop, result.retried, runtime.encodes], [[4, 4], "eos", true, 2]);
  assert.equal(streamed.length, 10); // only the first pass streams
  assert.equal(steps, 10 + 2); // onStep goes on in the retry (a page keeps taking clicks)
  assert.equal(RETRY_NO_REPEAT, 2);
});

test("no retry when the output is no loop, when n-grams are banned already, or after a Stop", async () => {
  const plain = await generateUnlooped(fakeRuntime([4, 5, 6, 2]), [2]);
  assert.deepEqual([plain.ids, plain.retried], [[4, 5, 6], false]);
  const banned = await generateUnlooped(loopingRuntime(), [2], { noRepeatNgram: 3 });
  assert.deepEqual([banned.ids, banned.retried], [[4, 4, 4], false]); // "4 4 4" is a loop, but the caller chose n = 3
  const controller = new AbortController();
  const runtime = loopingRuntime();
  const stopped = await generateUnlooped(runtime, [2], {
    signal: controller.signal, onToken: (id, ids) => ids.length === 5 && controller.abort(),
  });
  assert.deepEqual([stopped.ids.length, stopped.stop, stopped.retried, runtime.encodes], [5, "aborted", false, 1]);
});

test("a Stop during the retry keeps the first output; a length cap ends a loop early", async () => {
  const controller = new AbortController();
  let steps = 0;
  const result = await generateUnlooped(loopingRuntime(), [2], {
    signal: controller.signal, onStep: () => ++steps === 11 && controller.abort(), // the retry's first step
  });
  assert.deepEqual([result.ids.length, result.stop, result.retried], [10, "aborted", false]);
  // the translator's cap (guards.length_cap of a 2-id source) within the 40 positions
  const capped = await generate(loopingRuntime(4, 40), [3, 2], { lengthCap: lengthCap(2) });
  assert.deepEqual([capped.ids.length, capped.stop], [lengthCap(2) - 1, "eos"]);
});
