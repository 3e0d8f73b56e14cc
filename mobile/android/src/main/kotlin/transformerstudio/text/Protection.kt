package transformerstudio.text

import transformerstudio.text.PyClasses.W
import transformerstudio.text.ProtectPatterns.ACRONYM
import transformerstudio.text.ProtectPatterns.ADDRESSES
import transformerstudio.text.ProtectPatterns.ANY_PLACEHOLDER
import transformerstudio.text.ProtectPatterns.ARTICLE_BEFORE
import transformerstudio.text.ProtectPatterns.BRACKET_END
import transformerstudio.text.ProtectPatterns.HANGUL
import transformerstudio.text.ProtectPatterns.HANGUL_WORD_BEFORE
import transformerstudio.text.ProtectPatterns.KOREAN_HOUR
import transformerstudio.text.ProtectPatterns.KOREAN_TAIL
import transformerstudio.text.ProtectPatterns.NAMED
import transformerstudio.text.ProtectPatterns.RESTORED
import transformerstudio.text.ProtectPatterns.SPOKEN_START
import transformerstudio.text.ProtectPatterns.TILDE

/**
 * Term protection's functions, a port of studio/text/protect.py (web/src/protect.js); [Protector] and [Protected]
 * hold the rest.
 *
 * Where java.util.regex and Kotlin strings differ from Python's, and what the port does:
 * - `\s`, `\d`, `\w`, `\b` are Unicode 14.0's in Python's str patterns: classes from [Unicode14] ([PyClasses]);
 *   str.split()/strip() use Python's whitespace ([PyStr]).
 * - Named groups cannot have underscores (none of these do); `$` matches before a final "\n" as in Python
 *   ([PyRegex] compiles with UNIX_LINES); search(text, pos, endpos) is a region with transparent bounds on the text
 *   cut at endpos.
 * - re.IGNORECASE also folds "İ", "ı", "ſ" and the Kelvin sign into [A-Za-z], and a scoped `(?-i:X…)` is
 *   case-sensitive: the classes are spelt out, with no case-insensitive flag ([ProtectPatterns.RESTORED]); the one
 *   backreference under IGNORECASE ([ProtectPatterns.TWICE_IN_A_ROW]) ignores ASCII case, all its letters are ASCII.
 * - casefold(), isalpha(), isupper() are Unicode 14.0's; lengths (MAX_PROTECTED_CHARS, a name's 3 syllables, 100
 *   characters back, 3 before an article) count code points, as Python's len() does; positions are UTF-16 indices.
 * - looks_like reads Unicode names ("HANGUL …"): [Script.HANGUL_LETTERS] are the letters so named.
 */
object Protection {
    /** Pieces longer than this (code points) are decoded unprotected: regexes stay cheap. */
    const val MAX_PROTECTED_CHARS = 2000
    const val PLACEHOLDER_PREFIX = "Xq"
    val NUMERIC_KINDS = setOf("time", "range", "amount", "number", "figure")
    private const val LONGEST_WORD = 100 // characters of a Hangul word in a name
    private const val MOST_NAME_WORDS = 8 // a longer bracket is no name to remember
    private val NOT_IN_NAME = listOf("인", "의", "은", "는", "을", "를", "에", "에서", "와", "과", "한", "된", "및", "등", "로", "으로", "이자")
    private val HALF_DAY = mapOf("오전" to "a.m.", "오후" to "p.m.")
    private const val LETTER_NAMES_AN = "AEFHILMNORSX" // letters whose name starts with a vowel sound: "an F"

    fun placeholder(number: Int) = "$PLACEHOLDER_PREFIX$number"

    /** RESTORED's matches in [output] replaced, [english] giving (what replaces the match, whether that is a span's
     * English), and an article the model wrote right before a span's English made to agree with it. */
    internal fun putBack(output: String, english: (PyMatch) -> Pair<String, Boolean>): String {
        val out = StringBuilder()
        var position = 0
        for (match in RESTORED.findAll(output)) {
            val (replacement, restored) = english(match)
            val article = if (restored) ARTICLE_BEFORE.search(output, PyStr.back(output, match.start(), 3), match.start()) else null
            if (article != null) {
                out.append(slice(output, position, article.start())).append(agreeing(article.group(1)!!, replacement)).append(' ')
            } else {
                out.append(slice(output, position, match.start()))
            }
            out.append(replacement)
            position = match.end()
        }
        return out.append(output, position, output.length).toString()
    }

    /** Python's text[start:end]: "" where end comes first. */
    private fun slice(text: String, start: Int, end: Int) = if (end <= start) "" else text.substring(start, end)

    private fun agreeing(article: String, english: String): String {
        val wanted = articleFor(english) ?: return article
        return if (article[0] == 'A') wanted.replaceFirstChar(Char::uppercaseChar) else wanted
    }

