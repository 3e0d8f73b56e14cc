package transformerstudio.text

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** Term protection answers as studio/text/protect.py, numbers.py, transliteration.py and translation.py's
 * unprotect do for every case of web/test/protect-cases.json. */
class ProtectTest {
    private val fixture = Fixtures.repositoryJson("web/test/protect-cases.json")
    private fun cases(key: String) = Fixtures.objects(fixture.getJSONArray(key))
    private fun protector(c: JSONObject) = Protector(
        if (c.isNull("glossary")) Glossary() else Glossary.parse(c.getString("glossary")), c.getBoolean("auto"),
        pair = Fixtures.pair(c))

    private fun span(s: Span) = mapOf("placeholder" to s.placeholder, "original" to s.original, "english" to s.english, "kind" to s.kind)
    private fun protected(p: Protected) = mapOf("text" to p.text, "spans" to p.spans.map(::span),
        "written" to p.written.sortedWith(PyStr.codePointOrder))
    private fun expectedProtected(c: JSONObject) = mapOf("text" to c.get("text"), "spans" to c.get("spans"), "written" to c.get("written"))
    private fun placeholders(spans: List<Span>) = spans.map { it.placeholder }
    private fun assertNone(wrong: List<Difference>) = assertEquals(emptyList<Difference>(), wrong, "${wrong.size} cases differ")

    @Test
    fun `the fixture has cases for everything`() {
        assertEquals("transformer-studio-web-protect/1", fixture.getString("format"))
        for (key in listOf("protect", "remembering", "restore", "second_pass", "translate_lines", "describe",
            "amount_in_english", "sounds", "language", "glossaries", "article_for")) assertTrue(cases(key).isNotEmpty(), key)
    }

    @Test
    fun `the letters looks_like counts as Korean are Python's`() {
        assertEquals(Fixtures.canonical(fixture.getJSONArray("hangul_letters")),
            Fixtures.canonical(Script.HANGUL_LETTERS.map { listOf(it.first, it.last) }))
    }

    @Test
    fun `every protection case of the fixture is Python's answer`() {
        assertNone(differences(cases("protect"), { it.getString("source") }, { protected(protector(it).protect(it.getString("source"))) },
            ::expectedProtected))
    }

    @Test
    fun `names remembered through a document, then protected, are Python's`() {
        assertNone(differences(cases("remembering"), { it.getString("document") }, { c ->
            val memory = protector(c).remembering(c.getString("document"))
            mapOf("names" to memory.names.entries, "protected" to Fixtures.objects(c.getJSONArray("protected")).map {
                mapOf("source" to it.getString("source")) + protected(memory.protect(it.getString("source")))
            })
        }, { c -> mapOf("names" to c.get("names"), "protected" to c.get("protected")) }))
    }

    @Test
    fun `every restored output, with its repeats, once, inline and counts, is Python's`() {
        assertNone(differences(cases("restore"), { it.getString("source") }, { c ->
            val shield = protector(c).protect(c.getString("source"))
            mapOf("protected" to protected(shield), "counts" to shield.counts(),
                "outputs" to Fixtures.objects(c.getJSONArray("outputs")).map { it.getString("output") }.map { output ->
                    val restored = shield.restore(output)
                    val repeated = shield.repeated(output)
                    mapOf("output" to output, "text" to restored.text, "applied" to placeholders(restored.applied),
                        "dropped" to placeholders(restored.dropped), "repeated" to placeholders(repeated),
                        "once" to shield.once(output), "inline" to shield.inline(restored.dropped + repeated))
                })
        }, { c -> mapOf("protected" to expectedProtected(c.getJSONObject("protected")), "counts" to c.get("counts"), "outputs" to c.get("outputs")) }))
    }

    @Test
    fun `every second pass is kept or not as Python decides`() {
        assertNone(differences(cases("second_pass"), { it.getString("source") + " / " + it.getString("second_output") }, { c ->
            val shield = Protector(if (c.isNull("glossary")) Glossary() else Glossary.parse(c.getString("glossary"))).protect(c.getString("source"))
            val first = shield.restore(c.getString("first_output"))
            val repeated = shield.repeated(c.getString("first_output"))
            val writtenIn = first.dropped + repeated
            val second = Retry.restoredWith(shield, c.getString("second_output"), writtenIn)
            mapOf("written_in" to placeholders(writtenIn), "inline" to shield.inline(writtenIn),
                "second" to mapOf("text" to second.text, "applied" to placeholders(second.applied), "dropped" to placeholders(second.dropped)),
                "wins" to Retry.secondPassWins(shield, first, second, c.getString("second_output"), repeated))
        }, { c -> mapOf("written_in" to c.get("written_in"), "inline" to c.get("inline"), "second" to c.get("second"), "wins" to c.get("wins")) }))
    }

    @Test
    fun `every text translated piece by piece with protection is what Python's translate gives`() {
        assertNone(differences(cases("translate_lines"), { it.getString("text") + " / " + it.getString("translator") },
            { c -> translated(c) }, { c -> mapOf("outputs" to c.get("outputs"), "report" to c.get("report")) }))
    }

