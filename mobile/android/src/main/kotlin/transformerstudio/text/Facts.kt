package transformerstudio.text

import transformerstudio.text.PyClasses.D
import transformerstudio.text.PyClasses.S

/** A Korean date that names a month; [span]: where the month is written (`9월`), UTF-16 indices. */
data class KoreanDate(val month: Int, val day: Int? = null, val year: Int? = null, val span: IntRange = IntRange.EMPTY)

/** Where a fact is written in a text (UTF-16 indices, end exclusive) and its value. */
data class Found(val start: Int, val end: Int, val value: String)

/**
 * The facts a translation must keep — years, months, numbers and Latin-script names — a port of
 * studio/text/facts.py (web/src/facts.js). Positions are UTF-16 indices, where Python's count code points: the
 * fixtures compare the text they cover. `\d` and `\s` are Unicode 14.0's; int() reads any decimal digit.
 */
object Facts {
    const val TILDES = "~∼〜" // the marks Korean writes a range with: `2018~2020년`, `3~4%`
    /** What a number is written with between its digits, and what may end one: "in 2018." */
    internal const val SEPARATORS = ",."

    /** A number as one reads it (digits, thousands commas, a decimal). */
    val NUMERAL: String get() = "(?<![$D.,])[$D]+(?:,[$D]{3})*(?:\\.[$D]+)?"
    /** A number as written, with any separators, and a period or comma after it (facts.NUMBER_RUN). */
    internal val NUMBER_RUN by lazy { PyRegex("[$D][$D.,]*") }

    /** The number a text ends in (Python's `$` also matches before a final newline): figures.py's open number. */
    internal val OPEN_NUMBER by lazy { PyRegex("[$D][$D.,]*(?=\\n?\\z)") }
    private val ONE_NUMBER by lazy { PyRegex("[$D]{1,3}(?:,[$D]{3})+(?:\\.[$D]+)?|[$D]+(?:\\.[$D]+)*") }
    private val PART = PyRegex("[^.,]+")
    private val AMOUNTS by lazy { PyRegex(Numbers.AMOUNT) }
    private val YEAR by lazy { PyRegex("(?<![$D.,])([$D]{4})(?:[$S]?[$TILDES-][$S]?([$D]{4}))?[$S]?년") }

    /** A span of years, which English writes with a hyphen: `2018~2020년`. */
    val YEAR_RANGE: String get() = "[$D]{4}[$S]?[$TILDES][$S]?[$D]{4}년"

    val MONTHS = listOf("January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December")

    /** The abbreviations news English writes (AP style: no short form for March to July). */
    val SHORT = mapOf(1 to "Jan.", 2 to "Feb.", 8 to "Aug.", 9 to "Sept.", 10 to "Oct.", 11 to "Nov.", 12 to "Dec.")
    val SHORT_NAMES = linkedMapOf("jan" to 1, "feb" to 2, "mar" to 3, "apr" to 4, "jun" to 6, "jul" to 7,
        "aug" to 8, "sep" to 9, "sept" to 9, "oct" to 10, "nov" to 11, "dec" to 12)
    private val KOREAN_DATE by lazy {
        PyRegex("(?<![$D.,])(?:(?<year>[$D]{4})[$S]?년[$S]?)?(?<written>(?<month>1[0-2]|0?[1-9])[$S]?월)" +
            "(?:[$S]?(?<day>3[01]|[12][0-9]|0?[1-9])[$S]?일)?")
    }

    /** Latin script with diacritics ("Köln", "José"), for character classes. */
    const val LATIN_LETTER = "A-Za-z\\x{C0}-\\x{D6}\\x{D8}-\\x{F6}\\x{F8}-\\x{24F}"
    private const val LATIN_WORD = "[$LATIN_LETTER][${LATIN_LETTER}0-9&'’.\\-]*[${LATIN_LETTER}0-9]"

