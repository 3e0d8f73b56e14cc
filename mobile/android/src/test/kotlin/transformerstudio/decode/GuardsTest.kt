package transformerstudio.decode

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test

class GuardsTest {
    @Test
    @DisplayName("the figure guard bans what Python's bans, step by step (web/test/figures-cases.json)")
    fun figureGuardAsPython() {
        val cases = JSONObject(TestData.repoFile("web/test/figures-cases.json").readText())
        val pieces = cases.getJSONArray("pieces").let { array -> List(array.length()) { array.getString(it) } }
        val guard = FigureGuard(pieces)
        val sources = cases.getJSONArray("sources")
        var steps = 0
        for (i in 0 until sources.length()) {
            val source = sources.getJSONObject(i)
            val numbers = TestData.strings(source.getJSONArray("numbers"))
            assertEquals(TestData.strings(source.getJSONArray("forms")), writtenForms(numbers), source.getString("source"))
            val walks = source.getJSONArray("walks")
            for (w in 0 until walks.length()) {
                val walk = walks.getJSONArray(w)
                for (s in 0 until walk.length()) {
                    val step = walk.getJSONObject(s)
                    val history = TestData.ints(step.getJSONArray("history"))
                    val want = TestData.ints(step.getJSONArray("banned"))
                    assertEquals(want, guard.banned(history, numbers).sorted(), "${source.getString("source")} $history")
                    steps++
                }
            }
        }
        assertTrue(steps > 100, "only $steps steps checked")
    }

    @Test
    @DisplayName("a loop is an n-gram three times back to back, n up to four")
    fun loops() {
        assertTrue(isDegenerate(listOf(5, 7, 7, 7)))
        assertTrue(isDegenerate(listOf(1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4)))
        assertFalse(isDegenerate(listOf(1, 2, 1, 2, 3)))
        assertFalse(isDegenerate(listOf(1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5)))
    }

    @Test
    @DisplayName("repeated n-grams are banned as constraints.ban_repeated_ngrams bans them")
    fun repeatedNgrams() {
        assertEquals(listOf(3, 9), repeatedNgramEnds(listOf(1, 2, 3, 1, 2, 9, 1, 2), 3))
        assertEquals(listOf(4, 5, 4), repeatedNgramEnds(listOf(4, 5, 4), 1))
        assertEquals(emptyList<Int>(), repeatedNgramEnds(listOf(4), 3))
    }

    @Test
    @DisplayName("the length cap, the source limit and its warning are the app's")
    fun limits() {
        assertEquals(19, lengthCap(6)) // ceil(1.5 * 6) + 10
        assertEquals(21, lengthCap(7)) // ceil(10.5) + 10
        val cut = limitSource(IntArray(130) { it + 3 }, 128, 2)
        assertEquals(128, cut.ids.size)
        assertEquals(2, cut.ids.last())
        assertEquals(listOf("input was 130 tokens; only the first 127 were used (this model reads at most 127)"),
            cut.warnings)
        assertArrayEquals(intArrayOf(5, 6, 2), limitSource(intArrayOf(5, 6), 128, 2).ids)
    }

    @Test
    @DisplayName("top tokens come best first, the lower id first on ties, never a -inf one")
    fun topTokensOrder() {
        val inf = Float.NEGATIVE_INFINITY
        val logits = floatArrayOf(0.5f, 2f, inf, 2f, -1f, 3f)
        assertArrayEquals(intArrayOf(5, 1, 3), topTokens(logits, 3))
        assertArrayEquals(intArrayOf(5, 1, 3, 0, 4), topTokens(logits, 8))
        assertEquals(5, argmax(logits))
    }

    @Test
    @DisplayName("options are checked with Python's words")
    fun optionChecks() {
        assertThrows(IllegalArgumentException::class.java) { DecodeOptions(beamSize = 0).validate() }
        val error = assertThrows(IllegalArgumentException::class.java) { DecodeOptions(topP = 0.0).validate() }
        assertEquals("top-p must be in (0, 1]", error.message)
        assertThrows(IllegalArgumentException::class.java) { Task.named("summarizer") }
        assertEquals(Task.TRANSLATOR, Task.named("translator"))
        assertEquals(1.8, Task.TRANSLATOR.defaults.lengthPenalty)
    }
}
