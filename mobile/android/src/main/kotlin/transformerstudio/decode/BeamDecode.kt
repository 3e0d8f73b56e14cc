package transformerstudio.decode

import transformerstudio.runtime.Runtime

/**
 * Beam search of one source (decode.js beamSearch; strategies.Beam): at each position the live hypotheses are
 * stepped together ([Runtime.stepAll]: one batched model run on graphs that take a batch, else one each).
 */
internal fun beamSearch(
    runtime: Runtime,
    sourceIds: IntArray,
    options: DecodeOptions,
    limit: Int,
    rules: Constraints,
    hooks: DecodeHooks,
): Generation {
    val search = Search(runtime, options.beamSize, options.lengthPenalty, rules.cap ?: limit, rules)
    val started = System.nanoTime()
    val first = runtime.encode(sourceIds)
    search.owned.add(first)
    val encodeMs = msSince(started)
    var live = listOf(Hypothesis(emptyList(), runtime.specialIds.bos, 0.0, first))
    var aborted = false
    val stepMs = ArrayList<Double>()
    try {
        for (position in 0 until limit) {
            if (hooks.cancelled) {
                aborted = true
                break
            }
            val stepStarted = System.nanoTime()
            val (kept, done) = advance(extend(live, position, search), live, search)
            if (!done) live = nextHypotheses(live, kept, search)
            stepMs += msSince(stepStarted)
            if (done) break
            hooks.onStep?.invoke(position)
        }
    } finally {
        freeStates(search)
    }
    val stop = if (aborted) Stop.ABORTED else if (search.finished.isNotEmpty()) Stop.EOS else Stop.LENGTH
    return Generation(answer(search, live), stop, beamTimings(encodeMs, stepMs, started, search.modelSteps),
        alternatives(search.finished, options.beamSize))
}

/**
 * The best finished output that writes every year of its source, if one does (figures.keeps_years), else the
 * best finished one; if none finished, the best live hypothesis. The first one on ties, as Python's max.
 */
private fun answer(search: Search, live: List<Hypothesis>): List<Int> {
    if (search.finished.isEmpty()) return live.reduce { top, item -> if (item.score > top.score) item else top }.ids
    val years = search.rules.figures?.years.orEmpty()
    val guard = search.rules.figures?.guard
    val yearsKept = search.finished.filter { years.isEmpty() || guard!!.wroteAll(it.ids, years) }
    val pool = yearsKept.ifEmpty { search.finished }
    return pool.reduce { top, item -> if (item.score > top.score) item else top }.ids
}

/** Up to `n` distinct finished outputs, best first (Beam.alternatives). */
internal fun alternatives(finished: List<ScoredOutput>, n: Int): List<ScoredOutput> =
    finished.sortedByDescending { it.score }.distinctBy { it.ids }.take(n)

private fun beamTimings(encodeMs: Double, stepMs: List<Double>, started: Long, modelSteps: Int): Timings {
    val searchMs = stepMs.sum()
    val msPerToken = when {
        stepMs.size > 1 -> (searchMs - stepMs[0]) / (stepMs.size - 1)
        else -> stepMs.firstOrNull()
    }
    val firstTokenMs = if (stepMs.isEmpty()) null else encodeMs + searchMs // nothing shows before the end
    return Timings(encodeMs, firstTokenMs, msPerToken, msSince(started), stepMs.size, modelSteps)
}
