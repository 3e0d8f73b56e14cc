package transformerstudio.text

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** The facts of a text (Facts, Numbers) are Python's, case by case (web/test/facts-cases.json). */
class FactsTest {
    private val fixture = Fixtures.repositoryJson("web/test/facts-cases.json")
    private val texts = Fixtures.objects(fixture.getJSONArray("texts"))
    private fun covered(text: String, found: Found) = listOf(text.substring(found.start, found.end), found.value)

    private val readers = mapOf<String, (String) -> Any>(
        "years" to { text -> Facts.sourceYears(text).sortedWith(PyStr.codePointOrder) },
        "dates" to { text -> Facts.koreanDates(text).map { listOf(it.month, it.day, it.year, text.substring(it.span.first, it.span.last + 1)) } },
        "numbers" to { text -> Facts.writtenNumbers(text).map { covered(text, it) } },
        "amounts" to { text -> Facts.koreanAmounts(text).map { covered(text, it) } },
        "allowed" to { text -> Facts.sourceNumbers(text).sortedWith(PyStr.codePointOrder) },
        "names" to { text -> Facts.latinNames(text) },
    )

    @Test
    fun `the fixture is Python's and holds texts of every kind`() {
        assertEquals("transformer-studio-web-facts/1", fixture.getString("format"))
        assertTrue(texts.size > 200)
    }

    @Test
    fun `a month is written in English as Python writes it`() {
        assertEquals(Fixtures.canonical(fixture.getJSONArray("month_forms")),
            Fixtures.canonical((1..12).map(Facts::monthForms)))
    }

    @Test
    fun `every text's years, dates, numbers, amounts, allowed numbers and names are Python's`() {
        val wrong = readers.flatMap { (kind, read) ->
            differences(texts, { "$kind ${PyStr.repr(it.getString("text"))}" }, { read(it.getString("text")) },
                { it.getJSONArray(kind) })
        }
        assertEquals(emptyList<Difference>(), wrong, "${wrong.size} answers differ")
    }

    @Test
    fun `every source's numbers, years and dates in English are Python's (figures-cases json)`() {
        val sources = Fixtures.objects(Fixtures.repositoryJson("web/test/figures-cases.json").getJSONArray("sources"))
        val wrong = differences(sources, { it.getString("source") }, { c ->
            val source = c.getString("source")
            listOf(Facts.sourceNumbers(source).sortedWith(PyStr.codePointOrder),
                Facts.sourceYears(source).sortedWith(PyStr.codePointOrder), Facts.koreanDates(source).map(Dates::dateInEnglish))
        }, { c -> listOf(c.getJSONArray("numbers"), c.getJSONArray("years"), c.getJSONArray("dates")) })
        assertEquals(emptyList<Difference>(), wrong)
        assertTrue(sources.size >= 10)
    }

    @Test
    fun `a run of thousands of multipliers reads as Python reads it, without overflowing the stack`() {
        val text = "1천 ".repeat(3000) + "만 원"
        assertEquals(listOf(Found(0, 9003, "30 billion won")), Facts.koreanAmounts(text)) // Python's answer
    }
}
