package transformerstudio.text

import transformerstudio.text.Facts.LATIN_LETTER
import transformerstudio.text.Facts.TILDES
import transformerstudio.text.PyClasses.D
import transformerstudio.text.PyClasses.S
import transformerstudio.text.PyClasses.W

/**
 * The patterns of studio/text/protect.py, spelt for java.util.regex (see [Protection] for the differences).
 * Each is compiled once, on first use.
 */
internal object ProtectPatterns {
    private const val CURRENCY_SIGN = "[\$€£¥₩]"
    private val URL get() = "(?:https?://|www\\.)[^$S<>\"'()\\[\\]{}가-힣]+[^$S<>\"'()\\[\\]{}가-힣.,;:!?]"
    // the lookbehind: a match starts where a run of these characters does (else a long word is scanned from each
    // of its letters in turn, quadratic)
    private const val EMAIL = "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+"
    // "km²" before "km": the square would be left behind the placeholder, where the tokenizer reads "Xq1²" as "Xq12"
    private const val UNIT = "(?:%|‰|℃|°[CF]?|[A-Za-z]{1,3}[²³]|[A-Za-z]{1,3}(?:/[A-Za-z]{1,2})?)(?![A-Za-z²³])"
    private val CLOCK get() = "[$D]{1,2}:[$D]{2}(?::[$D]{2})?(?![$D])"
    private val NUMERAL get() = Facts.NUMERAL
    private val NUMBER get() = "(?:$CURRENCY_SIGN[$S]?$NUMERAL|$NUMERAL[$S]?$UNIT|$CLOCK)"
    // a decimal without a unit, and dotted runs (an IP address, a version, "2024.03.15")
    private val FIGURE get() = "(?<![$W.,])[$D]+(?:\\.[$D]+)+(?![$W.,]?[$D])"
    // a Korean range, "3~4%", "10:30~11:45", "$10~$20": both ends and the tilde as one span, given with a hyphen
    private val RANGE_END get() = "(?:$CURRENCY_SIGN[$S]?)?(?:$CLOCK|$NUMERAL(?:[$S]?$UNIT)?)"
    private val RANGE get() = "(?<![$W.,])(?:${Facts.YEAR_RANGE}|$RANGE_END[$S]?[$TILDES][$S]?$RANGE_END)"
    // a clock time after 오전/오후, also the Korean way ("오후 2시 30분" -> "2:30 p.m."), not a number of hours ("2시간")
    private val KOREAN_CLOCK get() = "[$D]{1,2}시(?!간)(?:[$S]?[$D]{1,2}분)?"
    private val HOUR_UNTIL get() = "[$D]{1,2}(?=[$S]?[~∼〜][$S]?[$D]{1,2}시(?!간))"
    private val TIME get() = "(?:오전|오후)[$S]?(?:$CLOCK|$KOREAN_CLOCK|$HOUR_UNTIL)" +
        "(?:[$S]?[~∼〜][$S]?(?:$CLOCK|$KOREAN_CLOCK))?"
    // pictographs, arrows, shapes and math signs, and a middle dot that is no word's neighbour (a bullet)
    private val SYMBOL get() = "[\\x{1F000}-\\x{1FAFF}\\x{2600}-\\x{27BF}\\x{2190}-\\x{21FF}\\x{25A0}-\\x{25FF}" +
        "\\x{203B}\\x{B1}\\x{D7}\\x{F7}\\x{2264}\\x{2265}\\x{FE0F}\\x{200D}]+|(?<![$W])[·・∙‧](?![$W])"

    /** The automatic kinds, in the order their alternatives are tried. */
    val AUTO_KINDS = listOf("url", "email", "time", "range", "amount", "number", "figure", "latin", "symbol")
    private val AUTO_PATTERNS by lazy {
        val patterns = listOf(URL, EMAIL, TIME, RANGE, Numbers.AMOUNT, NUMBER, FIGURE, Facts.LATIN_NAME, SYMBOL)
        AUTO_KINDS.zip(patterns).toMap()
    }
    private val autoByKinds = java.util.concurrent.ConcurrentHashMap<List<String>, PyRegex>()

    /** One regex for the automatic protection of [kinds] (of [AUTO_KINDS], in its order: an earlier kind wins a
     * match starting where a later one's does), compiled once per list of kinds. */
    fun auto(kinds: List<String>): PyRegex = autoByKinds.getOrPut(kinds) {
        PyRegex(kinds.joinToString("|") { kind -> "(?<$kind>${AUTO_PATTERNS.getValue(kind)})" })
    }
    val ADDRESSES by lazy { PyRegex("$URL|$EMAIL") } // not words of any language
    val TILDE by lazy { PyRegex("[$S]?[$TILDES][$S]?") }
    val KOREAN_HOUR by lazy { PyRegex("(?<![$D:])([$D]{1,2})(?:시(?:[$S]?([$D]{1,2})분)?|(?=[$S]?[~∼〜]))") }

