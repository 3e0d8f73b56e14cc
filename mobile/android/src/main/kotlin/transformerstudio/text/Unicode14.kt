package transformerstudio.text

/**
 * Unicode 14.0, the version of Python 3.11's `unicodedata` that the app's text pipelines follow, read from the
 * library's own table (`unicode14.txt`, written by mobile/scripts/unicode14-tables.py). The JVM's Unicode (Java 17:
 * 13.0) and Android's (it changes with the OS version) are never asked: `Character.getType`, `isLetter`,
 * `toLowerCase` and `java.text.Normalizer` would each answer some characters otherwise than the app does.
 *
 * Code points, not UTF-16 units, are what every function here takes. Thread-safe: the table is read once.
 */
object Unicode14 {
    private val table: UnicodeTable by lazy { UnicodeTable.load() }

    /** The general category of [code] ("Lu", "Nd", "Zs", "Cn" for an unassigned code point…). */
    fun category(code: Int): String = table.category(code)

    /** Python's str.isalpha() of one character: a letter (general category L*). */
    fun isAlpha(code: Int): Boolean = category(code)[0] == 'L'

    /** What Python's `\w` matches in a str pattern: a letter, a number (L*, N*) or "_". */
    fun isWord(code: Int): Boolean = code == '_'.code || category(code)[0].let { it == 'L' || it == 'N' }

    /** What Python's `\d` matches: a decimal digit (Nd). */
    fun isDigit(code: Int): Boolean = category(code) == "Nd"

    /** Python's str.isspace() (and `\s`). */
    fun isSpace(code: Int): Boolean = table.space.contains(code)

    /** Python's str.islower() of one character. */
    fun isLower(code: Int): Boolean = table.lower.contains(code)

    /** Python's str.isupper() of one character. */
    fun isUpper(code: Int): Boolean = table.upper.contains(code)

    /** A decimal digit's value, as Python's int() reads it ("３" is 3); -1 for any other character. */
    fun digitValue(code: Int): Int = if (isDigit(code)) table.digitValue(code) else -1

    /** Python's str.lower(), code point by code point (the Final_Sigma rule aside: no caller keeps a sigma). */
    fun lower(text: String): String = mapped(text, table.toLower)

    /** Python's str.upper(). */
    fun upper(text: String): String = mapped(text, table.toUpper)

    /** Python's str.casefold(). */
    fun casefold(text: String): String = mapped(text, table.caseFold)

    /** The full canonical decomposition of [code] (Hangul syllables aside), or null when it has none. */
    internal fun decomposition(code: Int): IntArray? = table.decomposition[code]

    /** The canonical combining class of [code]. */
    internal fun combiningClass(code: Int): Int = table.combiningClass(code)

    /** The primary composite of [first] and [second], or -1 (Hangul syllables aside). */
    internal fun composite(first: Int, second: Int): Int = table.composite(first, second)

    /** Character-class contents (for inside `[...]` of a java.util.regex pattern) for `\w`, `\d` and `\s`. */
    internal val wordClass: String by lazy { table.classOf { it[0] == 'L' || it[0] == 'N' } + "_" }
    internal val digitClass: String by lazy { table.classOf { it == "Nd" } }
    internal val spaceClass: String by lazy { table.space.asClass() }

    private fun mapped(text: String, mapping: Map<Int, String>): String {
        val out = StringBuilder(text.length)
        var i = 0
        while (i < text.length) {
            val code = text.codePointAt(i)
            val to = mapping[code]
            if (to != null) out.append(to) else out.appendCodePoint(code)
            i += Character.charCount(code)
        }
        return out.toString()
    }
}
