package transformerstudio.text

import transformerstudio.text.PyClasses.D
import transformerstudio.text.PyClasses.S
import transformerstudio.text.PyClasses.W

/**
 * Translating more than one sentence as the app does, a port of studio/translation.py's sentence handling
 * (web/src/sentences.js): a text's lines are split into sentences ([splitSentences]), a sentence too long for the
 * model into pieces ([fitToLength]); each piece is decoded alone, finished ([finishSentence]) and the pieces of a
 * line joined by a space ([joinPieces]).
 *
 * Where Kotlin differs from Python: `\s`, str.split() and str.strip() are Python's whitespace; `\b` and `\d` are
 * Unicode in Python (a Korean letter is a word character, "１２" are digits): lookarounds on Unicode 14.0's `\w`
 * here; str.islower()/isupper()/upper() are Unicode 14.0's ([Unicode14]); lengths count code points.
 */
object Sentences {
    private val START get() = "(?<![$W])" // Python's \b before a word character
    private val SENTENCE_END by lazy {
        PyRegex("(?<=[.!?。？！])(?<!$START[A-Z]\\.)(?<!$START[A-Z][a-z]\\.)(?<!$START[A-Z][a-z]{2}\\.)" +
            "(?<!^[가-힣]\\.)(?<!^[$D]\\.)(?<!^[$D][$D]\\.)[$S]+")
    }
    private val CLAUSE_END by lazy { PyRegex("(?<=[,;:，])[$S]+") }
    private val DOUBLED by lazy { PyRegex("(?<![$W])([a-z]{3,})(?: \\1(?![$W]))+") } // "the draft draft"
    private val MEANT_TWICE = setOf("had", "that")
    private const val TERMINAL = ".!?"
    private const val CLOSING = "\"'”’)]」』"
    private const val OPENING = "\"'“‘([「『"

    /** The sentences of a paragraph: not split after a Latin abbreviation or initial ("Dr. Smith", "U.S.") nor
     * after a list marker that starts the line ("가. 서론", "1. 개요"). */
    fun splitSentences(paragraph: String): List<String> =
        SENTENCE_END.split(PyStr.strip(paragraph)).map(PyStr::strip).filter { it.isNotEmpty() }

    /** A sentence whose token count exceeds [limit] split: first at clause punctuation, then by words. */
    fun fitToLength(sentence: String, countTokens: (String) -> Int, limit: Int): List<String> {
        if (countTokens(sentence) <= limit) return listOf(sentence)
        val clauses = CLAUSE_END.split(sentence).filter { PyStr.strip(it).isNotEmpty() }
        val units = if (clauses.size > 1) clauses else PyStr.split(sentence)
        val pieces = ArrayList<String>()
        var current = ""
        for (unit in units) {
            val candidate = PyStr.strip("$current $unit")
            if (current.isNotEmpty() && countTokens(candidate) > limit) {
                pieces.add(current)
                current = unit
            } else {
                current = candidate
            }
        }
        if (current.isNotEmpty()) pieces.add(current)
        if (pieces.size == 1 && units.size == 1) return pieces // one enormous "word": truncated, with a warning
        return pieces.flatMap { fitToLength(it, countTokens, limit) }
    }

    /** The model's English finished: a first letter in lower case capitalized (unless the source has that word as
     * written or it has a capital inside, "iPhone"), the source's final . ! or ? where the output stops without
     * one, a final comma or semicolon dropped unless the source ends with one, a lower-case word written twice in
     * a row written once, and a month beside one of the source's dates made that date's ([Dates.repairMonths]).
     * For a model of another [pair], only what that pair calls for: the output stripped, at least. */
    fun finishSentence(source: String, output: String, pair: LanguagePair = LanguagePair.KOREAN_ENGLISH): String {
        val repaired = if (pair.koreanToEnglish) Dates.repairMonths(source, output) else output
        if (!pair.englishTarget) return PyStr.strip(repaired)
        var out = DOUBLED.sub(PyStr.strip(repaired)) { m -> if (m.group(1) in MEANT_TWICE) m.value else m.group(1)!! }
        if (out.isEmpty()) return out
        out = capitalized(source, out)
        val end = PyStr.lastChar(PyStr.rstrip(PyStr.rstrip(source), CLOSING))
        if (out.last() in ",;" && end != "," && end != ";") out = PyStr.rstrip(out.dropLast(1))
        if (end.isNotEmpty() && end in TERMINAL && PyStr.lastChar(PyStr.rstrip(out, CLOSING)) !in "$TERMINAL…:;,") {
            out += end
        }
        return out
    }

