package transformerstudio.text

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** Sentences answers as studio/translation.py does for every case of web/test/sentences-cases.json. */
class SentencesTest {
    private val fixture = Fixtures.repositoryJson("web/test/sentences-cases.json")
    private fun cases(key: String) = Fixtures.objects(fixture.getJSONArray(key))
    private val tokenizers = mapOf<String, (String) -> Int>("words" to { PyStr.split(it).size }, "characters" to PyStr::length)

    /** The fixture's fake model (fake_translation there): the source without its final marks, an ASCII first letter
     * in lower case. */
    private fun fakeTranslation(source: String): String {
        val text = source.replace(Regex("[.!?]+$"), "")
        return if (text.isNotEmpty() && text[0].code < 0x80) text[0].lowercase() + text.substring(1) else text
    }

    @Test
    fun `the fixture has cases for every function`() {
        assertEquals("transformer-studio-web-sentences/1", fixture.getString("format"))
        for (key in listOf("split_sentences", "fit_to_length", "finish_sentence", "plan_lines")) assertTrue(cases(key).isNotEmpty())
    }

    @Test
    fun `every paragraph is split into Python's sentences`() {
        assertEquals(emptyList<Difference>(), differences(cases("split_sentences"), { it.getString("paragraph") },
            { Sentences.splitSentences(it.getString("paragraph")) }, { it.getJSONArray("sentences") }))
    }

    @Test
    fun `every long sentence is fitted into Python's pieces`() {
        assertEquals(emptyList<Difference>(), differences(cases("fit_to_length"), { it.getString("sentence") },
            { Sentences.fitToLength(it.getString("sentence"), tokenizers.getValue(it.getString("tokenizer")), it.getInt("limit")) },
            { it.getJSONArray("pieces") }))
    }

    @Test
    fun `every output is finished as Python finishes it`() {
        assertEquals(emptyList<Difference>(), differences(cases("finish_sentence"), { it.getString("output") },
            { Sentences.finishSentence(it.getString("source"), it.getString("output"), Fixtures.pair(it)) },
            { it.getString("finished") }))
    }

    @Test
    fun `every text is planned, joined and warned about as Python's translate does`() {
        val words = tokenizers.getValue("words")
        val wrong = differences(cases("plan_lines"), { it.getString("text") }, { c ->
            val (text, pair) = c.getString("text") to Fixtures.pair(c)
            val plan = Sentences.planLines(text, words, c.getInt("limit"), pair)
            val outputs = plan.flatten().map { Sentences.finishSentence(it, fakeTranslation(it), pair) }
            listOf(plan, Sentences.joinPieces(plan, outputs, text), listOfNotNull(Sentences.keptWarning(text, pair)))
        }, { c -> listOf(c.getJSONArray("plan"), c.getString("translation"), c.getJSONArray("warnings")) })
        assertEquals(emptyList<Difference>(), wrong)
    }

    @Test
    fun `joined pieces show the lines reached so far`() {
        val plan = listOf(listOf("a.", "b."), listOf(), listOf("c."), listOf())
        val text = "가. 나.\n\n다.\n"
        assertEquals("", Sentences.joinPieces(plan, listOf(), text))
        assertEquals("A.", Sentences.joinPieces(plan, listOf("A."), text))
        assertEquals("A. B.\n\nC\n", Sentences.joinPieces(plan, listOf("A.", "B.", "C"), text))
        assertEquals("Hi\nA.\n", Sentences.joinPieces(listOf(listOf(), listOf("a."), listOf()), listOf("A."), "Hi\n가.\n"))
    }
}
