package transformerstudio.replies

import transformerstudio.text.Nfc
import transformerstudio.text.Unicode14

/**
 * The text side of studio/text/retrieval.py, as Python 3.11 computes it (Unicode 14.0, from the library's own table):
 * `normalize` (NFC, `str.lower()`, every character that is not a letter or a digit → a space, single spaces,
 * stripped) and `terms` (the analyzers' n-grams, by code point).
 */
object RetrievalText {
    private const val CAPITAL_SIGMA = 0x03A3

    // Word_Break MidLetter, MidNumLet and Single_Quote (Unicode 14.0): case-ignorable whatever their category
    private val WORD_MIDDLES = intArrayOf(
        0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07,
        0xFF0E, 0xFF1A,
    )

    /** NFC, lower case, letters and digits only (general category L* or N*), single spaces. */
    fun normalize(text: String): String {
        val lowered = lower(Nfc.normalize(text))
        val out = StringBuilder(lowered.length)
        var space = false
        var i = 0
        while (i < lowered.length) {
            val code = lowered.codePointAt(i)
            i += Character.charCount(code)
            val kind = Unicode14.category(code)[0]
            if (kind == 'L' || kind == 'N') {
                if (space && out.isNotEmpty()) out.append(' ')
                out.appendCodePoint(code)
                space = false
            } else {
                space = true
            }
        }
        return out.toString()
    }

    /** Python's str.lower(), its final sigma included: a capital sigma after a cased letter and before none is ς. */
    fun lower(text: String): String {
        if (text.indexOf(CAPITAL_SIGMA.toChar()) < 0) return Unicode14.lower(text)
        val out = StringBuilder(text.length)
        var i = 0
        while (i < text.length) {
            val code = text.codePointAt(i)
            if (code == CAPITAL_SIGMA) out.append(if (finalSigma(text, i)) 'ς' else 'σ')
            else out.append(Unicode14.lower(String(Character.toChars(code))))
            i += Character.charCount(code)
        }
        return out.toString()
    }

    private fun finalSigma(text: String, at: Int): Boolean {
        var j = at
        var before = -1
        while (j > 0) {
            val code = Character.codePointBefore(text, j)
            j -= Character.charCount(code)
            if (!caseIgnorable(code)) {
                before = code
                break
            }
        }
        if (before < 0 || !cased(before)) return false
        j = at + 1
        while (j < text.length) {
            val code = text.codePointAt(j)
            j += Character.charCount(code)
            if (!caseIgnorable(code)) return !cased(code)
        }
        return true
    }

    /** Unicode's Cased: lowercase, uppercase or titlecase (Lt). */
    fun cased(code: Int): Boolean =
        Unicode14.isLower(code) || Unicode14.isUpper(code) || Unicode14.category(code) == "Lt"

    /** Unicode's Case_Ignorable, as Python 3.11 reads it. */
    fun caseIgnorable(code: Int): Boolean =
        Unicode14.category(code) in IGNORABLE_CATEGORIES || WORD_MIDDLES.binarySearch(code) >= 0

    private val IGNORABLE_CATEGORIES = setOf("Mn", "Me", "Cf", "Lm", "Sk")

    /** The terms (with repeats) [analyzer] reads in [text]: "char", "char-nospace" or "word". */
    fun terms(text: String, analyzer: String): List<String> {
        val normalized = normalize(text)
        return when (analyzer) {
            "char" -> if (normalized.isEmpty()) emptyList() else charNgrams(" $normalized ")
            "char-nospace" -> charNgrams(normalized.replace(" ", ""))
            "word" -> {
                val words = if (normalized.isEmpty()) emptyList() else normalized.split(' ')
                words + words.zipWithNext { a, b -> "$a $b" }
            }
            else -> throw IllegalArgumentException("unknown analyzer \"$analyzer\"; choose char, char-nospace or word")
        }
    }

    /** The 1- to 3-grams of [text]'s code points, those only of spaces left out, by length then position. */
    private fun charNgrams(text: String): List<String> {
        val codes = text.codePoints().toArray()
        val found = ArrayList<String>(codes.size * 3)
        for (n in 1..3) {
            for (start in 0..codes.size - n) {
                if ((start until start + n).all { codes[it] == ' '.code }) continue
                found.add(String(codes, start, n))
            }
        }
        return found
    }
}
