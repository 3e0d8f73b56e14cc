package transformerstudio.decode

import transformerstudio.runtime.Runtime

/** Milliseconds since `startNanos`. */
internal fun msSince(startNanos: Long): Double = (System.nanoTime() - startNanos) / 1e6

/**
 * Greedy decoding or sampling of one source (decode.js generate's loop; strategies.TokenByToken): `<s>` at
 * position 0, then each step chooses the next token from the constrained logits; `</s>` ends the output.
 */
internal fun tokenByToken(
    runtime: Runtime,
    sourceIds: IntArray,
    choose: (FloatArray) -> Int,
    limit: Int,
    rules: Constraints,
    hooks: DecodeHooks,
): Generation {
    val started = System.nanoTime()
    var state = runtime.encode(sourceIds)
    val encodeMs = msSince(started)
    val ids = ArrayList<Int>()
    var stop = Stop.LENGTH
    var steps = 0
    var firstStepMs: Double? = null
    var laterStepsMs = 0.0
    try {
        var token = runtime.specialIds.bos
        for (position in 0 until limit) {
            if (hooks.cancelled) {
                stop = Stop.ABORTED
                break
            }
            val stepStarted = System.nanoTime()
            val result = runtime.step(state, token, position)
            state = result.state
            token = choose(constrain(result.logits, position, ids, rules))
            val stepMs = msSince(stepStarted)
            steps++
            if (firstStepMs == null) firstStepMs = stepMs else laterStepsMs += stepMs
            if (token == rules.eos) {
                stop = Stop.EOS
                break
            }
            ids += token
            hooks.onToken?.invoke(token, ids.toList())
            hooks.onStep?.invoke(position)
        }
    } finally {
        runtime.release(state)
    }
    val msPerToken = if (steps > 1) laterStepsMs / (steps - 1) else firstStepMs
    val timings = Timings(encodeMs, firstStepMs?.let { encodeMs + it }, msPerToken, msSince(started), steps, steps)
    return Generation(ids, stop, timings)
}
