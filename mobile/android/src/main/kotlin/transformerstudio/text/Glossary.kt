package transformerstudio.text

/** A glossary (or other data) that cannot be read; the message names where: "NAME:LINE: …", as Python's DataError. */
class GlossaryException(message: String) : IllegalArgumentException(message)

/**
 * (Korean term, English) pairs in the order they were written, a port of studio/text/protect.py's Glossary (a
 * term's matching tries the longest first, so "삼성전자" wins over "삼성"). Immutable, so thread-safe.
 */
class Glossary(val entries: List<Pair<String, String>> = emptyList()) {
    /** Whether it has no entry (Python's not glossary). */
    fun isEmpty(): Boolean = entries.isEmpty()

    /** Both glossaries' entries; [other]'s English wins for a term in both. */
    fun extended(other: Glossary): Glossary = of(LinkedHashMap<String, String>().apply {
        this@Glossary.entries.forEach { put(it.first, it.second) }
        other.entries.forEach { put(it.first, it.second) }
    })

    /** The entries as a map, term -> English. */
    fun asMap(): Map<String, String> = entries.toMap(LinkedHashMap())

    internal val pattern: PyRegex by lazy { Protection.glossaryPattern(entries.map { it.first }) }

    companion object {
        const val MAX_GLOSSARY_ENTRIES = 5000
        const val MAX_TERM_CHARS = 200
        private val TYPED_SEPARATOR = PyRegex("=>|->|=|→") // a line without a tab: `삼성 = Samsung`

        fun of(entries: Map<String, String>) = Glossary(entries.map { it.key to it.value })

        /** `korean<TAB>english` per line (TSV), or `korean = english` (also `→`, `->`, `=>`): a phone's or a
         * browser's text box cannot type a tab. Blank lines and lines starting with # are skipped.
         * @throws GlossaryException naming the line, as the app's message does */
        fun parse(text: String, name: String = "glossary"): Glossary {
            val entries = LinkedHashMap<String, String>()
            val writtenOn = HashMap<String, Int>() // each term's line
            for ((index, line) in PyStr.splitLines(text).withIndex()) {
                val number = index + 1
                if (PyStr.strip(line).isEmpty() || PyStr.lstrip(line).startsWith("#")) continue
                val parts = if ('\t' in line) line.split('\t') else TYPED_SEPARATOR.split(line)
                if (parts.size != 2 || PyStr.strip(parts[0]).isEmpty() || PyStr.strip(parts[1]).isEmpty()) {
                    throw GlossaryException("$name:$number: expected the Korean term and its English separated by a " +
                        "tab, = or →, got ${PyStr.repr(PyStr.head(line, 60))}")
                }
                val term = PyStr.strip(parts[0])
                val english = PyStr.split(parts[1]).joinToString(" ")
                if (PyStr.length(term) > MAX_TERM_CHARS || PyStr.length(english) > MAX_TERM_CHARS) {
                    throw GlossaryException("$name:$number: a glossary entry is limited to $MAX_TERM_CHARS characters")
                }
                val before = entries[term]
                if (before != null && before != english) {
                    throw GlossaryException("$name:$number: $term is given twice, as ${PyStr.repr(before)} on line " +
                        "${writtenOn[term]} and as ${PyStr.repr(english)} here; keep one")
                }
                entries[term] = english
                writtenOn[term] = number
                if (entries.size > MAX_GLOSSARY_ENTRIES) {
                    throw GlossaryException("$name: more than %,d entries".format(java.util.Locale.ROOT, MAX_GLOSSARY_ENTRIES))
                }
            }
            return of(entries)
        }
    }
}
