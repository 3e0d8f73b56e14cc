package transformerstudio.decode

import java.security.SecureRandom

/**
 * NumPy's default generator, `numpy.random.default_rng(seed)`: PCG64 (XSL-RR) seeded through SeedSequence, and
 * its `random()` doubles. The same seed gives the same numbers as Python's sampler (strategies.sampler).
 * 128-bit arithmetic on pairs of longs, without Math.multiplyHigh (Android API 31+).
 *
 * Thread safety: none; one generator per decode.
 */
class NumpyRandom(seed: Long) {
    private var stateHigh = 0L
    private var stateLow = 0L
    private val incHigh: Long
    private val incLow: Long

    init {
        require(seed >= 0) { "the seed must be a whole number, 0 or more" }
        val words = seedSequenceState(seed, 8)
        val value = LongArray(4) { (words[2 * it].toLong() and MASK32) or (words[2 * it + 1].toLong() shl 32) }
        // pcg64_set_seed: state = value[0]:value[1], sequence = value[2]:value[3]; inc = (sequence << 1) | 1
        incHigh = (value[2] shl 1) or (value[3] ushr 63)
        incLow = (value[3] shl 1) or 1L
        advance()
        addToState(value[0], value[1])
        advance()
    }

    /** The next 64 random bits (pcg64_next64: a step, then the output of the new state). */
    fun nextLong(): Long {
        advance()
        val value = stateHigh xor stateLow
        val rotation = (stateHigh ushr 58).toInt()
        return java.lang.Long.rotateRight(value, rotation)
    }

    /** A double in [0, 1): NumPy's `random()`, 53 bits. */
    fun nextDouble(): Double = (nextLong() ushr 11) * (1.0 / 9007199254740992.0)

    private fun advance() {
        // state = state * MULTIPLIER + inc (mod 2^128)
        val low = stateLow * MULT_LOW
        val high = unsignedMultiplyHigh(stateLow, MULT_LOW) + stateLow * MULT_HIGH + stateHigh * MULT_LOW
        stateHigh = high
        stateLow = low
        addToState(incHigh, incLow)
    }

    private fun addToState(high: Long, low: Long) {
        val sum = stateLow + low
        val carry = if (java.lang.Long.compareUnsigned(sum, stateLow) < 0) 1L else 0L
        stateLow = sum
        stateHigh += high + carry
    }

    companion object {
        private const val MASK32 = 0xFFFFFFFFL
        private const val MULT_HIGH = 2549297995355413924L
        private const val MULT_LOW = 4865540595714422341L

        /** A generator seeded from the system's entropy (NumPy's default_rng(None)). */
        fun unseeded(): NumpyRandom = NumpyRandom(SecureRandom().nextLong() ushr 1)

        internal fun unsignedMultiplyHigh(a: Long, b: Long): Long {
            val aLow = a and MASK32
            val aHigh = a ushr 32
            val bLow = b and MASK32
            val bHigh = b ushr 32
            val lowLow = aLow * bLow
            val middle1 = aHigh * bLow + (lowLow ushr 32)
            val middle2 = aLow * bHigh + (middle1 and MASK32)
            return aHigh * bHigh + (middle1 ushr 32) + (middle2 ushr 32)
        }
    }
}
