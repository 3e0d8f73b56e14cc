package transformerstudio.decode

import transformerstudio.runtime.Runtime

/**
 * Generate the output ids of one source (web/src/decode.js generate; studio/generate/loop.py with the strategies
 * of strategies.py): greedy, sampling or beam search per [options], with the [rules] the app adds.
 *
 * `sourceIds` are at most runtime.maxSourceLen ids ending in `</s>` ([limitSource] makes them so). At most
 * min(options.maxNewTokens, runtime.maxTargetLen) steps, `</s>` included; the output excludes `<s>` and `</s>`.
 *
 * Thread safety: a call uses the calling thread only; it may run on several threads at once when the runtime
 * allows it (see the runtime's KDoc) and the [hooks] are not shared.
 */
fun generate(
    runtime: Runtime,
    sourceIds: IntArray,
    options: DecodeOptions = DecodeOptions(),
    rules: OutputRules = OutputRules(),
    hooks: DecodeHooks = DecodeHooks(),
): Generation {
    options.validate()
    val limit = minOf(options.maxNewTokens ?: runtime.maxTargetLen, runtime.maxTargetLen)
    val constraints = Constraints(
        eos = runtime.specialIds.eos,
        minNewTokens = minOf(rules.minNewTokens, limit),
        noRepeatNgram = options.noRepeatNgram,
        cap = rules.lengthCap?.let { minOf(it, limit) }, // Python's spec.cap(source)
        figures = rules.figures,
    )
    if (options.strategy == Strategy.BEAM && options.beamSize > 1) {
        return beamSearch(runtime, sourceIds, options, limit, constraints, hooks)
    }
    val choose = if (options.strategy == Strategy.SAMPLE) sampler(options) else ::argmax
    return tokenByToken(runtime, sourceIds, choose, limit, constraints, hooks)
}

/** A token chooser that samples per `options`, from NumPy's generator seeded with options.seed. */
private fun sampler(options: DecodeOptions): (FloatArray) -> Int {
    val random = options.seed?.let { NumpyRandom(it) } ?: NumpyRandom.unseeded()
    return { logits -> sampleToken(logits, options.temperature, options.topK, options.topP, random) }
}

/**
 * [generate], and, when its output is caught in a loop ([isDegenerate]), [generate] again with repeated
 * [RETRY_NO_REPEAT]-grams banned, whose output replaces it (TextGenerator._unloop). Not when the options ban
 * repeated n-grams already, nor after a cancellation (a cancelled retry keeps the first output, stop ABORTED).
 * The retry is not streamed. [Generation.retried] says when the retry's output is the answer; its totalMs counts
 * both decodes.
 */
fun generateUnlooped(
    runtime: Runtime,
    sourceIds: IntArray,
    options: DecodeOptions = DecodeOptions(),
    rules: OutputRules = OutputRules(),
    hooks: DecodeHooks = DecodeHooks(),
): Generation {
    val first = generate(runtime, sourceIds, options, rules, hooks)
    if (first.stop == Stop.ABORTED || options.noRepeatNgram != 0 || !isDegenerate(first.ids)) return first
    val again = generate(runtime, sourceIds, options.copy(noRepeatNgram = RETRY_NO_REPEAT), rules,
        hooks.withoutStreaming())
    if (again.stop == Stop.ABORTED) return first.copy(stop = Stop.ABORTED)
    val totalMs = first.timings.totalMs + again.timings.totalMs
    return again.copy(retried = true, timings = again.timings.copy(totalMs = totalMs))
}

/** Source ids the graphs can read, and why they are not all of the input (Preprocessor.encode's warnings). */
data class LimitedSource(val ids: IntArray, val warnings: List<String>)

/**
 * The tokenizer's ids of a source (without `</s>`) as the model reads them: at most maxSourceLen - 1 of them (a
 * warning says when some were cut, in the app's words), then `</s>`.
 */
fun limitSource(tokenIds: IntArray, maxSourceLen: Int, eos: Int): LimitedSource {
    val limit = maxSourceLen - 1 // room for </s>
    if (tokenIds.size <= limit) return LimitedSource(tokenIds + eos, emptyList())
    val warning = "input was ${tokenIds.size} tokens; only the first $limit were used " +
        "(this model reads at most $limit)"
    return LimitedSource(tokenIds.copyOf(limit) + eos, listOf(warning))
}
