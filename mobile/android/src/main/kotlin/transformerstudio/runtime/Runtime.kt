package transformerstudio.runtime

/**
 * One source's decoder state: the encoder's outputs (cross-attention K/V, the source mask) and a
 * self-attention cache. Opaque to the decode loop; only the [Runtime] that made it may read it.
 * A state is used by one thread at a time.
 */
interface DecoderState

/** What one decode step gives: the logits over the target vocabulary and the state to step next. */
class StepResult(val logits: FloatArray, val state: DecoderState)

/**
 * The exported graphs of one model, run one token at a time at batch 1: the contract of web/src/decode.js
 * (and of studio/runtimes/base.py at batch 1), and [stepAll] for beam search's hypotheses.
 *
 * - [encode] takes at most [maxSourceLen] source ids (ending in `</s>`); the runtime pads them with `<pad>`.
 *   It returns a state whose self-attention cache is all zeros.
 * - [step] feeds `token` at `position` (0, 1, 2, ...: the cache row this step writes) and returns the
 *   logits and the new state. The new state replaces `state`, which may not be used again; if `step` throws,
 *   `state` is intact.
 * - [stepAll] steps several states of one source at one position: by default a [step] each; a runtime whose
 *   graphs take a batch runs them in one call.
 * - [fork] (beam search) gives a new state with its own cache, sharing the read-only encoder outputs.
 * - [drop] frees one state's cache, not the encoder outputs; [release] frees the cache and the encoder outputs
 *   (once per [encode]: the last state of a decode).
 * - [close] frees the model itself.
 *
 * Thread safety is each implementation's own: see its KDoc.
 */
interface Runtime : AutoCloseable {
    /** S: the most source ids the graphs take (`</s>` included). */
    val maxSourceLen: Int

    /** C: the cache capacity, the most decode steps of one output (`</s>` included). */
    val maxTargetLen: Int

    /** The special ids of the model (`<pad>`, `<s>`, `</s>`). */
    val specialIds: SpecialIds

    fun encode(sourceIds: IntArray): DecoderState

    fun step(state: DecoderState, token: Int, position: Int): StepResult

    /**
     * One step of each of `states` (of one [encode]; beam search's hypotheses) at `position`, `tokens[i]` fed to
     * `states[i]`: their logits, in order. As [step] does, each state is replaced by its new one, here in the list
     * itself. If it throws, the list holds the live states: those stepped so far replaced, the others intact.
     */
    fun stepAll(states: MutableList<DecoderState>, tokens: IntArray, position: Int): List<FloatArray> =
        List(states.size) { i ->
            val result = step(states[i], tokens[i], position)
            states[i] = result.state
            result.logits
        }

    fun fork(state: DecoderState): DecoderState

    fun drop(state: DecoderState)

    fun release(state: DecoderState)
}

/** The model's `<pad>`, `<s>` and `</s>` ids (manifest.json's `special_ids`). */
data class SpecialIds(val pad: Int = 0, val bos: Int = 1, val eos: Int = 2)

/** Source ids padded with `pad` to exactly `length` (the graphs take sources of a fixed padded length). */
fun padSource(sourceIds: IntArray, length: Int, pad: Int): IntArray {
    require(sourceIds.size <= length) {
        "source has ${sourceIds.size} tokens; the exported graph takes at most $length"
    }
    val padded = IntArray(length) { pad }
    sourceIds.copyInto(padded)
    return padded
}
