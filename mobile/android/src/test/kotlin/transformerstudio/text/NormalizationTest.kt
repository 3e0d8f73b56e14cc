package transformerstudio.text

import org.json.JSONArray
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class NormalizationTest {
    private val cases = Fixtures.objects(JSONArray(Fixtures.resourceText("normalization-cases.json")))
    private val tutorial = TextPipeline(TextPipeline.TUTORIAL)
    private val lower = TextPipeline(TextPipeline.TUTORIAL, lowercaseTarget = true)
    private val translator = TextPipeline(TextPipeline.TRANSLATOR)
    private val pipelines = mapOf<String, (String) -> String>(
        "tutorial" to tutorial::source, "tutorial_lower" to lower::target, "translator" to translator::source,
        "tutorial_output" to tutorial::output, "translator_output" to translator::output)

    @Test
    fun `the fixture holds the golden cases and hundreds of hostile ones`() {
        assertTrue(cases.size > 400, "${cases.size} cases")
    }

    @Test
    fun `every pipeline's answer on every normalization case is Python's`() {
        val wrong = pipelines.flatMap { (key, pipeline) ->
            differences(cases, { "$key ${PyStr.repr(it.getString("text"))}" }, { pipeline(it.getString("text")) },
                { it.getString(key) })
        }
        assertEquals(emptyList<Difference>(), wrong, "${wrong.size} answers differ")
    }

    @Test
    fun `Python's whitespace, not Kotlin's`() {
        assertEquals("a \ufeff", PyStr.strip("\u001c\u0085 a \ufeff"))
        assertEquals("네.", Normalize.tidy("네 .\u001f"))
    }

    @Test
    fun `characters unassigned in Unicode 14 are dropped as Python 3_11 drops them`() {
        assertEquals("ab", Pipelines.cleanText("a\uD83E\uDEE8b")) // U+1FAE8, shaking face: Unicode 15
        assertEquals("a\uD83D\uDE00b", Pipelines.cleanText("a\uD83D\uDE00b")) // U+1F600: Unicode 6
    }

    @Test
    fun `an unknown pipeline is refused`() {
        assertThrows(IllegalArgumentException::class.java) { TextPipeline("other") }
        assertEquals(TextPipeline.TUTORIAL, TextPipeline.named(null).name)
    }
}
