package transformerstudio.decode

import kotlin.math.ln

/** The index of the largest logit (the first one on ties, as NumPy's argmax). */
fun argmax(logits: FloatArray): Int {
    var best = 0
    for (i in 1 until logits.size) if (logits[i] > logits[best]) best = i
    return best
}

/**
 * log(sum(exp(logits))) as constraints.log_sum_exp computes it: the differences and their exp in float32
 * (NumPy on a float32 array), the sum and the log in float64.
 */
fun logSumExp(logits: FloatArray): Double {
    var top = Float.NEGATIVE_INFINITY
    for (value in logits) if (value > top) top = value
    var sum = 0.0
    for (value in logits) sum += StrictMath.exp((value - top).toDouble()).toFloat().toDouble()
    return top.toDouble() + ln(sum)
}

/** The `count` tokens with the largest finite logits, best first (the lower id first on equal logits). */
fun topTokens(logits: FloatArray, count: Int): IntArray {
    val best = IntArray(count)
    var size = 0
    for (token in logits.indices) {
        val value = logits[token]
        if (!value.isFinite()) continue
        if (size == count && value <= logits[best[count - 1]]) continue
        var at = minOf(size, count - 1)
        while (at > 0 && logits[best[at - 1]] < value) at--
        val end = minOf(size, count - 1) // the last one drops out when the list is full
        for (i in end downTo at + 1) best[i] = best[i - 1]
        best[at] = token
        if (size < count) size++
    }
    return best.copyOf(size)
}
