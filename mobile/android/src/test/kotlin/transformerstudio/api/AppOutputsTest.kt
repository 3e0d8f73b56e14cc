package transformerstudio.api

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import transformerstudio.Chatbot
import transformerstudio.Translator
import transformerstudio.decode.TestData

/**
 * The library's one-call API gives the app's outputs: mobile/scripts/app-fixture.py recorded `studio translate`
 * (each text alone, and the first 70 of them as one text: `document`) and `studio chat` on the shipped models' ONNX graphs,
 * with their default decoding and protection; every output must be the app's, character for character.
 */
class AppOutputsTest {
    @Test
    @DisplayName("translate gives studio translate's output for every text, and for the first 70 as one text")
    fun translatorOutputsAreTheApps() {
        val fixture = TestData.resource("app-translator.json")
        Translator.open(ExportPackage.of("translator")).use { translator ->
            val mismatches = compare(fixture) { translator.translate(it) }
            val document = fixture.getJSONObject("document")
            val whole = translator.translate(document.getString("text"))
            val wanted = document.getString("output")
            val lines = whole.split("\n").zip(wanted.split("\n")).count { (got, want) -> got == want }
            println("translator document: ${if (whole == wanted) "identical" else "differs"}; $lines of " +
                "${wanted.split("\n").size} lines identical")
            if (whole != wanted) mismatches += "the document: " + firstDifference(whole, wanted)
            assertTrue(mismatches.isEmpty(), "not the app's output:\n" + mismatches.joinToString("\n"))
        }
    }

    @Test
    @DisplayName("reply gives studio chat's reply for every message")
    fun chatbotRepliesAreTheApps() {
        val fixture = TestData.resource("app-chatbot.json")
        Chatbot.open(ExportPackage.of("chatbot")).use { chatbot ->
            val mismatches = compare(fixture) { chatbot.reply(it) }
            assertTrue(mismatches.isEmpty(), "not the app's reply:\n" + mismatches.joinToString("\n"))
        }
    }

    /** Each case's text through [run] against its recorded output: the mismatches, the count printed. */
    private fun compare(fixture: JSONObject, run: (String) -> String): MutableList<String> {
        val cases = fixture.getJSONArray("cases")
        val mismatches = ArrayList<String>()
        for (i in 0 until cases.length()) {
            val case = cases.getJSONObject(i)
            val got = run(case.getString("text"))
            if (got != case.getString("output")) {
                mismatches += "${case.getString("text")}\n  got:  $got\n  app:  ${case.getString("output")}"
            }
        }
        println("${fixture.getString("task")}: ${cases.length() - mismatches.size} of ${cases.length()} identical")
        return mismatches
    }

    private fun firstDifference(got: String, wanted: String): String {
        val line = got.split("\n").zip(wanted.split("\n")).indexOfFirst { (g, w) -> g != w }
        if (line < 0) return "${got.split("\n").size} lines, the app's ${wanted.split("\n").size}"
        return "line ${line + 1}\n  got:  ${got.split("\n")[line]}\n  app:  ${wanted.split("\n")[line]}"
    }
}
