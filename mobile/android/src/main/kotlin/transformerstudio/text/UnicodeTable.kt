package transformerstudio.text

/** Sorted, non-overlapping code point ranges, asked by binary search. */
internal class CodeRanges(private val starts: IntArray, private val ends: IntArray) {
    fun contains(code: Int): Boolean {
        val at = indexAtOrBefore(starts, code)
        return at >= 0 && code <= ends[at]
    }

    /** The ranges as the contents of a java.util.regex character class. */
    fun asClass(): String = starts.indices.joinToString("") { i -> classRange(starts[i], ends[i]) }

    companion object {
        /** "a-f 20 100-1ff" (hex) read. */
        fun parse(text: String): CodeRanges {
            val parts = text.split(' ').filter { it.isNotEmpty() }
            val starts = IntArray(parts.size)
            val ends = IntArray(parts.size)
            parts.forEachIndexed { i, part ->
                val bounds = part.split('-')
                starts[i] = bounds[0].toInt(16)
                ends[i] = bounds.last().toInt(16)
            }
            return CodeRanges(starts, ends)
        }
    }
}

/** The index of the last of the ascending [starts] that is at most [code], or -1. */
internal fun indexAtOrBefore(starts: IntArray, code: Int): Int {
    var low = 0
    var high = starts.size - 1
    var found = -1
    while (low <= high) {
        val middle = (low + high) ushr 1
        if (starts[middle] <= code) {
            found = middle
            low = middle + 1
        } else {
            high = middle - 1
        }
    }
    return found
}

/**
 * One range for a java.util.regex character class: `\x{41}-\x{5a}`. A code point beyond U+FFFF is written as
 * itself, not escaped: only a pattern that holds such a character literally makes java.util.regex look behind by
 * code points (else `(?<![\w])` would see the low surrogate of a letter such as "𐐨" and not the letter).
 */
internal fun classRange(first: Int, last: Int): String =
    if (first == last) classChar(first) else "${classChar(first)}-${classChar(last)}"

private fun classChar(code: Int): String =
    if (code >= 0x10000) String(Character.toChars(code)) else "\\x{${code.toString(16)}}"

/** The sections of unicode14.txt (see mobile/scripts/unicode14-tables.py for the format), parsed. */
internal class UnicodeTable(sections: Map<String, String>) {
    private val categoryStarts: IntArray
    private val categories: Array<String>
    val space = CodeRanges.parse(sections.getValue("space"))
    val lower = CodeRanges.parse(sections.getValue("lower"))
    val upper = CodeRanges.parse(sections.getValue("upper"))
    val toLower = mapping(sections.getValue("tolower")).mapValues { codesToString(it.value) }
    val toUpper = mapping(sections.getValue("toupper")).mapValues { codesToString(it.value) }
    val caseFold = mapping(sections.getValue("casefold")).mapValues { codesToString(it.value) }
    val decomposition: Map<Int, IntArray> = mapping(sections.getValue("nfd"))
    private val cccStarts: IntArray
    private val cccEnds: IntArray
    private val cccValues: IntArray
    private val compositions = HashMap<Long, Int>()

    init {
        val runs = words(sections.getValue("category")).map { it.split(':') }
        categoryStarts = IntArray(runs.size) { runs[it][0].toInt(16) }
        categories = Array(runs.size) { runs[it][1].intern() }
        val classes = words(sections.getValue("ccc")).map { it.split(':') }
        cccStarts = IntArray(classes.size) { classes[it][0].substringBefore('-').toInt(16) }
        cccEnds = IntArray(classes.size) { classes[it][0].substringAfter('-').toInt(16) }
        cccValues = IntArray(classes.size) { classes[it][1].toInt() }
        for (pair in words(sections.getValue("compose"))) {
            val (firstAndSecond, composite) = pair.split('=')
            val (first, second) = firstAndSecond.split('.').map { it.toInt(16) }
            compositions[pairKey(first, second)] = composite.toInt(16)
        }
    }

    fun category(code: Int): String = categories[indexAtOrBefore(categoryStarts, code)]

    fun combiningClass(code: Int): Int {
        val at = indexAtOrBefore(cccStarts, code)
        return if (at >= 0 && code <= cccEnds[at]) cccValues[at] else 0
    }

    fun composite(first: Int, second: Int): Int = compositions[pairKey(first, second)] ?: -1

    /** A decimal digit's value: Unicode writes decimal digits in runs of ten, 0 to 9 (checked by the script). */
    fun digitValue(code: Int): Int {
        val start = categoryStarts[indexAtOrBefore(categoryStarts, code)]
        return (code - start) % 10
    }

    /** The code points whose category [wanted] accepts, as the contents of a java.util.regex character class. */
    fun classOf(wanted: (String) -> Boolean): String {
        val out = StringBuilder()
        var i = 0
        while (i < categoryStarts.size) {
            if (!wanted(categories[i])) {
                i++
                continue
            }
            val first = categoryStarts[i]
            while (i < categoryStarts.size && wanted(categories[i])) i++
            val last = if (i < categoryStarts.size) categoryStarts[i] - 1 else 0x10FFFF
            out.append(classRange(first, last))
        }
        return out.toString()
    }

    companion object {
        private const val RESOURCE = "/transformerstudio/text/unicode14.txt"

        fun load(): UnicodeTable {
            val stream = UnicodeTable::class.java.getResourceAsStream(RESOURCE)
                ?: error("the library's Unicode table $RESOURCE is missing from its resources")
            val text = stream.use { it.readBytes().toString(Charsets.UTF_8) }
            return UnicodeTable(sections(text))
        }

        /** "@name\nbody\n" sections, comments ("#") skipped. */
        fun sections(text: String): Map<String, String> {
            val found = LinkedHashMap<String, String>()
            var name: String? = null
            for (line in text.split('\n')) {
                when {
                    line.startsWith("#") -> Unit
                    line.startsWith("@") -> name = line.substring(1)
                    name != null -> found[name] = found[name].orEmpty() + line
                }
            }
            return found
        }

        private fun words(text: String) = text.split(' ').filter { it.isNotEmpty() }

        private fun mapping(text: String): Map<Int, IntArray> = words(text).associate { entry ->
            val (from, to) = entry.split('=')
            from.toInt(16) to to.split('.').map { it.toInt(16) }.toIntArray()
        }

        private fun codesToString(codes: IntArray): String = String(codes, 0, codes.size)

        private fun pairKey(first: Int, second: Int): Long = (first.toLong() shl 21) or second.toLong()
    }
}
