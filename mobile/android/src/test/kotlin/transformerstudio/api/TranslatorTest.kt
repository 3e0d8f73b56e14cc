package transformerstudio.api

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import transformerstudio.InputException
import transformerstudio.TranslateOptions
import transformerstudio.Translator
import transformerstudio.decode.CancellationToken
import transformerstudio.decode.TestData
import java.util.concurrent.CancellationException
import java.util.concurrent.Executors

/** The translator's API beyond its outputs: refused input, streaming, cancellation, two threads at once. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TranslatorTest {
    private lateinit var translator: Translator
    private val cases = TestData.resource("app-translator.json").getJSONArray("cases")
    private fun text(i: Int) = cases.getJSONObject(i).getString("text")
    private fun output(i: Int) = cases.getJSONObject(i).getString("output")

    @BeforeAll
    fun open() {
        translator = Translator.open(ExportPackage.of("translator"))
    }

    @AfterAll
    fun close() {
        if (::translator.isInitialized) translator.close()
    }

    @Test
    @DisplayName("the lines kept as written are said as the app says them, and nothing when every line is Korean")
    fun keptLinesAreSaid() {
        assertEquals("kept as written, without Korean to translate: 'No Korean here.'",
            translator.keptAsWritten("No Korean here.\n\n삼성전자는 투자했다."))
        assertEquals("2 lines without Korean kept as written (the first: '12345 !!')",
            translator.keptAsWritten("12345 !!\nHello.\n삼성전자는 투자했다."))
        assertEquals(null, translator.keptAsWritten("삼성전자는 투자했다.\n\n날씨가 좋다."))
    }

    @Test
    @DisplayName("empty and invisible input is refused with the app's messages")
    fun emptyInputIsRefused() {
        for (empty in listOf("", "   ", "\n\n", "\t")) {
            assertEquals("Please enter Korean text to translate.", assertThrows<InputException> { translator.translate(empty) }.message)
        }
        assertEquals("That text has only invisible characters (control or zero-width characters): there is nothing to read.",
            assertThrows<InputException> { translator.translate("\u200b\u200b") }.message)
    }

    @Test
    @DisplayName("streaming gives a sequence of prefixes, each sentence added, ending in the translation")
    fun streamingGivesPrefixes() {
        val text = (0 until 4).joinToString("\n") { text(it) } + "\nNo Korean here.\n\n" + text(7) + " " + text(8)
        val seen = ArrayList<String>()
        val result = translator.translate(text, onText = { seen += it })
        assertEquals(6, seen.size, "one call per sentence: $seen")
        assertEquals(result, seen.last())
        seen.zipWithNext().forEach { (a, b) -> assertTrue(b.startsWith(a) && b != a, "\"$a\" then \"$b\"") }
        assertEquals((0 until 4).map { output(it) } + "No Korean here." + "" + (output(7) + " " + output(8)), result.split("\n"))
    }

    @Test
    @DisplayName("a cancel stops the translation before the next sentence and the call throws")
    fun cancelStopsEarly() {
        val cancellation = CancellationToken()
        val seen = ArrayList<String>()
        val text = (0 until 8).joinToString("\n") { text(it) }
        assertThrows<CancellationException> {
            translator.translate(text, onText = { seen += it; if (seen.size == 2) cancellation.cancel() }, cancellation = cancellation)
        }
        assertEquals(2, seen.size, "no sentence decoded after the cancel")
    }

    @Test
    @DisplayName("two threads translating at once give what one gives")
    fun twoThreadsGiveTheSameOutputs() {
        val texts = (10 until 22).map { text(it) }
        val alone = texts.map { translator.translate(it) }
        val pool = Executors.newFixedThreadPool(2)
        try {
            val together = texts.map { pool.submit<String> { translator.translate(it) } }.map { it.get() }
            assertEquals(alone, together)
            assertEquals((10 until 22).map { output(it) }, alone)
        } finally {
            pool.shutdown()
        }
    }

    @Test
    @DisplayName("a glossary entry is applied, and protection can be turned off")
    fun glossaryAndProtection() {
        val glossed = translator.translate("삼성전자는 새 공장을 지었다.", TranslateOptions(glossary = "삼성전자 = Samsung Group"))
        assertTrue("Samsung Group" in glossed, glossed)
        assertThrows<transformerstudio.text.GlossaryException> { translator.translate("서울", TranslateOptions(glossary = "no equals sign")) }
        assertTrue(translator.translate(text(0), TranslateOptions(protect = false)).isNotEmpty())
    }
}
