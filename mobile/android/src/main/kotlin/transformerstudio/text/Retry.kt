package transformerstudio.text

/** One protected sentence decoded: its English, the spans [applied] and [dropped], the [pass] kept (1 or 2), and
 * whether a second pass ran ([again]). */
data class Unprotected(val text: String, val applied: List<Span>, val dropped: List<Span>, val pass: Int, val again: Boolean)

/**
 * The retry of a protected sentence whose placeholders the model dropped or wrote twice, a port of
 * studio/translation.py's _unprotect, _restored and _second_pass_wins (web/src/protect.js's decodeProtected).
 */
object Retry {
    /** (translation.py's _restored) [output] restored; the spans [writtenIn] the source as English, not as
     * placeholders, count as applied where their English is in the output. */
    fun restoredWith(shield: Protected, output: String, writtenIn: List<Span>): Restored {
        val restored = shield.restore(output)
        val folded = Unicode14.casefold(restored.text)
        val applied = restored.applied + writtenIn.filter { span ->
            Unicode14.casefold(span.english) in folded && span !in restored.applied
        }
        return Restored(restored.text, applied, shield.spans.filter { it !in applied })
    }

    /** (translation.py's _second_pass_wins) Whether the pass decoded with spans' English written in ([second],
     * from the model's [secondOutput]) is kept over the [first]: it applied more of the spans, or as many where the
     * first wrote a number twice ([repeated]) and it wrote none of them twice. */
    fun secondPassWins(shield: Protected, first: Restored, second: Restored, secondOutput: String, repeated: List<Span>): Boolean {
        if (second.applied.size != first.applied.size) return second.applied.size > first.applied.size
        val text = Unicode14.casefold(second.text)
        return repeated.isNotEmpty() && shield.repeated(secondOutput).isEmpty() &&
            repeated.all { PyStr.count(text, Unicode14.casefold(it.english)) <= 1 }
    }

    /**
     * One protected sentence decoded as the app does: [decode] (source, pass 1 or 2) gives the model's output, or
     * null when it was stopped. The first pass decodes the placeholder text; when it dropped a span or wrote a
     * number twice, a second pass decodes the source with those spans' English written in, kept when
     * [secondPassWins]. Null when the first pass was stopped (a second stopped keeps the first).
     */
    fun decodeProtected(shield: Protected, decode: (String, Int) -> String?): Unprotected? {
        val output = decode(shield.text, 1) ?: return null
        val first = shield.restore(output)
        val repeated = shield.repeated(output)
        val writtenIn = first.dropped + repeated
        if (writtenIn.isEmpty()) return Unprotected(first.text, first.applied, first.dropped, 1, false)
        val secondOutput = decode(shield.inline(writtenIn), 2)
            ?: return Unprotected(first.text, first.applied, first.dropped, 1, true)
        val second = restoredWith(shield, secondOutput, writtenIn)
        val kept = if (secondPassWins(shield, first, second, secondOutput, repeated)) second else first
        return Unprotected(kept.text, kept.applied, kept.dropped, if (kept === second) 2 else 1, true)
    }

    private const val MAX_NAMED = 10 // dropped spans named in the report; more are counted

    /** One line on what protection did (protect.py's describe, without the glossary's longer-word note): each
     * glossary entry applied or not, and each automatically protected span the model dropped. Empty when nothing. */
    fun describe(report: List<Pair<Span, Boolean>>): String {
        val entries = LinkedHashMap<Pair<String, String>, MutableList<Boolean>>()
        val dropped = LinkedHashMap<String, Int>()
        for ((span, applied) in report) {
            if (span.kind == "glossary") {
                entries.getOrPut(span.original to span.english) { ArrayList() }.add(applied)
            } else if (!applied) {
                val name = if (span.english in span.original) span.original else "${span.original} → ${span.english}"
                dropped[name] = (dropped[name] ?: 0) + 1
            }
        }
        val parts = entries.map { (entry, outcomes) ->
            val done = outcomes.count { it }
            val state = if (done == outcomes.size) "applied" else if (done > 0) "applied $done of ${outcomes.size} times"
            else "not applied: the model dropped it"
            "${entry.first} → ${entry.second} ($state)"
        }
        var line = if (parts.isNotEmpty()) "Glossary: ${parts.joinToString("; ")}." else ""
        if (dropped.isNotEmpty()) {
            var names = dropped.map { (name, times) -> if (times > 1) "$name ($times times)" else name }
            if (names.size > MAX_NAMED) names = names.take(MAX_NAMED) + "and ${names.size - MAX_NAMED} more"
            val them = if (dropped.size > 1 || dropped.values.sum() > 1) "them" else "it"
            line += (if (line.isNotEmpty()) " " else "") + "Not kept as written (the model dropped $them): ${names.joinToString(", ")}."
        }
        return line
    }
}
