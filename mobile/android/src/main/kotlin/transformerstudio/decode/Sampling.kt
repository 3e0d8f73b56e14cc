package transformerstudio.decode

import kotlin.math.exp

/**
 * Sample a token as Python's sampler does (strategies.sampler and NumPy's Generator.choice): softmax of
 * logits / temperature, within the topK largest (0: all; ties at the k-th stay) and the smallest set of most likely
 * tokens whose probability reaches topP (1: all; always the best token); then one `random.nextDouble()` against
 * the cumulative probabilities. With the same logits and seed, the same token as Python, unless a draw falls
 * within rounding (about 1e-16) of a boundary between two tokens.
 */
fun sampleToken(logits: FloatArray, temperature: Double, topK: Int, topP: Double, random: NumpyRandom): Int {
    val scores = DoubleArray(logits.size) { logits[it].toDouble() / temperature }
    if (topK > 0 && topK < scores.size) keepTopK(scores, topK)
    if (topP < 1.0) keepTopP(scores, topP)
    val probabilities = softmax(scores)
    val cumulative = DoubleArray(probabilities.size)
    var running = 0.0
    for (i in probabilities.indices) {
        running += probabilities[i]
        cumulative[i] = running
    }
    val last = cumulative[cumulative.size - 1]
    for (i in cumulative.indices) cumulative[i] /= last
    val draw = random.nextDouble()
    for (i in cumulative.indices) if (cumulative[i] > draw) return i // searchsorted(side="right")
    return cumulative.size - 1
}

/** Scores below the k-th largest become -inf (np.partition's k-th value). */
private fun keepTopK(scores: DoubleArray, k: Int) {
    val kth = scores.sortedArray()[scores.size - k]
    for (i in scores.indices) if (scores[i] < kth) scores[i] = Double.NEGATIVE_INFINITY
}

/** Scores outside the smallest best-first prefix whose probability reaches p become -inf. */
private fun keepTopP(scores: DoubleArray, p: Double) {
    val order = scores.indices.sortedByDescending { scores[it] } // stable: the lower id first on ties
    val best = scores[order[0]]
    val weights = DoubleArray(order.size) { exp(scores[order[it]] - best) }
    val total = pairwiseSum(weights, 0, weights.size)
    var before = 0.0
    val remove = BooleanArray(order.size)
    for (rank in order.indices) {
        val probability = weights[rank] / total
        before += probability
        remove[rank] = before - probability >= p
    }
    for (rank in order.indices) if (remove[rank]) scores[order[rank]] = Double.NEGATIVE_INFINITY
}

/** exp(scores - max) / their sum, as NumPy computes it (its pairwise sum). */
private fun softmax(scores: DoubleArray): DoubleArray {
    val top = scores.max()
    val weights = DoubleArray(scores.size) { exp(scores[it] - top) }
    val total = pairwiseSum(weights, 0, weights.size)
    for (i in weights.indices) weights[i] /= total
    return weights
}

/** NumPy's pairwise summation of `values[from, from + count)` (numpy/_core/src/umath/loops_utils.h). */
internal fun pairwiseSum(values: DoubleArray, from: Int, count: Int): Double {
    if (count < 8) {
        var sum = 0.0
        for (i in from until from + count) sum += values[i]
        return sum
    }
    if (count <= 128) {
        val r = DoubleArray(8) { values[from + it] }
        var i = 8
        while (i < count - count % 8) {
            for (j in 0 until 8) r[j] += values[from + i + j]
            i += 8
        }
        var sum = (r[0] + r[1] + (r[2] + r[3])) + (r[4] + r[5] + (r[6] + r[7]))
        while (i < count) sum += values[from + i++]
        return sum
    }
    var half = count / 2
    half -= half % 8
    return pairwiseSum(values, from, half) + pairwiseSum(values, from + half, count - half)
}