    /** [output] with its first letter capitalized, where finish_sentence capitalizes it. */
    private fun capitalized(source: String, output: String): String {
        val first = PyStr.lstrip(PyStr.split(output)[0], OPENING)
        val at = output.length - PyStr.lstrip(output, OPENING).length // "“parasite” was seen" -> "“Parasite” …"
        if (first.isEmpty() || !Unicode14.isLower(first.codePointAt(0)) || first in source) return output
        if (first.codePoints().anyMatch(Unicode14::isUpper)) return output // not "eBay"
        val letter = output.codePointAt(at)
        val upper = Unicode14.upper(String(Character.toChars(letter)))
        if (PyStr.length(upper) != 1) return output // "ß" has no one-letter capital
        return output.substring(0, at) + upper + output.substring(at + Character.charCount(letter))
    }

    /** Per line of [text] (split at "\n"), the pieces the model decodes: its sentences, each split further when
     * longer than [limit] tokens; none for a blank line, nor for one without the [pair]'s source text (kept as
     * written: [LanguagePair.hasText]). */
    fun planLines(
        text: String, countTokens: (String) -> Int, limit: Int, pair: LanguagePair = LanguagePair.KOREAN_ENGLISH,
    ): List<List<String>> = text.split("\n").map { line ->
        if (!hasText(pair, line)) emptyList()
        else splitSentences(line).flatMap { fitToLength(it, countTokens, limit) }
    }

    /** Whether [line] has text to translate besides placeholders (a document format's markup tokens, "Xq1"). */
    private fun hasText(pair: LanguagePair, line: String) = pair.hasText(ProtectPatterns.ANY_PLACEHOLDER.sub(line, " "))

    /** What is said about the lines of [text] without the [pair]'s source text that [joinPieces] keeps as written,
     * or null (translation.py's kept_warning, as translate gives it). */
    fun keptWarning(text: String, pair: LanguagePair = LanguagePair.KOREAN_ENGLISH): String? {
        val kept = text.split("\n").filter { PyStr.strip(it).isNotEmpty() && !hasText(pair, it) }
        if (kept.isEmpty()) return null
        val stripped = PyStr.strip(kept[0])
        val first = if (PyStr.length(stripped) > 40) PyStr.head(stripped, 40) + "…" else stripped
        val what = pair.sourceText
        return if (kept.size == 1) "kept as written, without $what to translate: ${PyStr.repr(first)}"
        else "%,d lines without %s kept as written (the first: %s)"
            .format(java.util.Locale.ROOT, kept.size, what, PyStr.repr(first))
    }

    /**
     * The translation of a planned [text] ([planLines]) as the app joins it: each line's outputs joined by a space
     * (empty ones left out), a line kept (no pieces, not blank) as written, the lines by "\n". [outputs] are the first
     * outputs.size pieces' (the last may be one being written); until every piece has one, the lines after the
     * last with an output are left out.
     */
    fun joinPieces(plan: List<List<String>>, outputs: List<String>, text: String): String {
        val written = text.split("\n")
        val lines = ArrayList<String>()
        var position = 0
        var shown = 0 // lines up to the last one with an output
        for ((i, pieces) in plan.withIndex()) {
            if (pieces.isNotEmpty() && position >= outputs.size) break
            lines.add(if (pieces.isNotEmpty()) outputs.subList(position, minOf(position + pieces.size, outputs.size))
                .filter { it.isNotEmpty() }.joinToString(" ")
            else if (PyStr.strip(written[i]).isNotEmpty()) written[i] else "")
            position += pieces.size
            if (pieces.isNotEmpty()) shown = lines.size
        }
        val complete = outputs.size >= plan.sumOf { it.size }
        return (if (complete) lines else lines.subList(0, shown)).joinToString("\n")
    }
}
