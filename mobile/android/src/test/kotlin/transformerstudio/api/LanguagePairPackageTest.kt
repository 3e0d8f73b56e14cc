package transformerstudio.api

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import transformerstudio.ModelFiles
import transformerstudio.ModelPackage
import transformerstudio.Translator
import transformerstudio.text.LanguagePair

/** A package's config.json decides which steps of the translation path run (studio.tasks.language_pair): the
 * shipped translator's graphs, under its own config and under one that says en->de as an imported model's does. */
class LanguagePairPackageTest {
    /** [files] with config.json's task naming [source] and [target]. */
    private fun withPair(files: ModelFiles, source: String, target: String) = object : ModelFiles by files {
        override fun bytes(path: String): ByteArray = if (path != "config.json") files.bytes(path)
        else JSONObject(files.bytes(path).toString(Charsets.UTF_8)).apply {
            getJSONObject("task").put("source_lang", source).put("target_lang", target)
        }.toString().toByteArray()
    }

    @Test
    fun `the package's config names the pair, the shipped translator's being Korean to English`() {
        val shipped = ExportPackage.of("translator")
        assertEquals(LanguagePair.KOREAN_ENGLISH, ModelPackage.read(shipped).pair)
        assertEquals(LanguagePair("en", "de"), ModelPackage.read(withPair(shipped, "en", "de")).pair)
        assertEquals(LanguagePair.KOREAN_ENGLISH, ModelPackage.read(ExportPackage.of("chatbot")).pair)
    }

    @Test
    fun `an English source's lines with letters are translated and only a line without letters is kept`() {
        val text = "Hello world.\n12345 !!"
        val decoded = { files: ModelFiles ->
            val heard = ArrayList<String>() // the translation so far, after each decoded piece
            Translator.open(files).use { it.translate(text, onText = { soFar -> heard += soFar }) } to heard.size
        }
        assertEquals(text to 0, decoded(ExportPackage.of("translator"))) // no Korean: both lines kept
        val (english, pieces) = decoded(withPair(ExportPackage.of("translator"), "en", "de"))
        assertEquals(1, pieces)
        assertEquals("12345 !!", english.split("\n")[1])
    }
}
