package transformerstudio.text

import transformerstudio.text.PyClasses.D
import transformerstudio.text.PyClasses.S
import transformerstudio.text.PyClasses.W

/**
 * The translator pipeline's text handling, a port of studio/text/pipelines.py (clean_text, untokenize_ptb).
 *
 * Where Kotlin differs from Python, and what this file does about it: NFC, general categories and `\w` `\s` `\d`
 * are Unicode 14.0's ([Unicode14], [Nfc]), not the JVM's; characters unassigned in 14.0 (Cn) are dropped even
 * where a newer Unicode assigns them; a code point beyond U+FFFF is one character, as in Python.
 */
object Pipelines {
    private const val LINE_BREAKS = "\t\n\r\u000b\u000c\u2028\u2029\u0085"
    private const val DIGITS = "0123456789"
    private val QUOTES = mapOf('「' to '“', '『' to '“', '《' to '“', '〈' to '“', '」' to '”', '』' to '”', '》' to '”', '〉' to '”')
    private val MIDDLE_DOT by lazy { PyRegex("(?<=[$W])[·・∙‧](?=[$W])") }
    private val PTB_QUOTE by lazy { PyRegex("``[$S]*|[$S]*''") }
    private val SPACED_POSSESSIVE by lazy { PyRegex("(?<=[A-Za-z0-9]) 's(?=[$S]|$)") }
    private val CLOSING_QUOTE = PyRegex("[A-Za-z0-9]'(?![A-Za-z])")
    private val RANGE_DASH by lazy { PyRegex("(?<=[$D]) ?-- ?(?=[$D])") }

    /** NFC, full-width ASCII to ASCII, East Asian brackets to quotes, a middle dot between words to a comma (between
     * digits to a point), every kind of space to one space, invisible characters removed. */
    fun cleanText(text: String): String {
        val quoted = buildString(text.length) {
            for (c in Nfc.normalize(text)) append(if (c in '\uFF01'..'\uFF5E') c - 0xFEE0 else QUOTES[c] ?: c)
        }
        val dotted = MIDDLE_DOT.sub(quoted) { m ->
            val around = quoted[m.start() - 1] in DIGITS && quoted[m.end()] in DIGITS
            if (around) "." else ", "
        }
        val kept = StringBuilder(dotted.length)
        var i = 0
        while (i < dotted.length) {
            val code = dotted.codePointAt(i)
            i += Character.charCount(code)
            val category = Unicode14.category(code)
            when {
                category == "Zs" || code < 0x10000 && LINE_BREAKS.indexOf(code.toChar()) >= 0 -> kept.append(' ')
                category in INVISIBLE -> Unit
                else -> kept.appendCodePoint(code)
            }
        }
        return PyStr.strip(Normalize.collapseSpaces(kept.toString()))
    }

    private val INVISIBLE = setOf("Cc", "Cf", "Cs", "Co", "Cn") // controls, zero-width and bidi marks, surrogates

    /** ``quoted'' -> “quoted” (a '' with no `` open is a closing single quote), "film 's" -> "film's",
     * "1995 --2005" -> "1995-2005"; where straight and curly double quotes are mixed, straight ones. */
    fun untokenizePtb(text: String): String {
        var opened = false
        var out = PTB_QUOTE.sub(text) { m ->
            if (m.value.startsWith("`")) {
                opened = true
                "“"
            } else {
                val closing = if (opened) "”" else "'"
                opened = false
                closing
            }
        }
        val quoted = out
        out = SPACED_POSSESSIVE.sub(quoted) { m -> if (CLOSING_QUOTE.search(quoted, m.end()) != null) m.value else "'s" }
        if ('"' in out) out = out.replace('“', '"').replace('”', '"')
        return RANGE_DASH.sub(out, "-")
    }
}

/**
 * A text pipeline (studio/text/pipelines.py's TextPipeline): [source] is what the model reads, [target] a training
 * target, [output] the detokenized model output as shown to a user.
 */
data class TextPipeline(val name: String, val lowercaseTarget: Boolean = false) {
    init {
        require(name == TUTORIAL || name == TRANSLATOR) {
            "unknown text pipeline '$name'; choose one of $TUTORIAL, $TRANSLATOR"
        }
    }

    /** What the model reads. */
    fun source(text: String): String =
        if (name == TUTORIAL) Normalize.normalize(text) else Pipelines.cleanText(text)

    /** A training target, as the model should learn to write it. */
    fun target(text: String): String =
        if (name == TUTORIAL) Normalize.normalize(text, lowercaseTarget)
        else Pipelines.untokenizePtb(Pipelines.cleanText(text))

    /** Detokenized model output as shown to a user, without control characters (a byte piece can decode to one). */
    fun output(text: String): String {
        val shown = if (name == TUTORIAL) Normalize.tidy(text) else Pipelines.untokenizePtb(PyStr.strip(text))
        return CONTROL.sub(shown, "")
    }

    companion object {
        const val TUTORIAL = "tutorial"
        const val TRANSLATOR = "translator"
        private val CONTROL = PyRegex("[\\x{0}-\\x{8}\\x{b}-\\x{1f}\\x{7f}-\\x{9f}]")

        /** The pipeline a bundle's config names (`task.text_pipeline`; none: tutorial). */
        fun named(name: String?, lowercaseTarget: Boolean = false) = TextPipeline(name ?: TUTORIAL, lowercaseTarget)
    }
}
