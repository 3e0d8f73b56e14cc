package transformerstudio.text

import transformerstudio.text.PyClasses.S

/**
 * The tutorials' normalization, a port of studio/text/normalize.py (normalize, tidy): NFC, optionally lower case,
 * spaces around `? . ! ,`, only Hangul, Latin letters, digits and `?.!,'-%` kept, runs of spaces as one.
 */
object Normalize {
    private val PUNCT = PyRegex("([?.!,])")
    private val DISALLOWED = PyRegex("[^가-힣ㄱ-ㅎㅏ-ㅣa-zA-Z0-9?.!,'\\-% ]+")
    private val SPACES by lazy { PyRegex("[$S]+") }
    private val SPACE_BEFORE_PUNCT = PyRegex(" ([?.!,])")

    /** One sentence normalized as the tutorials do (normalize.py's normalize). */
    fun normalize(text: String, lowercase: Boolean = false): String {
        var out = Nfc.normalize(text)
        if (lowercase) out = Unicode14.lower(out)
        out = PUNCT.sub(out) { " ${it.value} " }
        out = DISALLOWED.sub(out, " ")
        return PyStr.strip(SPACES.sub(out, " "))
    }

    /** The spacing around punctuation undone for display: "하루가 또 가네요 ." -> "하루가 또 가네요.". */
    fun tidy(text: String): String = PyStr.strip(SPACE_BEFORE_PUNCT.sub(text) { it.group(1)!! })

    internal fun collapseSpaces(text: String): String = SPACES.sub(text, " ")
}
