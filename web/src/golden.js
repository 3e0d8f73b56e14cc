// Golden-data helpers shared by the Node tests (scripts/golden-data.mjs) and the page's ?golden=1 mode.
// golden.json is written by the Python export (exporters/golden.py): sentences with their source ids,
// the reference greedy ids (per .tflite file in greedy_ids_by_file), beam search's ids (beam_ids, per
// dynamic-batch .tflite file in beam_ids_by_file; settings in golden.beam; absent in older golden data)
// and the step-0 logits.

/** The standard export with the same quantization as a .tflite file name (float32, float16 or int8). */
export function standardTflite(name) {
  if (name.includes("int8")) return "model.int8.tflite";
  if (name.includes("float16")) return "model.float16.tflite";
  return "model.tflite";
}

/**
 * The ids golden.json expects from a .tflite, greedy (kind "greedy") or beam search ("beam"): by file name,
 * else by quantization, else the fp32 graph's (greedy_ids / beam_ids).
 */
export function expectedIds(sentence, tfliteName = "model.tflite", kind = "greedy") {
  const byFile = sentence[`${kind}_ids_by_file`] ?? {};
  return byFile[tfliteName] ?? byFile[standardTflite(tfliteName)] ?? sentence[`${kind}_ids`];
}

/** generate() options for golden.json's beam search, or null when the golden data has no beam ids. */
export function beamOptions(golden) {
  if (!golden.beam) return null;
  const { bos, eos } = golden.special_ids;
  const { size, length_penalty: lengthPenalty } = golden.beam;
  return { strategy: "beam", beamSize: size, lengthPenalty, bosId: bos, eosId: eos };
}

// an imported model's logits for the ids it never writes carry a bias of -1e4 (studio/importers/marian.py NEVER),
// where float32 keeps steps of 0.001: the ids whose reference logit is below this are not compared
const NEVER_WRITTEN = -1e3;

/** The largest absolute difference between two arrays of logits of equal length (`b` the reference). */
export function maxAbsDiff(a, b) {
  let max = 0;
  for (let i = 0; i < a.length; i++) if (b[i] > NEVER_WRITTEN) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/** Step-0 logits for a source: encode, then one step with <s> at position 0. */
export async function step0Logits(runtime, sourceIds, bosId = 1) {
  const state = await runtime.encode(Int32Array.from(sourceIds));
  const { logits, state: after } = await runtime.step(state, bosId, 0);
  runtime.release?.(after);
  return logits;
}
