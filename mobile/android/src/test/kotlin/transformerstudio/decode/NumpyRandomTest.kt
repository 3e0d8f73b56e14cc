package transformerstudio.decode

import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test

class NumpyRandomTest {
    @Test
    @DisplayName("SeedSequence(42).generate_state(8) gives NumPy's words")
    fun seedSequenceWords() {
        val words = longArrayOf(3444837047, 2669555309, 2046530742, 3581440988, 1691623607, 2099784219, 1184028159,
            862288241)
        assertArrayEquals(words, seedSequenceState(42, 8).map { it.toLong() and 0xFFFFFFFFL }.toLongArray())
    }

    @Test
    @DisplayName("default_rng(seed) gives NumPy's raw numbers and doubles, for small and large seeds")
    fun sameNumbersAsNumpy() {
        // numpy 2.4: default_rng(s).bit_generator.random_raw(2) and default_rng(s).random(3)
        val expected = mapOf(
            0L to (listOf("11749869230777074271", "4976686463289251617") to
                listOf(0.6369616873214543, 0.2697867137638703, 0.04097352393619469)),
            42L to (listOf("14276969152011380360", "8095878257575067585") to
                listOf(0.7739560485559633, 0.4388784397520523, 0.8585979199113825)),
            (1L shl 40) + 7 to (listOf("15307346044642009514", "4709548916763817589") to
                listOf(0.829812891829413, 0.25530515834910417, 0.15379071585298754)),
        )
        for ((seed, numbers) in expected) {
            val raw = NumpyRandom(seed)
            assertEquals(numbers.first, List(2) { java.lang.Long.toUnsignedString(raw.nextLong()) }, "seed $seed")
            val doubles = NumpyRandom(seed)
            assertEquals(numbers.second, List(3) { doubles.nextDouble() }, "seed $seed")
        }
    }

    @Test
    @DisplayName("the pairwise sum adds as NumPy does, blocks of eight and halves")
    fun pairwiseSumOrder() {
        val values = DoubleArray(1000) { 1.0 / (it + 1) }
        // np.sum(1 / np.arange(1, 1001)) with NumPy's pairwise summation
        assertEquals(7.485470860550345, pairwiseSum(values, 0, values.size))
        assertEquals(values.take(5).sum(), pairwiseSum(values, 0, 5))
    }
}
