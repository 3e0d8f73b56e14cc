package transformerstudio.text

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** The steps that follow a model's language pair answer as studio/tasks.py's LanguagePair has studio/translation.py
 * and studio/text/protect.py answer, for every pair of pair-cases.json (mobile/scripts/pair-fixture.py). */
class LanguagePairTest {
    private val fixture = JSONObject(Fixtures.resourceText("pair-cases.json"))
    private val pairs = Fixtures.objects(fixture.getJSONArray("pairs"))
    private fun pair(c: JSONObject) = LanguagePair(c.getString("source"), c.getString("target"))
    private fun cases(c: JSONObject, key: String) = Fixtures.objects(c.getJSONArray(key))
    private fun words(text: String) = PyStr.split(text).size
    private fun assertNone(wrong: List<Difference>) =
        assertEquals(emptyList<Difference>(), wrong, "${wrong.size} cases differ")

    private fun protected(p: Protected) = mapOf("text" to p.text, "spans" to p.spans.map {
        mapOf("placeholder" to it.placeholder, "original" to it.original, "english" to it.english, "kind" to it.kind)
    })

    private fun protector(c: JSONObject, pair: LanguagePair) =
        Protector(if (c.isNull("glossary")) Glossary() else Glossary.parse(c.getString("glossary"))).forPair(pair)

    /** Every case of [key] in every pair, named by its pair. */
    private fun differencesIn(key: String, name: (JSONObject) -> String, got: (LanguagePair, JSONObject) -> Any?,
                              expected: (JSONObject) -> Any?): List<Difference> = pairs.flatMap { p ->
        differences(cases(p, key), { "${pair(p)}: ${name(it)}" }, { got(pair(p), it) }, expected)
    }

    @Test
    fun `the fixture has every case for several pairs`() {
        assertEquals("transformer-studio-pair/1", fixture.getString("format"))
        assertTrue(pairs.size >= 3)
        for (p in pairs) for (key in listOf("plan_lines", "finish_sentence", "protect", "remembering")) {
            assertTrue(cases(p, key).isNotEmpty(), key)
        }
    }

    @Test
    fun `a package's task section gives Python's pair, the shipped one's where it names none`() {
        val tasks = Fixtures.objects(fixture.getJSONArray("language_pair"))
        assertNone(differences(tasks, { it.getJSONObject("task").toString() },
            { LanguagePair.of(it.getJSONObject("task")).let { p -> listOf(p.source, p.target) } },
            { it.getJSONArray("pair") }))
        assertEquals(LanguagePair.KOREAN_ENGLISH, LanguagePair.of(JSONObject()))
    }

    @Test
    fun `each pair protects the kinds Python's does`() {
        assertNone(differences(pairs, { pair(it).toString() }, { c ->
            (ProtectPatterns.AUTO_KINDS + "named").filter(pair(c)::protects)
        }, { it.getJSONArray("protects") }))
    }

    @Test
    fun `lines are translated or kept, and the kept ones warned about, as Python's translate does for each pair`() {
        assertNone(differencesIn("plan_lines", { it.getString("text") }, { pair, c ->
            val text = c.getString("text")
            listOf(Sentences.planLines(text, ::words, 8, pair), listOfNotNull(Sentences.keptWarning(text, pair)))
        }, { listOf(it.getJSONArray("plan"), it.getJSONArray("warnings")) }))
    }

    @Test
    fun `outputs are finished as English only where Python's pair has an English target`() {
        assertNone(differencesIn("finish_sentence", { it.getString("output") },
            { pair, c -> Sentences.finishSentence(c.getString("source"), c.getString("output"), pair) },
            { it.getString("finished") }))
    }

    @Test
    fun `term protection passes through the spans Python's protector for the pair does`() {
        assertNone(differencesIn("protect", { it.getString("source") },
            { pair, c -> protected(protector(c, pair).protect(c.getString("source"))) },
            { mapOf("text" to it.get("text"), "spans" to it.get("spans")) }))
    }

    @Test
    fun `names a document introduced are remembered only where Python's pair protects names`() {
        assertNone(differencesIn("remembering", { it.getString("document") }, { pair, c ->
            val memory = protector(c, pair).remembering(c.getString("document"))
            mapOf("names" to memory.names.entries) + protected(memory.protect(c.getString("source")))
        }, { mapOf("names" to it.get("names"), "text" to it.get("text"), "spans" to it.get("spans")) }))
    }
}