    /** Python's re.IGNORECASE makes [A-Za-z] also match "İ", "ı", "ſ" and the Kelvin sign: spelt out. */
    private const val CASELESS = "A-Za-z\\x{130}\\x{131}\\x{17F}\\x{212A}"
    private const val CASELESS_NOT_X = "A-WYZa-wyz\\x{130}\\x{131}\\x{17F}\\x{212A}"

    /** A placeholder, also where the model glued one to a word ("IXq1)"). */
    val ANY_PLACEHOLDER by lazy { PyRegex("(?<![0-9])[Xx][Qq][$D]+(?![0-9])") }

    /** A placeholder as written, or misspelt ("Seq1", "ETq4", "X Q4", "X-q7"; "X1q1", "X23" in capitals). */
    val RESTORED by lazy {
        PyRegex("(?<exact>(?<![0-9])[Xx][Qq][$D]+(?![0-9]))" +
            "|(?<![${CASELESS}0-9])(?:[Xx][ \\-]|[$CASELESS_NOT_X](?:[$CASELESS]?[$CASELESS_NOT_X])?-?)[Qq]" +
            "(?<number>[$D]{1,5})(?![0-9])" +
            "|(?<![${CASELESS}0-9])X(?:[$D]q)?(?<bare>[$D]{1,5})(?![0-9$CASELESS])")
    }
    val LEAKED by lazy { PyRegex("[Xx][Qq][$D]+") }

    /** One written twice in a row, only spaces, quotes or a comma between; its backreference ignores ASCII case,
     * as Python's under IGNORECASE. */
    val TWICE_IN_A_ROW by lazy {
        PyRegex("(?<![0-9])([Xx][Qq][$D]+)([$S'\"“”‘’,]{0,3})\\1(?![0-9])", java.util.regex.Pattern.CASE_INSENSITIVE)
    }
    const val GONE = "\u0000" // where a placeholder was removed
    val GONE_BEFORE_MARK by lazy { PyRegex("[$S]*\\x{0}[$S]*(?=[.,;:!?)\\]])") }
    val GONE_IN_BRACKETS by lazy { PyRegex("[$S]*\\([$S]*\\x{0}[$S]*\\)") } // "the franc (X23)" -> "the franc"
    val GLUES = PyRegex("[${LATIN_LETTER}0-9]")
    val ARTICLE_BEFORE by lazy { PyRegex("(?<![$W])(an?|An?) $") }
    val SPOKEN_START = PyRegex("(?:$CURRENCY_SIGN ?)?(?:(?<number>[0-9]+(?:,[0-9]{3})*)|(?<word>[A-Za-z]+))")
    val HANGUL = PyRegex("[가-힣ㄱ-ㅎㅏ-ㅣ]")

    /** What may follow a Korean glossary term inside its word: particles, and the copula ("삼성이다"). */
    private val PARTICLES = listOf("은", "는", "이", "가", "을", "를", "의", "에", "엔", "에서", "서", "에게", "한테", "께", "께서",
        "와", "과", "도", "만", "로", "으로", "부터", "로부터", "으로부터", "랑", "이랑", "하고", "까지", "보다", "처럼", "조차", "마저",
        "밖에", "뿐", "이나", "나", "이며", "며", "이란", "란", "이라는", "라는", "이라고", "라고", "이다", "다", "였다", "이었다",
        "입니다", "이에요", "예요", "들", "측")
    val KOREAN_TAIL = "(?:" + PARTICLES.sortedByDescending { it.length }.joinToString("|") + "){0,3}(?![가-힣])"

    /** Latin in brackets right after a Korean word: "도이체반(Deutsche Bahn)". */
    val NAMED by lazy { PyRegex("(?<=[가-힣]) ?\\([$S]*(?<latin>${Facts.LATIN_NAME})[$S]*\\)") }
    private val BRACKET get() = " ?\\([$S]*${Facts.LATIN_NAME}[$S]*\\)"
    val BRACKET_AFTER by lazy { PyRegex(BRACKET) }
    val BRACKET_END by lazy { PyRegex("$BRACKET$") }
    val ACRONYM = PyRegex("[A-Z0-9][A-Z0-9&.\\-]*[A-Z0-9]s?")
    val HANGUL_WORD_BEFORE by lazy { PyRegex("(?:^|(?<=[$S\"'“‘(\\[「『《〈]))[가-힣]+ ?$") }
    val PLACEHOLDER_DIGITS by lazy { PyRegex("[$D]+") }
}
