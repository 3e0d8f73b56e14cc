package transformerstudio.text

/**
 * Unicode Normalization Form C by Unicode 14.0's data ([Unicode14]), as Python 3.11's
 * `unicodedata.normalize("NFC", text)`: canonical decomposition, canonical ordering of combining marks, then
 * canonical composition (the composition exclusions are left out of the table's pairs), Hangul by its algorithm.
 * A lone surrogate passes through, as in Python.
 */
object Nfc {
    private const val S_BASE = 0xAC00
    private const val L_BASE = 0x1100
    private const val V_BASE = 0x1161
    private const val T_BASE = 0x11A7
    private const val L_COUNT = 19
    private const val V_COUNT = 21
    private const val T_COUNT = 28
    private const val N_COUNT = V_COUNT * T_COUNT
    private const val S_COUNT = L_COUNT * N_COUNT

    /** [text] in NFC. */
    fun normalize(text: String): String {
        if (text.all { it < '\u0300' }) return text // nothing below U+0300 decomposes otherwise or combines
        val codes = decomposed(text)
        reorder(codes)
        val composed = composed(codes)
        return String(composed.toIntArray(), 0, composed.size)
    }

    private fun decomposed(text: String): MutableList<Int> {
        val codes = ArrayList<Int>(text.length + 8)
        var i = 0
        while (i < text.length) {
            val code = text.codePointAt(i)
            i += Character.charCount(code)
            val index = code - S_BASE
            if (index in 0 until S_COUNT) {
                codes.add(L_BASE + index / N_COUNT)
                codes.add(V_BASE + index % N_COUNT / T_COUNT)
                if (index % T_COUNT != 0) codes.add(T_BASE + index % T_COUNT)
                continue
            }
            val decomposition = Unicode14.decomposition(code)
            if (decomposition == null) codes.add(code) else decomposition.forEach { codes.add(it) }
        }
        return codes
    }

    /** The canonical ordering algorithm: marks sorted by combining class between starters, stably. */
    private fun reorder(codes: MutableList<Int>) {
        var i = 1
        while (i < codes.size) {
            val here = Unicode14.combiningClass(codes[i])
            val before = Unicode14.combiningClass(codes[i - 1])
            if (here != 0 && before > here) {
                codes[i] = codes[i - 1].also { codes[i - 1] = codes[i] }
                if (i > 1) i--
            } else {
                i++
            }
        }
    }

    /** The canonical composition algorithm (Unicode's sample code): each mark that is not blocked from the last
     * starter by one of the same or a higher class composes with it when the pair has a primary composite. */
    private fun composed(codes: List<Int>): List<Int> {
        val out = ArrayList<Int>(codes.size)
        if (codes.isEmpty()) return out
        var starterAt = 0
        var starter = codes[0]
        var lastClass = Unicode14.combiningClass(starter).let { if (it != 0) 256 else 0 }
        out.add(starter)
        for (k in 1 until codes.size) {
            val code = codes[k]
            val codeClass = Unicode14.combiningClass(code)
            val composite = compose(starter, code)
            if (composite >= 0 && (lastClass < codeClass || lastClass == 0)) {
                out[starterAt] = composite
                starter = composite
                continue
            }
            if (codeClass == 0) {
                starterAt = out.size
                starter = code
            }
            lastClass = codeClass
            out.add(code)
        }
        return out
    }

    private fun compose(first: Int, second: Int): Int {
        val l = first - L_BASE
        if (l in 0 until L_COUNT) {
            val v = second - V_BASE
            return if (v in 0 until V_COUNT) S_BASE + (l * V_COUNT + v) * T_COUNT else -1
        }
        val s = first - S_BASE
        if (s in 0 until S_COUNT && s % T_COUNT == 0) {
            val t = second - T_BASE
            return if (t in 1 until T_COUNT) first + t else -1
        }
        return Unicode14.composite(first, second)
    }
}
