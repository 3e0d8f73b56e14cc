package transformerstudio.text

import transformerstudio.text.ProtectPatterns.ANY_PLACEHOLDER
import transformerstudio.text.ProtectPatterns.GONE
import transformerstudio.text.ProtectPatterns.GONE_BEFORE_MARK
import transformerstudio.text.ProtectPatterns.GONE_IN_BRACKETS
import transformerstudio.text.ProtectPatterns.LEAKED
import transformerstudio.text.ProtectPatterns.TWICE_IN_A_ROW

/** One protected span: its [placeholder] ("Xq1"), the [original] as written in the source, the [english] the
 * output gets, and its [kind] ("glossary", "named", or one of the automatic kinds: "amount", "latin"…). */
data class Span(val placeholder: String, val original: String, val english: String, val kind: String)

/** What restoring an output gave: its [text] with every placeholder replaced by its English, the spans [applied]
 * and the spans the model [dropped]. */
data class Restored(val text: String, val applied: List<Span>, val dropped: List<Span>)

/**
 * A source with its protected spans replaced by placeholders (protect.py's Protected); [written]: the "Xq…" tokens
 * the user's own text has (casefolded), never removed. Immutable, so thread-safe.
 */
class Protected(val text: String, val spans: List<Span> = emptyList(), val written: Set<String> = emptySet()) {
    private val byPlaceholder = spans.associateBy { fold(it.placeholder) }

    /** The output with every placeholder replaced by its English, in one pass (an English that looks like a
     * placeholder is never replaced again); a placeholder the model made up, or a number's written more often than
     * the source has it, is removed, misspelt or not. */
    fun restore(output: String): Restored {
        if (spans.isEmpty() && ANY_PLACEHOLDER.search(output) == null) return Restored(output, emptyList(), emptyList())
        val writtenRight = placeholdersIn(output).toSet()
        val left = counts().toMutableMap()
        val seen = HashSet<String>()
        val source = fold(text)
        val once = once(output)
        var out = Protection.putBack(once) { match ->
            val found = if (match.group("exact") != null) fold(match.value) else placeholderOf(match)
            val refused = if (match.group("exact") != null) exactRefused(match, found, left)
            else if (found !in byPlaceholder || found in writtenRight || found in seen)
                (if (fold(match.value) in source) match.value else GONE) else null
            if (refused != null) return@putBack refused to false
            seen.add(found)
            left[found] = left.getValue(found) - 1
            val glued = match.start() > 0 && Unicode14.isAlpha(PyStr.codePointBefore(once, match.start()))
            (if (glued) " " else "") + byPlaceholder.getValue(found).english to true
        }
        // one glued between digits ("1Xq124") is no placeholder the rules above can read: it never shows through
        out = LEAKED.sub(out) { if (fold(it.value) in written) it.value else GONE }
        // where one was removed, no space is left before punctuation ("the cell line of ." -> "of.")
        out = PyStr.split(GONE_BEFORE_MARK.sub(GONE_IN_BRACKETS.sub(out, ""), "").replace(GONE, " ")).joinToString(" ")
        val applied = spans.filter { fold(it.placeholder) in seen }
        for (span in applied) out = tidiedAround(out, span.english)
        return Restored(out, applied, spans.filter { fold(it.placeholder) !in seen })
    }

    /** What replaces an exact placeholder instead of its span's English, or null where the English goes there. */
    private fun exactRefused(match: PyMatch, found: String, left: Map<String, Int>): String? {
        val span = byPlaceholder[found] ?: return if (found !in written) GONE else match.value
        return if (left.getValue(found) == 0 && span.kind in Protection.NUMERIC_KINDS) GONE else null
    }

    /** "at 2:00 p.m.." -> "at 2:00 p.m."; "Brewster Brothers's" -> "Brewster Brothers'". */
    private fun tidiedAround(output: String, english: String): String {
        var out = output
        if (english.endsWith(".")) out = out.replace("$english.", english)
        val codes = english.codePoints().toArray()
        if (english.endsWith("s") && codes.size >= 2 && Unicode14.isAlpha(codes[codes.size - 2])) {
            out = out.replace("$english's", "$english'").replace("$english’s", "$english’")
        }
        return out
    }

    /** A misspelt placeholder's number as the right one, casefolded ("Seq1" -> "xq1"). */
    private fun placeholderOf(match: PyMatch): String =
        fold(Protection.placeholder(Numbers.asciiDigits(match.group("number") ?: match.group("bare")!!).toInt()))

    /** [output] with a span's placeholder written twice in a row given once, where the output has it more often than
     * the source: "'Xq1 'Xq1'" -> "'Xq1'" (a quote between them is kept unless one comes before the first). */
    fun once(output: String): String {
        val ours = spans.map { fold(it.placeholder) }.filter { it !in written }.toSet()
        val inOutput = placeholdersIn(output)
        val counts = counts()
        return TWICE_IN_A_ROW.sub(output) { m ->
            val found = fold(m.group(1)!!)
            if (found !in ours || inOutput.count { it == found } <= counts.getValue(found)) return@sub m.value
            val before = if (m.start() > 0) output[m.start() - 1].toString() else ""
            val quotes = if (before.isNotEmpty() && before in QUOTES) "" else m.group(2)!!.filter { it in QUOTES }
            quotes + m.group(1)
        }
    }

    /** The numbers (amounts, figures, ranges, times) whose placeholder [output] has more often than the source: a
     * number written twice is a wrong number; a name written twice is English ("Smith ... Mr Smith"). */
    fun repeated(output: String): List<Span> {
        val inOutput = placeholdersIn(output)
        val counts = counts()
        return spans.filter { span ->
            span.kind in Protection.NUMERIC_KINDS && inOutput.count { it == fold(span.placeholder) } > counts.getValue(fold(span.placeholder))
        }
    }

    /** How often the source has each span's placeholder (casefolded; a term written twice shares one). */
    fun counts(): Map<String, Int> {
        val inSource = placeholdersIn(text)
        return spans.associate { span -> fold(span.placeholder).let { key -> key to inSource.count { it == key } } }
    }

    /** The source with [chosen] spans written as their English instead of placeholders (the fallback for a sentence
     * whose placeholders the model dropped: it copies Latin text more often than not). */
    fun inline(chosen: List<Span>): String {
        val english = chosen.associate { fold(it.placeholder) to it.english }
        return ANY_PLACEHOLDER.sub(text) { english[fold(it.value)] ?: it.value }
    }

    companion object {
        private const val QUOTES = "'\"“”‘’"
        private fun fold(text: String) = Unicode14.casefold(text)
        internal fun placeholdersIn(text: String) = ANY_PLACEHOLDER.findAll(text).map { fold(it.value) }
    }
}
