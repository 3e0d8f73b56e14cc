package transformerstudio.tokenizer

import org.json.JSONArray
import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.util.Base64
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * The tokenizer against Python's answers (tokenizer-cases.json, written by mobile/scripts/tokenizer-fixture.py):
 * the shipped bundles' tokenizers, read from `assets.dir` (the repository's assets/ by default), and two small
 * models stored in the fixture.
 */
class SentencePieceTest {
    companion object {
        private val cases: JSONObject by lazy {
            val text = SentencePieceTest::class.java.getResource("/tokenizer-cases.json")!!.readText(Charsets.UTF_8)
            JSONObject(text)
        }
        private val texts: List<String> by lazy {
            cases.getJSONArray("texts").let { array -> List(array.length()) { array.getString(it) } }
        }
        private val assets = File(System.getProperty("assets.dir", "../../assets"))
        private val tokenizers = HashMap<String, SentencePiece>()

        @Synchronized
        fun tokenizer(name: String): SentencePiece = tokenizers.getOrPut(name) { SentencePiece.load(modelBytes(name)) }

        fun modelBytes(name: String): ByteArray {
            val model = cases.getJSONObject("models").getJSONObject(name)
            return if (model.has("model")) File(assets, model.getString("model")).readBytes()
            else Base64.getDecoder().decode(model.getString("model_base64"))
        }

        fun modelNames(): List<String> = cases.getJSONObject("models").keySet().sorted()

        fun ints(array: JSONArray) = IntArray(array.length()) { array.getInt(it) }

        /** Where two id sequences first differ, with a few ids around it. */
        fun difference(want: IntArray, got: IntArray): String {
            val at = want.indices.firstOrNull { it >= got.size || want[it] != got[it] } ?: want.size
            val window = maxOf(0, at - 3) until at + 6
            return "ids differ from index $at of ${want.size} (got ${got.size}): want " +
                "${want.slice(window.filter { it < want.size })} got ${got.slice(window.filter { it < got.size })}"
        }

        /** A text as a Kotlin string literal would write it, so that a failure shows invisible characters. */
        fun shown(text: String, limit: Int = 120): String = text.take(limit).map { c ->
            if (c.code in 0x21..0x7E || (Character.isLetterOrDigit(c) && !Character.isSurrogate(c))) c.toString()
            else "\\u%04x".format(c.code)
        }.joinToString("") + if (text.length > limit) "…(${text.length} chars)" else ""
    }

    @Test
    fun `ids equal sentencepiece's on every fixture line`() {
        val failures = ArrayList<String>()
        for (name in modelNames()) {
            val expected = cases.getJSONObject("models").getJSONObject(name).getJSONArray("ids")
            var matched = 0
            texts.forEachIndexed { i, text ->
                val want = ints(expected.getJSONArray(i))
                val got = tokenizer(name).encode(text)
                if (want.contentEquals(got)) matched++
                else failures.add("$name line $i \"${shown(text)}\": ${difference(want, got)}")
            }
            println("$name: ids of $matched of ${texts.size} fixture lines equal sentencepiece's")
        }
        assertTrue(failures.isEmpty(), "${failures.size} lines differ:\n" + failures.take(15).joinToString("\n"))
    }

    @Test
    fun `decoding each line's ids gives the app's text`() {
        val failures = ArrayList<String>()
        for (name in modelNames()) {
            val model = cases.getJSONObject("models").getJSONObject(name)
            val ids = model.getJSONArray("ids")
            val decoded = model.getJSONArray("decoded")
            texts.forEachIndexed { i, text ->
                val want = if (decoded.isNull(i)) text else decoded.getString(i)
                val got = tokenizer(name).decode(ints(ids.getJSONArray(i)))
                if (want != got) failures.add("$name line $i: want \"${shown(want)}\" got \"${shown(got)}\"")
            }
        }
        assertTrue(failures.isEmpty(), "${failures.size} decodes differ:\n" + failures.take(15).joinToString("\n"))
    }

    @Test
    fun `decoding ids with specials, unknowns and broken byte pieces gives the app's text`() {
        val failures = ArrayList<String>()
        var count = 0
        for (name in modelNames()) {
            val decodeCases = cases.getJSONObject("models").getJSONObject(name).getJSONArray("decode_cases")
            for (k in 0 until decodeCases.length()) {
                val case = decodeCases.getJSONObject(k)
                val ids = ints(case.getJSONArray("ids"))
                val got = tokenizer(name).decode(ids)
                count++
                if (got != case.getString("decoded")) {
                    val want = case.getString("decoded")
                    failures.add("$name ${ids.toList()}: want \"${shown(want)}\" got \"${shown(got)}\"")
                }
            }
        }
        println("decode cases: ${count - failures.size} of $count equal the app's")
        assertTrue(failures.isEmpty(), "${failures.size} decodes differ:\n" + failures.take(15).joinToString("\n"))
    }

