package transformerstudio.replies

import org.json.JSONArray
import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import transformerstudio.ModelException
import transformerstudio.ModelFiles
import java.io.File
import java.nio.file.Files
import kotlin.math.abs

/**
 * Stored replies find what Python finds: the fixture (mobile/scripts/replies-fixture.py) holds hundreds of messages
 * of every kind with Python's normalized text, best row and cosine on the shipped chatbot's index, and the code points
 * Python's lower case reads around a capital sigma; every one must be the library's.
 */
class RetrievalTest {
    private val cases: List<JSONObject> = RepliesData.fixture.getJSONArray("cases").let { all ->
        List(all.length()) { all.getJSONObject(it) }
    }

    @Test
    @DisplayName("every message is normalized as Python normalizes it")
    fun normalizationIsPythons() {
        val wrong = cases.filter { RetrievalText.normalize(it.getString("text")) != it.getString("normalized") }
            .map { "${it.getString("text").take(40)}: ${RetrievalText.normalize(it.getString("text")).take(40)}" }
        assertTrue(wrong.isEmpty(), "normalized otherwise than Python:\n" + wrong.joinToString("\n"))
    }

    @Test
    @DisplayName("a capital sigma's lower case reads the code points Python reads as cased and case-ignorable")
    fun finalSigmaIsPythons() {
        val sigma = RepliesData.fixture.getJSONObject("final_sigma")
        val ignorable = codes(sigma.getJSONArray("case_ignorable"))
        val cased = codes(sigma.getJSONArray("cased"))
        val wrong = (0..0x10FFFF).filter { code ->
            code !in 0xD800..0xDFFF && transformerstudio.text.Unicode14.category(code) != "Cn" &&
                (RetrievalText.caseIgnorable(code) != (code in ignorable) ||
                    (RetrievalText.cased(code) && !RetrievalText.caseIgnorable(code)) != (code in cased))
        }
        assertTrue(wrong.isEmpty(), "otherwise than Python: " + wrong.take(20).joinToString { "U+%04X".format(it) })
        assertEquals("οδος σς σα", RetrievalText.lower("ΟΔΟΣ ΣΣ ΣΑ")) // Python's str.lower()
        assertEquals("aς'", RetrievalText.lower("AΣ'"))
        assertEquals("i\u0307stanbul", RetrievalText.lower("İSTANBUL"))
    }

    @Test
    @DisplayName("every message finds Python's row and cosine on the shipped chatbot's stored replies")
    fun bestRowsArePythons() {
        val started = System.nanoTime()
        val index = RepliesData.index()
        val readMs = (System.nanoTime() - started) / 1e6
        assertEquals(RepliesData.fixture.getInt("rows"), index.questions.size)
        var same = 0
        var largest = 0.0
        val wrong = ArrayList<String>()
        val times = ArrayList<Double>()
        for (case in cases) {
            val began = System.nanoTime()
            val (row, match) = index.best(case.getString("text"))
            times += (System.nanoTime() - began) / 1e6
            val expected = if (case.isNull("row")) -1 else case.getInt("row")
            val difference = abs(match.toDouble() - case.getDouble("match"))
            largest = maxOf(largest, difference)
            if (row == expected && difference <= 1e-6) same++
            else wrong += "${case.getString("text").take(40)}: row $row ($match), Python's $expected " +
                "(${case.getDouble("match")})"
        }
        val ties = cases.count { it.getInt("ties") > 1 }
        println("replies: $same of ${cases.size} messages find Python's row and cosine ($ties won by the lowest of " +
            "equal rows); largest cosine difference $largest")
        println("replies: the index read in %.0f ms, a message's best row in %.2f ms (median)"
            .format(java.util.Locale.ROOT, readMs, times.sorted()[times.size / 2]))
        assertTrue(wrong.isEmpty(), "not Python's:\n" + wrong.joinToString("\n"))
    }

    @Test
    @DisplayName("a package without stored replies has none, and a damaged index is refused saying so")
    fun missingAndDamagedIndexes() {
        val folder = Files.createTempDirectory("replies").toFile()
        try {
            File(folder, "manifest.json").writeText("""{"package": {}}""")
            assertEquals(null, Retrieval.open(ModelFiles.folder(folder)))
            File(folder, "manifest.json")
                .writeText("""{"replies": {"index": "replies.json", "arrays": "replies.bin"}}""")
            val index = RepliesData.portableIndex()
            File(folder, "replies.json").writeBytes(File(index, "replies.json").readBytes())
            File(folder, "replies.bin").writeBytes(File(index, "replies.bin").readBytes().copyOf(1000))
            val error = assertThrows(ModelException::class.java) { Retrieval.open(ModelFiles.folder(folder)) }
            assertTrue(error.message!!.contains("ends before"), error.message)
        } finally {
            folder.deleteRecursively()
        }
    }

    private fun codes(ranges: JSONArray): Set<Int> {
        val found = HashSet<Int>()
        for (i in 0 until ranges.length()) {
            val range = ranges.getJSONArray(i)
            for (code in range.getInt(0)..range.getInt(1)) found += code
        }
        return found
    }
}
