package transformerstudio.decode

import transformerstudio.runtime.DecoderState
import transformerstudio.runtime.Runtime
import java.util.Collections
import java.util.IdentityHashMap

/** A live hypothesis: its ids so far, the token it feeds next, its log-probability, its own decoder state. */
internal class Hypothesis(val ids: List<Int>, val token: Int, val score: Double, var state: DecoderState)

/** An extension of live hypothesis `beam` by `token`. */
internal class Candidate(val beam: Int, val token: Int, val score: Double)

/** One source's beam search in progress (strategies.Beam for one source, decode.js' `search`). */
internal class Search(
    val runtime: Runtime,
    val beamSize: Int,
    val lengthPenalty: Double,
    /** The longest output allowed (`</s>` excluded from the count): Python's spec.cap(source). */
    val longest: Int,
    val rules: Constraints,
) {
    val finished = ArrayList<ScoredOutput>() // length-normalized scores
    val owned: MutableSet<DecoderState> = Collections.newSetFromMap(IdentityHashMap())
    var modelSteps = 0

    /** log-probability / length^lengthPenalty (length counts `</s>`). */
    fun normalize(score: Double, length: Int): Double = score / StrictMath.pow(length.toDouble(), lengthPenalty)
}

/**
 * One step of every live hypothesis, in order: its candidates for its best min(2K, V) tokens, scored by the
 * hypothesis' log-probability plus the token's. The hypotheses' states become the stepped ones.
 */
internal fun extend(live: List<Hypothesis>, position: Int, search: Search): List<Candidate> {
    val logits = stepHypotheses(live, position, search)
    val candidates = ArrayList<Candidate>()
    for ((beam, hypothesis) in live.withIndex()) {
        val constrained = constrain(logits[beam], position, hypothesis.ids, search.rules)
        val normalizer = logSumExp(constrained)
        for (token in topTokens(constrained, minOf(2 * search.beamSize, constrained.size))) {
            val score = hypothesis.score + (constrained[token] - normalizer)
            if (score.isFinite()) candidates += Candidate(beam, token, score)
        }
    }
    return candidates
}

/**
 * The live hypotheses stepped at `position` in one [Runtime.stepAll] (one model run where the runtime batches):
 * their logits. Each hypothesis takes its new state, which the search owns in place of the old one, also for the
 * states a failing call replaced.
 */
private fun stepHypotheses(live: List<Hypothesis>, position: Int, search: Search): List<FloatArray> {
    val states = live.mapTo(ArrayList()) { it.state }
    try {
        return search.runtime.stepAll(states, IntArray(live.size) { live[it].token }, position)
            .also { search.modelSteps += live.size }
    } finally {
        for ((hypothesis, state) in live.zip(states)) {
            if (state === hypothesis.state) continue
            search.owned.remove(hypothesis.state)
            search.owned.add(state)
            hypothesis.state = state
        }
    }
}

/**
 * Python's Beam.advance for one source: walk the 2K best candidates, best first (a stable sort). An ending within
 * the K best joins the finished outputs; the first K others are kept. Done when K have finished, when no kept one
 * can beat the best finished one, or when none is kept.
 */
internal fun advance(candidates: List<Candidate>, live: List<Hypothesis>, search: Search): Pair<List<Candidate>, Boolean> {
    val k = search.beamSize
    val order = candidates.sortedByDescending { it.score }
    val kept = ArrayList<Candidate>()
    for (rank in 0 until minOf(order.size, 2 * k)) {
        val candidate = order[rank]
        if (candidate.token == search.rules.eos) {
            val ids = live[candidate.beam].ids
            if (rank < k) search.finished += ScoredOutput(ids, search.normalize(candidate.score, ids.size + 1))
        } else {
            kept += candidate
        }
        if (kept.size == k) break
    }
    var done = kept.isEmpty() || search.finished.size >= k
    if (!done && search.finished.isNotEmpty()) {
        val bestFinished = search.finished.maxOf { it.score }
        // a live hypothesis only gets worse; at best it ends at the longest length allowed
        val bestPossible = kept.maxOf {
            if (search.lengthPenalty > 0) search.normalize(it.score, search.longest + 1) else it.score
        }
        done = bestPossible < bestFinished
    }
    return kept to done
}

/** The kept candidates as the next live hypotheses: a parent's first child takes its state, the others get forks;
 * parents without children are dropped. */
internal fun nextHypotheses(live: List<Hypothesis>, kept: List<Candidate>, search: Search): List<Hypothesis> {
    val taken = HashSet<Int>()
    val next = ArrayList<Hypothesis>()
    for (candidate in kept) {
        val parent = live[candidate.beam]
        var state = parent.state
        if (candidate.beam in taken) {
            state = search.runtime.fork(parent.state)
            search.owned.add(state)
        }
        taken += candidate.beam
        next += Hypothesis(parent.ids + candidate.token, candidate.token, candidate.score, state)
    }
    for ((beam, hypothesis) in live.withIndex()) {
        if (beam in taken) continue
        search.owned.remove(hypothesis.state)
        search.runtime.drop(hypothesis.state)
    }
    return next
}

/** Free every state a search holds: drop all but one, release that one (and with it the encoder outputs). */
internal fun freeStates(search: Search) {
    val states = search.owned.toList()
    search.owned.clear()
    for (state in states.drop(1)) search.runtime.drop(state)
    states.firstOrNull()?.let { search.runtime.release(it) }
}
