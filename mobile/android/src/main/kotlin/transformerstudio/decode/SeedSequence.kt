package transformerstudio.decode

// NumPy's SeedSequence (numpy/random/bit_generator.pyx) for a whole-number seed and no spawn key: the seed's
// 32-bit words mixed into a pool of 4, then `words` 32-bit words of state drawn from the pool. All arithmetic is
// on unsigned 32-bit values (Ints that wrap).

private const val POOL_SIZE = 4
private const val INIT_A = 0x43b0d7e5
private const val MULT_A = 0x931e8875.toInt()
private const val INIT_B = 0x8b51f9dd.toInt()
private const val MULT_B = 0x58f38ded
private const val MIX_MULT_L = 0xca01f9dd.toInt()
private const val MIX_MULT_R = 0x4973f715
private const val XSHIFT = 16

/** The seed as NumPy's _coerce_to_uint32_array writes it: its 32-bit words, lowest first (0: one word). */
private fun seedWords(seed: Long): IntArray {
    if (seed == 0L) return intArrayOf(0)
    val words = ArrayList<Int>()
    var rest = seed
    while (rest != 0L) {
        words += rest.toInt()
        rest = rest ushr 32
    }
    return words.toIntArray()
}

private class HashConstant(var value: Int)

private fun hashmix(input: Int, hash: HashConstant): Int {
    var value = input xor hash.value
    hash.value *= MULT_A
    value *= hash.value
    return value xor (value ushr XSHIFT)
}

private fun mix(x: Int, y: Int): Int {
    val result = MIX_MULT_L * x - MIX_MULT_R * y
    return result xor (result ushr XSHIFT)
}

private fun mixEntropy(entropy: IntArray): IntArray {
    val hash = HashConstant(INIT_A)
    val pool = IntArray(POOL_SIZE) { hashmix(if (it < entropy.size) entropy[it] else 0, hash) }
    for (source in 0 until POOL_SIZE) {
        for (target in 0 until POOL_SIZE) {
            if (source != target) pool[target] = mix(pool[target], hashmix(pool[source], hash))
        }
    }
    for (source in POOL_SIZE until entropy.size) {
        for (target in 0 until POOL_SIZE) pool[target] = mix(pool[target], hashmix(entropy[source], hash))
    }
    return pool
}

/** SeedSequence(seed).generate_state(words, uint32). */
internal fun seedSequenceState(seed: Long, words: Int): IntArray {
    val pool = mixEntropy(seedWords(seed))
    var hash = INIT_B
    return IntArray(words) {
        var value = pool[it % POOL_SIZE] xor hash
        hash *= MULT_B
        value *= hash
        value xor (value ushr XSHIFT)
    }
}
