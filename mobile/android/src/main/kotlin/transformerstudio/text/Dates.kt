package transformerstudio.text

import transformerstudio.text.PyClasses.D
import transformerstudio.text.PyClasses.S
import transformerstudio.text.PyClasses.W

/**
 * Korean dates in English, and a translation's month names checked against its source's: a port of
 * studio/text/dates.py (web/src/dates.js). Python's `\b` is spelt as a lookaround on Unicode 14.0's `\w`.
 */
object Dates {
    private val NAME: String by lazy {
        val short = Facts.SHORT_NAMES.keys.joinToString("|") { it.replaceFirstChar(Char::uppercaseChar) }
        "(?<name>${Facts.MONTHS.joinToString("|")}|(?:$short)(?![$W])\\.?)"
    }

    /** "September 30, 2018", "September 30", "September 2018" or "September". */
    fun dateInEnglish(date: KoreanDate): String {
        val name = Facts.MONTHS[date.month - 1]
        if (date.day != null) return "$name ${date.day}" + (if (date.year != null) ", ${date.year}" else "")
        return name + (if (date.year != null) " ${date.year}" else "")
    }

    private fun monthOf(name: String): Int {
        val bare = Unicode14.casefold(name.trimEnd('.'))
        val full = Facts.MONTHS.indexOfFirst { Unicode14.casefold(it) == bare }
        return if (full >= 0) full + 1 else Facts.SHORT_NAMES.getValue(bare)
    }

    /** [month]'s name as [name] is written: in full, or abbreviated (a full name where news English has no short
     * one); a dot only where [name] had one. */
    private fun writtenLike(name: String, month: Int): String {
        val bare = Unicode14.casefold(name.trimEnd('.'))
        if (Facts.MONTHS.any { Unicode14.casefold(it) == bare }) return Facts.MONTHS[month - 1]
        val short = Facts.SHORT[month] ?: Facts.MONTHS[month - 1]
        return if (name.endsWith(".") || short == Facts.MONTHS[month - 1]) short else short.trimEnd('.')
    }

    /** [output] with each month name that stands beside a day or year of one of [source]'s dates ("September 9",
     * "9 September", "September 2018") made that date's month, when the day or year belongs to one month only. */
    fun repairMonths(source: String, output: String): String {
        val byAnchor = LinkedHashMap<String, MutableSet<Int>>()
        for (date in Facts.koreanDates(source)) {
            for (anchor in listOf(date.day, date.year)) {
                if (anchor != null) byAnchor.getOrPut(anchor.toString()) { LinkedHashSet() }.add(date.month)
            }
        }
        val months = byAnchor.filterValues { it.size == 1 }.mapValues { it.value.first() }
        if (months.isEmpty()) return output
        val anchors = months.keys.sortedByDescending { it.length }.joinToString("|") // stable, as Python's sorted
        val after = PyRegex("(?<![$W])$NAME(?<gap>[$S]+)(?<anchor>$anchors)(?![$D])")
        val before = PyRegex("(?<![$D])(?<anchor>$anchors)(?:st|nd|rd|th)?(?<gap>[$S]+(?:of[$S]+)?)$NAME")
        val fixed = { m: PyMatch ->
            val name = m.group("name")!!
            val month = months.getValue(m.group("anchor")!!)
            if (monthOf(name) == month) m.value
            else m.value.substring(0, m.start("name") - m.start()) + writtenLike(name, month) +
                m.value.substring(m.end("name") - m.start())
        }
        return before.sub(after.sub(output, fixed), fixed)
    }
}
