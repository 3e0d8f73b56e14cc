package transformerstudio.text

/**
 * Whether a Korean word sounds like a Latin one ("도이체반" and "Deutsche Bahn" do, "통신" and "Australia Associated
 * Press" do not), a port of studio/text/transliteration.py (web/src/transliteration.js): both sides reduced to
 * their consonants in coarse sound classes, compared by their longest common subsequence (Dice: 2·LCS / total
 * length). str.lower() is Unicode 14.0's ("İ" -> "i̇", the Kelvin sign -> "k").
 */
object Transliteration {
    /** On the 245 bracketed names of the training and dev data, transliterations score 0.7-1.0. */
    const val MIN_LIKENESS = 0.7
    private val INITIAL = listOf("K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", "", "S", "S", "S", "K", "T", "P", "")
    private val FINAL = listOf("", "K", "K", "KS", "N", "NS", "N", "T", "L", "LK", "LM", "LP", "LS", "LT", "LP", "L",
        "M", "P", "PS", "T", "T", "N", "T", "T", "K", "T", "P", "")
    private val LATIN = linkedMapOf("chr" to "KL", "chl" to "KL", "tsch" to "S", "tch" to "S", "sch" to "S", "ch" to "S",
        "sh" to "S", "ph" to "P", "th" to "T", "ck" to "K", "ts" to "S", "tz" to "S", "ng" to "N", "x" to "KS", "qu" to "K",
        "c" to "K", "k" to "K", "q" to "K", "g" to "K", "d" to "T", "t" to "T", "b" to "P", "p" to "P", "f" to "P",
        "v" to "P", "s" to "S", "z" to "S", "j" to "S", "l" to "L", "r" to "L", "m" to "M", "n" to "N")
    private val LATIN_SPELLING = PyRegex(LATIN.keys.sortedByDescending { it.length }.joinToString("|"))
    private val R_AFTER_VOWEL = PyRegex("(?<=[aeiouy])r(?![aeiouy])") // silent in English's Korean: "Twitter" 트위터
    private val SQUEEZE = PyRegex("(.)\\1+")
    private const val SYLLABLES = 11172
    private const val FIRST_SYLLABLE = 0xAC00
    private const val FINALS = 28
    private const val PER_INITIAL = 588

    /** The consonant classes of the Hangul syllables in [text] ("도이체반" -> "TSPN"). */
    fun koreanSounds(text: String): String {
        val classes = StringBuilder()
        for (char in text) {
            val code = char.code - FIRST_SYLLABLE
            if (code in 0 until SYLLABLES) classes.append(INITIAL[code / PER_INITIAL]).append(FINAL[code % FINALS])
        }
        return squeezed(classes.toString())
    }

    /** The consonant classes of the Latin letters in [text] ("Deutsche Bahn" -> "TSPN"), an r after a vowel
     * silent (English) or not. */
    fun latinSounds(text: String, silentR: Boolean = true): String {
        val lower = Unicode14.lower(text)
        val spelt = if (silentR) R_AFTER_VOWEL.sub(lower, "") else lower
        return squeezed(LATIN_SPELLING.findAll(spelt).joinToString("") { LATIN.getValue(it.value) })
    }

    private fun squeezed(text: String) = SQUEEZE.sub(text) { it.group(1)!! }

    private fun commonSubsequence(a: String, b: String): Int {
        var previous = IntArray(b.length + 1)
        for (x in a) {
            val current = IntArray(b.length + 1)
            for (j in b.indices) current[j + 1] = if (x == b[j]) previous[j] + 1 else maxOf(previous[j + 1], current[j])
            previous = current
        }
        return previous[b.length]
    }

    private fun readings(latin: String) = linkedSetOf(latinSounds(latin), latinSounds(latin, silentR = false))

    /** 0 (nothing alike) to 1 (the same consonants in the same order), for the closer reading of an r. */
    fun likeness(korean: String, latin: String): Double {
        val a = koreanSounds(korean)
        return readings(latin).filter { a.isNotEmpty() && it.isNotEmpty() }
            .maxOfOrNull { 2.0 * commonSubsequence(a, it) / (a.length + it.length) } ?: 0.0
    }

    /** Whether [korean] reads as a transliteration of [latin] (not a translation of it). */
    fun soundsLike(korean: String, latin: String): Boolean {
        val a = koreanSounds(korean)
        // lengths too unlike cannot reach the likeness (and are not worth the quadratic cost of comparing them)
        return readings(latin).any { b ->
            a.isNotEmpty() && b.isNotEmpty() && 2.0 * minOf(a.length, b.length) / (a.length + b.length) >= MIN_LIKENESS &&
                2.0 * commonSubsequence(a, b) / (a.length + b.length) >= MIN_LIKENESS
        }
    }
}
