package transformerstudio.text

/**
 * Which script an input is mostly written in, the part of studio/text/script.py the library needs: whether a
 * line has a Korean letter (has_hangul) and whether a text is mostly another script (looks_like, as a yes/no).
 * Python reads Unicode character names ("HANGUL …"); [HANGUL_LETTERS] are the letters so named (Unicode 14.0,
 * checked against Python by the protection fixture).
 */
object Script {
    /** The letters Unicode names "HANGUL …": syllables, compatibility and conjoining jamo. */
    val HANGUL_LETTERS = listOf(0x1100..0x11ff, 0x3131..0x318e, 0xa960..0xa97c, 0xac00..0xd7a3, 0xd7b0..0xd7c6,
        0xd7cb..0xd7fb)
    private const val MIN_LETTERS = 3 // shorter inputs ("OK", "BTS") are too short to judge
    private const val KOREAN_SHARE = 0.3 // below this share of Hangul among the letters: "looks like" another script

    private fun isHangul(code: Int) = HANGUL_LETTERS.any { code in it }

    /** Whether [text] has a Korean letter: a line without one is no input for a Korean-to-English model. */
    fun hasHangul(text: String): Boolean = text.any { isHangul(it.code) } // every Hangul letter is one UTF-16 unit

    /** Whether script.py's looks_like(text) names another language: 3 letters or more, fewer than 30% Hangul. */
    fun looksLikeAnotherLanguage(text: String): Boolean {
        var letters = 0
        var hangul = 0
        var i = 0
        while (i < text.length) {
            val code = text.codePointAt(i)
            i += Character.charCount(code)
            if (!Unicode14.isAlpha(code)) continue
            letters++
            if (isHangul(code)) hangul++
        }
        return letters >= MIN_LETTERS && hangul < KOREAN_SHARE * letters
    }
}