    private fun translated(c: JSONObject): Map<String, Any> {
        val model = WordTranslator(c.getString("translator"))
        val text = c.getString("text")
        val pair = Fixtures.pair(c)
        val plan = Sentences.planLines(text, { PyStr.split(it).size }, 1000, pair)
        val chosen = protector(c)
        val memory = if (chosen.enabled) chosen.remembering(text) else null
        val report = ArrayList<List<Any>>()
        val done = plan.flatten().map { piece ->
            val output = if (memory == null) model.translate(piece) else {
                val result = Retry.decodeProtected(memory.protect(piece)) { source, _ -> model.translate(source) }!!
                result.applied.forEach { report.add(listOf(span(it), true)) }
                result.dropped.forEach { report.add(listOf(span(it), false)) }
                result.text
            }
            Sentences.finishSentence(piece, output, pair)
        }
        return mapOf("outputs" to Sentences.joinPieces(plan, done, text).split("\n"), "report" to report)
    }

    @Test
    fun `every report is described in Python's words`() {
        assertNone(differences(cases("describe"), { it.getJSONArray("report").toString() }, { c ->
            Retry.describe((0 until c.getJSONArray("report").length()).map { i ->
                val pair = c.getJSONArray("report").getJSONArray(i)
                val s = pair.getJSONObject(0)
                Span(s.getString("placeholder"), s.getString("original"), s.getString("english"), s.getString("kind")) to pair.getBoolean(1)
            })
        }, { it.getString("line") }))
    }

    @Test
    fun `every amount is written in Python's English`() {
        assertNone(differences(cases("amount_in_english"), { it.getString("text") }, { Numbers.amountInEnglish(it.getString("text")) },
            { it.opt("english") }))
    }

    @Test
    fun `every article agrees as Python's article_for says`() {
        assertNone(differences(cases("article_for"), { it.getString("text") }, { Protection.articleFor(it.getString("text")) },
            { it.opt("article") }))
    }

    @Test
    fun `the sounds of every name are Python's`() {
        assertNone(differences(cases("sounds"), { it.getString("korean") + " / " + it.getString("latin") }, { c ->
            val (k, l) = c.getString("korean") to c.getString("latin")
            listOf(Transliteration.koreanSounds(k), Transliteration.latinSounds(l), Transliteration.likeness(k, l), Transliteration.soundsLike(k, l))
        }, { c -> listOf(c.get("korean_sounds"), c.get("latin_sounds"), c.getDouble("likeness"), c.get("sounds_like")) }))
    }

    @Test
    fun `what the language guess reads, and the guess, are Python's`() {
        assertNone(differences(cases("language"), { it.getString("text") }, { c ->
            val sample = Protection.languageSample(c.getString("text"))
            listOf(sample, Script.looksLikeAnotherLanguage(sample))
        }, { c -> listOf(c.get("sample"), c.get("not_korean")) }))
    }

    @Test
    fun `every glossary is parsed as Python parses it, its errors in Python's words`() {
        assertNone(differences(cases("glossaries"), { it.getString("text") }, { c ->
            try {
                mapOf("entries" to Glossary.parse(c.getString("text"), c.getString("name")).entries)
            } catch (error: GlossaryException) {
                mapOf("error" to error.message)
            }
        }, { c -> if (c.has("error")) mapOf("error" to c.get("error")) else mapOf("entries" to c.get("entries")) }))
        val many = (0..5000).joinToString("") { "단어$it\tword$it\n" }
        assertEquals("big.tsv: more than 5,000 entries",
            assertThrows(GlossaryException::class.java) { Glossary.parse(many, "big.tsv") }.message)
    }

    @Test
    fun `long inputs stay quick`() {
        val started = System.nanoTime()
        Protector(Glossary.parse("국민보건서비스\tNHS\n")).protect("국민보건서비스(" + "ab-cd ef ".repeat(220))
        Protector().protect("1".repeat(8000))
        Protector().protect("1".repeat(1999) + "만")
        assertEquals(emptyList<Pair<String, String>>(),
            Protector().remembering("가나 ".repeat(4000) + "(" + List(4000) { "Gana" }.joinToString(" ") + ")").names.entries)
        Protector().protect("https://" + "a".repeat(1990))
        Protector().protect(" ".repeat(1990) + "Xq1").restore(" ".repeat(3000) + "Xq9 " + "\t".repeat(3000) + ".")
        assertTrue((System.nanoTime() - started) / 1e9 < 10, "a hang guard, not a speed claim")
    }
}

/** The fixture's fake model (WordTranslator in web/scripts/protect-fixture.py), one source per call: translates
 * known words, copies the rest; "drops" leaves out the placeholders of a source it has not seen before, "repeats"
 * writes each placeholder twice in its first call. */
class WordTranslator(private val kind: String) {
    private val seen = HashSet<String>()
    private var calls = 0
    private val words = mapOf("회의는" to "the meeting is", "에서" to "at", "열린다" to "held", "대표와" to "with CEO",
        "만났다" to "met", "가격은" to "the price is", "무게는" to "the weight is")

    fun translate(source: String): String {
        calls++
        val split = PyStr.split(source)
        if (kind == "repeats") return split.joinToString(" ") { if (it.startsWith("Xq") && calls == 1) "$it $it" else words[it] ?: it }
        var out = split.map { words[it] ?: it }
        if (kind == "drops" && PLACEHOLDER.containsMatchIn(source) && seen.add(source)) {
            out = out.filter { !DROPPED.matches(it) }
        }
        return out.joinToString(" ")
    }

    private companion object {
        val PLACEHOLDER = Regex("Xq\\p{Nd}")
        val DROPPED = Regex("Xq\\p{Nd}+[^\\p{L}\\p{N}_]*")
    }
}
