package transformerstudio.api

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import transformerstudio.Chatbot
import transformerstudio.ReplyMode
import transformerstudio.Translator
import transformerstudio.decode.TestData

/**
 * The library's one-call API gives the app's outputs: mobile/scripts/app-fixture.py recorded `studio translate`
 * (each text alone, and the first 70 of them as one text: `document`) and `studio chat` on the shipped models' ONNX graphs,
 * with their default decoding and protection — the chatbot's default reply (a stored reply, the model's when none is
 * alike) and the model's (`--reply generate`); every output must be the app's, character for character.
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
    @DisplayName("reply gives studio chat's reply for every message: the stored one, and the model's when asked")
    fun chatbotRepliesAreTheApps() {
        val fixture = TestData.resource("app-chatbot.json")
        Chatbot.open(ExportPackage.of("chatbot", withReplies = true)).use { chatbot ->
            assertTrue(chatbot.hasStoredReplies)
            val mismatches = compare(fixture) { chatbot.reply(it) }
            mismatches += compare(fixture, "generated", "the model's replies") {
                chatbot.reply(it, mode = ReplyMode.GENERATE)
            }
            mismatches += provenance(fixture) { chatbot.replyWithSource(it) }
            assertTrue(mismatches.isEmpty(), "not the app's reply:\n" + mismatches.joinToString("\n"))
        }
    }

    /** Each case's text through [run] against its recorded [field]: the mismatches, the count printed. */
    private fun compare(
        fixture: JSONObject,
        field: String = "output",
        what: String? = null,
        run: (String) -> String,
    ): MutableList<String> {
        val cases = fixture.getJSONArray("cases")
        val mismatches = ArrayList<String>()
        val checked = TestData.checked(cases.length())
        for (i in checked) {
            val case = cases.getJSONObject(i)
            val got = run(case.getString("text"))
            if (got != case.getString(field)) {
                mismatches += "${case.getString("text")}\n  got:  $got\n  app:  ${case.getString(field)}"
            }
        }
        val task = fixture.getString("task") + (what?.let { " ($it)" } ?: "")
        println("$task: ${checked.count() - mismatches.size} of ${checked.count()} identical")
        return mismatches
    }

    /** Whether each default reply came from where the app's did (a stored reply: the same match and question). */
    private fun provenance(fixture: JSONObject, run: (String) -> transformerstudio.Reply): List<String> {
        val cases = fixture.getJSONArray("cases")
        val wrong = ArrayList<String>()
        var stored = 0
        val checked = TestData.checked(cases.length())
        for (i in checked) {
            val case = cases.getJSONObject(i)
            val reply = run(case.getString("text"))
            val app = case.optJSONObject("stored")
            if (app != null) stored++
            val same = if (app == null) !reply.stored else reply.stored &&
                reply.question == app.getString("question") && Math.abs(reply.match - app.getDouble("match")) <= 1e-6
            if (!same) wrong += "${case.getString("text")}: ${reply.summary()}, the app's ${app ?: "the model's"}"
        }
        val same = checked.count() - wrong.size
        println("chatbot: $stored of ${checked.count()} replies stored; $same came from where the app's came")
        return wrong
    }

    private fun firstDifference(got: String, wanted: String): String {
        val line = got.split("\n").zip(wanted.split("\n")).indexOfFirst { (g, w) -> g != w }
        if (line < 0) return "${got.split("\n").size} lines, the app's ${wanted.split("\n").size}"
        return "line ${line + 1}\n  got:  ${got.split("\n")[line]}\n  app:  ${wanted.split("\n")[line]}"
    }
}