    /** Words of Latin script joined by single spaces, a number among them ("iPhone 15"). The repetition is
     * possessive, where Python's is greedy: java.util.regex recurses once per repetition of a group and overflows
     * the stack on a run of thousands of words; giving words back never lets what follows a name match (a word's
     * end or a space before one is no closing bracket), so every match is the same. */
    val LATIN_NAME: String get() = "$LATIN_WORD(?: (?:$LATIN_WORD|[$D]+))*+"
    private val LATIN_NAMES by lazy { PyRegex(LATIN_NAME) }

    /** The dates of [text] that name a month. */
    fun koreanDates(text: String): List<KoreanDate> = KOREAN_DATE.findAll(text).map { m ->
        KoreanDate(m.group("month")!!.toInt(), m.group("day")?.toInt(),
            m.group("year")?.let { Numbers.asciiDigits(it).toInt() }, m.start("written") until m.end("written"))
    }

    /** The ways English writes [month] (1-12): "September", "Sep.", "Sept.". */
    fun monthForms(month: Int): List<String> {
        val name = MONTHS[month - 1]
        return listOf(name, name.substring(0, 3) + ".", SHORT[month] ?: name).distinct()
    }

    /** The years [text] writes as years: {"2018", "2020"} for `2018년에서 2020년까지` or `2018~2020년`. */
    fun sourceYears(text: String): Set<String> =
        YEAR.findAll(text).flatMap { listOfNotNull(it.group(1), it.group(2)) }.toSet()

    /** Each number [text] writes, its value without thousands commas; a run that is a list ("1,2,3") gives each
     * of its numbers. */
    fun writtenNumbers(text: String): List<Found> {
        val found = ArrayList<Found>()
        for (run in NUMBER_RUN.findAll(text)) {
            val body = PyStr.rstrip(run.value, SEPARATORS)
            if (ONE_NUMBER.fullMatch(body)) {
                found.add(Found(run.start(), run.start() + body.length, body.replace(",", "")))
                continue
            }
            for (part in PART.findAll(body)) found.add(Found(run.start() + part.start(), run.start() + part.end(), part.value))
        }
        return found
    }

    /** The values of the numbers [text] writes ([writtenNumbers]). */
    fun numberValues(text: String): Set<String> = writtenNumbers(text).map { it.value }.toSet()

    /** Each Korean amount of [text] that reads as one ([Numbers]), its value the English. */
    fun koreanAmounts(text: String): List<Found> = AMOUNTS.findAll(text).mapNotNull { m ->
        Numbers.amountInEnglish(m.value)?.let { Found(m.start(), m.end(), it) }
    }

    /** The numbers a translation of [text] may write: each number without thousands commas and its parts between
     * separators, a Korean amount's also as English writes it (`1만8500` -> "18,500"). */
    fun sourceNumbers(text: String): Set<String> {
        val numbers = LinkedHashSet<String>()
        val joined = (listOf(text) + koreanAmounts(text).map { it.value }).joinToString(" ")
        for (run in NUMBER_RUN.findAll(joined)) {
            val body = PyStr.rstrip(run.value, SEPARATORS)
            numbers.add(body.replace(",", ""))
            numbers.addAll(body.split('.', ',').filter { it.isNotEmpty() })
        }
        return numbers
    }

    /** "1234567" -> "1,234,567": digits grouped by three with commas, counted as code points (Python's `f"{n:,}"`
     * on the digits as written, figures.py's with_commas). */
    fun withCommas(digits: String): String {
        val points = digits.codePoints().toArray()
        val head = if (points.size % 3 == 0) 3 else points.size % 3
        val groups = mutableListOf(String(points, 0, minOf(head, points.size)))
        var i = head
        while (i < points.size) {
            groups += String(points, i, minOf(3, points.size - i))
            i += 3
        }
        return groups.joinToString(",")
    }

    /** The runs of Latin script [text] writes: "Zoran Zaev", "iPhone 15", "Köln". */
    fun latinNames(text: String): List<String> = LATIN_NAMES.findAll(text).map { it.value }
}