    @Test
    fun `a lone surrogate reaches the tokenizer as it was and is read as U+FFFD`() {
        // else a fixture line with one could pass however org.json or the tokenizer treated it
        assertTrue("\uD800" in texts && "a\uD800b\uDC00c" in texts && "\uDC00\uD800" in texts)
        val tokenizer = tokenizer("translator")
        assertTrue(tokenizer.encode("가\uD800나").contentEquals(tokenizer.encode("가\uFFFD나")))
        assertTrue(tokenizer.encode("\uDC00\uD800").contentEquals(tokenizer.encode("\uFFFD\uFFFD")))
        assertTrue(tokenizer.encode("\uD83D\uDE00").contentEquals(tokenizer.encode("😀")))
    }

    @Test
    fun `the shipped tokenizers are read from the bundles' assets`() {
        for (name in listOf("chatbot", "translator")) {
            val path = cases.getJSONObject("models").getJSONObject(name).getString("model")
            val tokenizer = SentencePiece.load(File(assets, path))
            assertEquals(listOf(0, 1, 2, 3), listOf(tokenizer.padId, tokenizer.bosId, tokenizer.eosId, tokenizer.unkId))
            assertEquals(listOf("<pad>", "<s>", "</s>", "<unk>"), (0..3).map { tokenizer.idToPiece(it) })
            for (id in 0 until tokenizer.vocabSize) assertEquals(id, tokenizer.pieceToId(tokenizer.idToPiece(id)))
            assertEquals(tokenizer.unkId, tokenizer.pieceToId("no such piece"))
            assertEquals(if (name == "chatbot") 8000 else 16000, tokenizer.vocabSize)
        }
    }

    @Test
    fun `an id outside the vocabulary is refused`() {
        val tokenizer = tokenizer("chatbot")
        val error = assertThrows<IllegalArgumentException> { tokenizer.decode(intArrayOf(5, 8000)) }
        assertTrue("out of range" in error.message!!, error.message)
        assertThrows<IllegalArgumentException> { tokenizer.idToPiece(-1) }
    }

    @Test
    fun `a model that is not unigram is refused with a clear message`() {
        // a second trainer_spec (field 2) holding model_type (field 3) = BPE (2): protobuf merges it into the first
        val bpe = modelBytes("chatbot") + byteArrayOf(0x12, 0x02, 0x18, 0x02)
        val error = assertThrows<SentencePieceModelException> { SentencePiece.load(bpe) }
        assertTrue("BPE model" in error.message!! && "UNIGRAM models only" in error.message!!, error.message)
    }

    @Test
    fun `a corrupt model file is refused with a clear message`() {
        val model = modelBytes("translator")
        val broken = mapOf(
            "cut short" to model.copyOf(model.size / 2),
            "not a model" to "<html>Not Found</html>".toByteArray(),
            "empty" to ByteArray(0),
            "random bytes" to ByteArray(4096) { (it * 7919 % 251).toByte() },
            // a second normalizer_spec whose precompiled_charsmap says its trie is 1,024 bytes of the 8 it has
            "damaged normalization rules" to model + byteArrayOf(0x1A, 0x0A, 0x12, 0x08, 0, 4, 0, 0, 1, 2, 3, 4),
        )
        for ((what, bytes) in broken) {
            val error = assertThrows<SentencePieceModelException>(what) { SentencePiece.load(bytes) }
            println("$what: ${error.message}")
            assertTrue(error.message!!.isNotBlank())
        }
    }

    @Test
    fun `one tokenizer encodes from many threads at once`() {
        val tokenizer = tokenizer("translator")
        val expected = texts.map { tokenizer.encode(it) }
        val pool = Executors.newFixedThreadPool(4)
        val results = (0 until 4).map { thread ->  // each thread starts at a different line
            pool.submit<Boolean> {
                texts.indices.map { (it + thread * texts.size / 4) % texts.size }
                    .all { tokenizer.encode(texts[it]).contentEquals(expected[it]) }
            }
        }
        pool.shutdown()
        assertTrue(pool.awaitTermination(2, TimeUnit.MINUTES))
        assertTrue(results.all { it.get() })
    }

    @Test
    fun `encoding takes milliseconds per sentence (printed, not checked)`() {
        for (name in listOf("chatbot", "translator")) {
            val tokenizer = tokenizer(name)
            repeat(3) { texts.forEach { tokenizer.encode(it) } }  // warm up the JIT
            val rounds = 5
            val started = System.nanoTime()
            repeat(rounds) { texts.forEach { tokenizer.encode(it) } }
            val perLine = (System.nanoTime() - started) / 1e6 / (rounds * texts.size)
            val line = "오바마는 대통령이다. Obama is the president. 3조 5천억 원 😀 ".repeat(20).take(1000)
            val longStarted = System.nanoTime()
            repeat(100) { tokenizer.encode(line) }
            val perLong = (System.nanoTime() - longStarted) / 1e6 / 100
            val chars = texts.sumOf { it.length } / texts.size
            println("$name: %.4f ms per fixture line (%d lines, %d chars on average), %.3f ms per 1,000-character line"
                .format(perLine, texts.size, chars, perLong))
        }
    }
}
