package transformerstudio.api

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import transformerstudio.Chatbot
import transformerstudio.InputException
import transformerstudio.ModelException
import transformerstudio.Translator
import transformerstudio.decode.CancellationToken
import transformerstudio.decode.TestData
import java.io.File
import java.util.concurrent.CancellationException

/** The chatbot's API, and clear errors for a folder that is not a model package. */
class ChatbotAndModelFilesTest {
    @Test
    @DisplayName("the chatbot refuses empty input, streams its reply token by token, and can be cancelled")
    fun chatbotStreamsAndCancels() {
        val case = TestData.resource("app-chatbot.json").getJSONArray("cases").getJSONObject(0)
        Chatbot.open(ExportPackage.of("chatbot")).use { bot -> // without stored replies: the model's, streamed
            assertEquals("Please type something first.", assertThrows<InputException> { bot.reply(" ") }.message)
            val seen = ArrayList<String>()
            assertEquals(case.getString("generated"), bot.reply(case.getString("text"), onText = { seen += it }))
            assertTrue(seen.size > 3, "token by token: $seen")
            assertEquals(case.getString("generated"), seen.last())
            val cancellation = CancellationToken()
            val partial = ArrayList<String>()
            assertThrows<CancellationException> {
                bot.reply(case.getString("text"), onText = { partial += it; cancellation.cancel() }, cancellation = cancellation)
            }
            assertEquals(1, partial.size, "stopped after the first token")
        }
    }

    @Test
    @DisplayName("a folder that is not a package, or a damaged one, says so")
    fun badFoldersSaySo(@TempDir dir: File) {
        val missing = assertThrows<ModelException> { Translator.open(dir) }
        assertTrue("has no manifest.json" in missing.message!!, missing.message)
        File(dir, "manifest.json").writeText("{not json")
        val damaged = assertThrows<ModelException> { Translator.open(dir) }
        assertTrue("manifest.json" in damaged.message!! && "damaged" in damaged.message!!, damaged.message)
        File(dir, "manifest.json").writeText("{}")
        assertTrue("not a package's" in assertThrows<ModelException> { Translator.open(dir) }.message!!)
    }

    @Test
    @DisplayName("damaged graphs or a damaged tokenizer are named, not a raw runtime error")
    fun damagedFilesAreNamed(@TempDir dir: File) {
        val files = ExportPackage.of("chatbot")
        for (path in listOf("manifest.json", "config.json", "tokenizer/shared.spm.model", "encode.onnx", "decode_step.onnx")) {
            File(dir, path).apply { parentFile.mkdirs() }.writeBytes(files.bytes(path))
        }
        File(dir, "decode_step.onnx").writeBytes(ByteArray(64) { 7 })
        val graph = assertThrows<ModelException> { Chatbot.open(dir) }
        assertTrue(graph.message!!.startsWith("ONNX Runtime cannot load the graphs of the folder $dir"), graph.message)
        File(dir, "tokenizer/shared.spm.model").writeBytes(ByteArray(10) { 3 })
        val tokenizer = assertThrows<ModelException> { Chatbot.open(dir) }
        assertTrue("the tokenizer tokenizer/shared.spm.model" in tokenizer.message!!, tokenizer.message)
    }

    @Test
    @DisplayName("another model's tokenizer or graphs in a package are refused when it opens, not decoded to garbage")
    fun anotherModelsFilesAreRefused(@TempDir dir: File) {
        val translator = ExportPackage.of("translator")
        val chatbot = ExportPackage.of("chatbot")
        val paths = listOf(
            "manifest.json", "config.json", "tokenizer/shared.spm.model", "encode.onnx", "decode_step.onnx",
        )
        fun write(path: String, from: ExportPackage) =
            File(dir, path).apply { parentFile.mkdirs() }.writeBytes(from.bytes(path))
        paths.forEach { write(it, translator) }
        Translator.open(dir).close() // the translator's own files open
        write("tokenizer/shared.spm.model", chatbot)
        val tokenizer = assertThrows<ModelException> { Translator.open(dir) }
        assertTrue("the tokenizer tokenizer/shared.spm.model of the folder $dir has 8000 pieces and the model's " +
            "graphs 16000" in tokenizer.message!!, tokenizer.message)
        write("tokenizer/shared.spm.model", translator)
        write("encode.onnx", chatbot) // the encoder alone, then both graphs
        val encoder = assertThrows<ModelException> { Translator.open(dir) }
        assertTrue(encoder.message!!.startsWith("the graphs of the folder $dir are not its manifest's model: encode "),
            encoder.message)
        write("decode_step.onnx", chatbot)
        val graphs = assertThrows<ModelException> { Translator.open(dir) }
        assertTrue(graphs.message!!.startsWith("the graphs of the folder $dir are not its manifest's model: "),
            graphs.message)
    }

    @Test
    @DisplayName("a chatbot package is not a translator")
    fun wrongTask() {
        val error = assertThrows<ModelException> { Translator.open(ExportPackage.of("chatbot")) }
        assertEquals("this package's model is a chatbot, not a translator: use Chatbot.open", error.message)
    }
}