    /** "an" where [text] read aloud starts with a vowel sound, else "a"; null where it starts with neither an ASCII
     * digit nor an ASCII letter. A number is read in groups of three digits, a currency sign after it; an
     * all-capital word of up to four letters letter by letter ("an FBI"); other words by their first letter. */
    fun articleFor(text: String): String? {
        val start = SPOKEN_START.match(text) ?: return null
        val number = start.group("number")
        if (number != null) {
            val digits = number.replace(",", "")
            val first = digits.substring(0, if (digits.length % 3 == 0) 3 else digits.length % 3).toInt()
            return if (first == 8 || first == 11 || first == 18 || first in 80..89 || first in 800..899) "an" else "a"
        }
        val word = start.group("word")!!
        if (word.all { it in 'A'..'Z' } && word.length <= 4) return if (word[0] in LETTER_NAMES_AN) "an" else "a"
        return if (word[0] in "aeiouAEIOU") "an" else "a"
    }

    /** What the output gets for an automatically protected span: mostly the span as written. */
    internal fun autoEnglish(kind: String, text: String): String? = when (kind) {
        "amount" -> Numbers.amountInEnglish(text)
        "time" -> {
            val half = HALF_DAY.getValue(text.substring(0, 2))
            TILDE.sub(KOREAN_HOUR.sub(PyStr.strip(text.substring(2)), ::clock), "-") + " " + half
        }
        "range" -> TILDE.sub(text.removeSuffix("년"), "-")
        else -> text
    }

    /** "2시 5분" as English writes it: "2:05" (hour 0 is 12: "오전 0시" is 12 a.m.). */
    private fun clock(match: PyMatch): String {
        val hour = Numbers.asciiDigits(match.group(1)!!).toInt().let { if (it == 0) 12 else it }
        val minutes = match.group(2) ?: return hour.toString()
        return String.format(java.util.Locale.ROOT, "%d:%02d", hour, Numbers.asciiDigits(minutes).toInt())
    }

    /** The text a language guess should read: without URLs, e-mail addresses and placeholders. */
    fun languageSample(text: String): String = ADDRESSES.sub(ANY_PLACEHOLDER.sub(text, " "), " ")

    /** The foreign names [text] writes in Hangul with their original in brackets, Hangul -> original, where the
     * Hangul sounds like the original ([Transliteration]); a one-word name needs three syllables; the first
     * introduction of a name wins. */
    fun introducedNames(text: String): Glossary {
        val names = LinkedHashMap<String, String>()
        for ((start, end, latin) in named(text)) {
            if (names.size >= Glossary.MAX_GLOSSARY_ENTRIES || latin.isEmpty() || !Unicode14.isUpper(latin.codePointAt(0)) ||
                PyStr.split(latin).size > MOST_NAME_WORDS || PyStr.length(latin) > Glossary.MAX_TERM_CHARS) continue
            val words = PyStr.split(BRACKET_END.sub(text.substring(start, end), ""))
            for (first in words.indices) {
                val korean = words.subList(first, words.size).joinToString(" ")
                if ((PyStr.length(korean) >= 3 || ' ' in korean) && Transliteration.soundsLike(korean, latin)) {
                    names.putIfAbsent(korean, latin)
                    break
                }
            }
        }
        return Glossary.of(names)
    }

    /** (start, end, the Latin) for each Korean name written with its original in brackets: as many Hangul words
     * before the bracket as the Latin has, stopping at one that ends like a particle or a modifier. */
    internal fun named(source: String): List<Triple<Int, Int, String>> {
        val spans = ArrayList<Triple<Int, Int, String>>()
        for (match in NAMED.findAll(source)) {
            val latin = match.group("latin")!!
            if (ACRONYM.fullMatch(latin) || ADDRESSES.fullMatch(latin)) continue
            var start = match.start()
            for (taken in PyStr.split(latin).indices) {
                val word = HANGUL_WORD_BEFORE.search(source, PyStr.back(source, start, LONGEST_WORD), start)
                if (word == null || (taken > 0 && NOT_IN_NAME.any { PyStr.rstrip(word.value).endsWith(it) })) break
                start = word.start()
            }
            if (start < match.start()) spans.add(Triple(start, match.end(), latin))
        }
        return spans
    }

    /** One regex for every term, longest first (so "삼성전자" wins over "삼성"): a term starts a word; a Korean term
     * may be followed by particles, a Latin one ends its word. */
    internal fun glossaryPattern(terms: List<String>): PyRegex {
        val sorted = terms.sortedByDescending { PyStr.length(it) }
        val (korean, other) = sorted.partition { HANGUL.search(PyStr.lastChar(it)) != null }
        val parts = ArrayList<String>()
        if (korean.isNotEmpty()) parts.add("(?:" + korean.joinToString("|", transform = ::escaped) + ")(?=$KOREAN_TAIL)")
        if (other.isNotEmpty()) parts.add("(?:" + other.joinToString("|", transform = ::escaped) + ")(?![A-Za-z0-9])")
        return PyRegex("(?<![$W])(?<term>" + parts.joinToString("|") + ")")
    }

    /** [text] as a literal for java.util.regex: every ASCII character that is not a letter or digit escaped. */
    private fun escaped(text: String): String = buildString {
        for (c in text) {
            if (c.code < 0x80 && !c.isLetterOrDigit()) append('\\')
            append(c)
        }
    }
}
