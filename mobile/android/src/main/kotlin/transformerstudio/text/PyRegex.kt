package transformerstudio.text

import java.util.regex.Matcher
import java.util.regex.Pattern

/**
 * A java.util.regex pattern used as Python's `re` is: search/match/fullmatch with pos and endpos, finditer, sub
 * with a function, split. Compiled with UNIX_LINES, so that `$` matches at the end or before a final "\n" and `.`
 * matches all but "\n", as Python's do (without it Java also treats "\r", U+0085, U+2028 and U+2029 as line ends).
 *
 * Patterns are written for Java: Python's Unicode `\w`, `\d`, `\s` are spelt out with [W], [D], [S] (Unicode
 * 14.0, not the JVM's), named groups have no underscore. Positions are UTF-16 indices.
 */
internal class PyRegex(val source: String, flags: Int = 0) {
    val pattern: Pattern = Pattern.compile(source, flags or Pattern.UNIX_LINES)
    private val names: Map<String, Int> = groupNumbers(source)

    /** Python's pattern.search(text, pos, endpos): lookbehind sees before [pos], the text ends at [endpos]. */
    fun search(text: String, pos: Int = 0, endpos: Int = text.length): PyMatch? = withDeepStack {
        val matcher = matcher(text, pos, endpos)
        if (matcher.find()) PyMatch.of(matcher, text, names) else null
    }

    /** Python's pattern.match(text, pos, endpos): a match that starts at [pos]. */
    fun match(text: String, pos: Int = 0, endpos: Int = text.length): PyMatch? = withDeepStack {
        val matcher = matcher(text, pos, endpos)
        if (matcher.lookingAt()) PyMatch.of(matcher, text, names) else null
    }

    /** Python's pattern.fullmatch(text). */
    fun fullMatch(text: String): Boolean = withDeepStack { pattern.matcher(text).matches() }

    /** Python's pattern.finditer(text). */
    fun findAll(text: String): List<PyMatch> = withDeepStack {
        val found = ArrayList<PyMatch>()
        val matcher = pattern.matcher(text)
        while (matcher.find()) found.add(PyMatch.of(matcher, text, names))
        found
    }

    /** Python's pattern.sub(function, text). */
    fun sub(text: String, replacement: (PyMatch) -> String): String {
        val out = StringBuilder()
        var position = 0
        for (match in findAll(text)) {
            out.append(text, position, match.start()).append(replacement(match))
            position = match.end()
        }
        return out.append(text, position, text.length).toString()
    }

    /** Python's pattern.sub(literal, text): [replacement] taken as it is. */
    fun sub(text: String, replacement: String): String = sub(text) { replacement }

    /** Python's pattern.split(text), for a pattern without groups that never matches empty. */
    fun split(text: String): List<String> {
        val parts = ArrayList<String>()
        var position = 0
        for (match in findAll(text)) {
            parts.add(text.substring(position, match.start()))
            position = match.end()
        }
        parts.add(text.substring(position))
        return parts
    }

    private fun matcher(text: String, pos: Int, endpos: Int): Matcher {
        val subject = if (endpos < text.length) text.substring(0, endpos) else text
        return pattern.matcher(subject).region(pos, subject.length)
            .useTransparentBounds(true).useAnchoringBounds(false)
    }

    companion object {
        private const val DEEP_STACK = 512L shl 20

        /**
         * [work], run again on a thread with a deep stack where it overflowed this one: java.util.regex recurses
         * once per repetition of a group (a run of thousands of "1천" is thousands of frames), Python's re does
         * not, and the answer must be Python's whatever the text.
         */
        fun <T> withDeepStack(work: () -> T): T = try {
            work()
        } catch (overflow: StackOverflowError) {
            var result: Result<T>? = null
            val thread = Thread(null, { result = runCatching(work) }, "transformerstudio-regex", DEEP_STACK)
            thread.start()
            thread.join()
            result!!.getOrThrow()
        }

        /** Each named group's number, counting the capturing groups' openings outside character classes
         * (java.util.regex on Java 17 and Android has no call that says it). */
        fun groupNumbers(source: String): Map<String, Int> {
            val numbers = LinkedHashMap<String, Int>()
            var count = 0
            var classDepth = 0
            var i = 0
            while (i < source.length) {
                when (source[i]) {
                    '\\' -> i++
                    '[' -> classDepth++
                    ']' -> if (classDepth > 0) classDepth--
                    '(' -> if (classDepth == 0) {
                        val name = NAMED_OPENING.matchAt(source, i)
                        if (name != null) numbers[name.groupValues[1]] = ++count
                        else if (!source.startsWith("(?", i)) count++
                    }
                }
                i++
            }
            return numbers
        }

        private val NAMED_OPENING = Regex("\\(\\?<([A-Za-z][A-Za-z0-9]*)>")
    }
}

/** One match, kept after the matcher moved on: its text, groups by number and by name. */
internal class PyMatch private constructor(
    val string: String,
    private val starts: IntArray,
    private val ends: IntArray,
    private val named: Map<String, Int>,
) {
    fun start(group: Int = 0): Int = starts[group]
    fun end(group: Int = 0): Int = ends[group]
    fun start(name: String): Int = starts[named.getValue(name)]
    fun end(name: String): Int = ends[named.getValue(name)]

    /** The group's text, or null where it did not take part. */
    fun group(group: Int = 0): String? = if (starts[group] < 0) null else string.substring(starts[group], ends[group])
    fun group(name: String): String? = group(named.getValue(name))
    val value: String get() = group(0)!!

    /** Python's lastgroup for a pattern of named alternatives: the first named group that took part. */
    val lastGroup: String? get() = named.entries.firstOrNull { starts[it.value] >= 0 }?.key

    companion object {
        fun of(matcher: Matcher, string: String, named: Map<String, Int>): PyMatch {
            val count = matcher.groupCount() + 1
            return PyMatch(string, IntArray(count) { matcher.start(it) }, IntArray(count) { matcher.end(it) }, named)
        }
    }
}
