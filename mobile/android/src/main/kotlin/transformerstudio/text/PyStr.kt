package transformerstudio.text

/**
 * Python's str behaviour where Kotlin's differs, for the ports of studio/text/ and studio/translation.py.
 *
 * - Whitespace is Python's str.isspace() (Unicode 14.0): Kotlin's trim()/isWhitespace() and Java's `\s` are
 *   other sets (Java's `\s` is ASCII; Kotlin trims U+001C-U+001F only by accident of Java's definition, and
 *   not U+0085 or U+00A0).
 * - Python counts code points, Kotlin strings are UTF-16: lengths here are code points; indices into strings
 *   stay UTF-16 units, as every match position of java.util.regex is.
 */
object PyStr {
    /** Python's len(): code points. */
    fun length(text: String): Int = text.codePointCount(0, text.length)

    /** Python's str.isspace() of the code point at [index] (false outside the string). */
    fun spaceAt(text: String, index: Int): Boolean =
        index in text.indices && Unicode14.isSpace(text.codePointAt(index))

    /** Python's str.strip(). */
    fun strip(text: String): String = rstrip(lstrip(text))

    /** Python's str.lstrip(). */
    fun lstrip(text: String): String {
        var start = 0
        while (start < text.length && Unicode14.isSpace(text[start].code)) start++ // every Python space is one unit
        return text.substring(start)
    }

    /** Python's str.rstrip(). */
    fun rstrip(text: String): String {
        var end = text.length
        while (end > 0 && Unicode14.isSpace(text[end - 1].code)) end--
        return text.substring(0, end)
    }

    /** Python's str.split(): the words between runs of whitespace. */
    fun split(text: String): List<String> {
        val words = ArrayList<String>()
        var start = -1
        for (i in text.indices) {
            val space = Unicode14.isSpace(text[i].code)
            if (space && start >= 0) {
                words.add(text.substring(start, i))
                start = -1
            } else if (!space && start < 0) {
                start = i
            }
        }
        if (start >= 0) words.add(text.substring(start))
        return words
    }

    /** Python's str.lstrip(chars), for [chars] of the Basic Multilingual Plane. */
    fun lstrip(text: String, chars: String): String {
        var start = 0
        while (start < text.length && chars.indexOf(text[start]) >= 0) start++
        return text.substring(start)
    }

    /** Python's str.rstrip(chars), for [chars] of the Basic Multilingual Plane. */
    fun rstrip(text: String, chars: String): String {
        var end = text.length
        while (end > 0 && chars.indexOf(text[end - 1]) >= 0) end--
        return text.substring(0, end)
    }

    /** Python's str.strip(chars), for [chars] of the Basic Multilingual Plane. */
    fun strip(text: String, chars: String): String = rstrip(lstrip(text, chars), chars)

    /** Python's str.splitlines(). */
    fun splitLines(text: String): List<String> {
        val lines = ArrayList<String>()
        var start = 0
        var i = 0
        while (i < text.length) {
            val c = text[i]
            if (c in LINE_BOUNDARIES) {
                lines.add(text.substring(start, i))
                i += if (c == '\r' && i + 1 < text.length && text[i + 1] == '\n') 2 else 1
                start = i
            } else {
                i++
            }
        }
        if (start < text.length) lines.add(text.substring(start))
        return lines
    }

    private const val LINE_BOUNDARIES = "\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029"

    /** The code point that ends at [index] of [text] (a surrogate pair read whole). */
    fun codePointBefore(text: String, index: Int): Int = Character.codePointBefore(text, index)

    /** The last code point of [text] as a string, "" for "": Python's text[-1:]. */
    fun lastChar(text: String): String =
        if (text.isEmpty()) "" else String(Character.toChars(codePointBefore(text, text.length)))

    /** The index [count] code points before [index] (at least 0): Python's max(0, index - count). */
    fun back(text: String, index: Int, count: Int): Int {
        var at = index
        repeat(count) { if (at > 0) at = Character.offsetByCodePoints(text, at, -1) }
        return at
    }

    /** Python's text[:count] in code points. */
    fun head(text: String, count: Int): String =
        if (length(text) <= count) text else text.substring(0, text.offsetByCodePoints(0, count))

    /** Python's str.count(needle): occurrences that do not overlap. */
    fun count(text: String, needle: String): Int {
        if (needle.isEmpty()) return length(text) + 1
        var found = 0
        var at = text.indexOf(needle)
        while (at >= 0) {
            found++
            at = text.indexOf(needle, at + needle.length)
        }
        return found
    }

    /** Python's repr() of a str. */
    fun repr(text: String): String {
        val quote = if ('\'' in text && '"' !in text) '"' else '\''
        val out = StringBuilder().append(quote)
        var i = 0
        while (i < text.length) {
            val code = text.codePointAt(i)
            i += Character.charCount(code)
            out.append(reprOf(code, quote))
        }
        return out.append(quote).toString()
    }

    private fun reprOf(code: Int, quote: Char): String {
        val category = Unicode14.category(code)
        return when {
            code == quote.code || code == '\\'.code -> "\\" + code.toChar()
            code == '\t'.code -> "\\t"
            code == '\n'.code -> "\\n"
            code == '\r'.code -> "\\r"
            code != ' '.code && (category[0] == 'C' || category[0] == 'Z') -> when {
                code < 0x100 -> "\\x%02x".format(code)
                code < 0x10000 -> "\\u%04x".format(code)
                else -> "\\U%08x".format(code)
            }
            else -> String(Character.toChars(code))
        }
    }

    /** Python's sorted() of strings: by code point (Kotlin compares UTF-16 units, which differs past U+FFFF). */
    val codePointOrder: Comparator<String> = Comparator { a, b -> compareByCodePoints(a, b) }

    private fun compareByCodePoints(a: String, b: String): Int {
        var i = 0
        var j = 0
        while (i < a.length && j < b.length) {
            val x = a.codePointAt(i)
            val y = b.codePointAt(j)
            if (x != y) return x.compareTo(y)
            i += Character.charCount(x)
            j += Character.charCount(y)
        }
        return (a.length - i).compareTo(b.length - j)
    }
}
