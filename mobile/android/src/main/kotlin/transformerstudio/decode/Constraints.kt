package transformerstudio.decode

/**
 * The figure guard for one source: the target vocabulary's [guard], the source's `numbers`
 * (studio.text.facts.source_numbers of the source's text) and its `years` (facts.source_years), which beam
 * search prefers an output to write.
 */
class Figures(val guard: FigureGuard, val numbers: Set<String>, val years: Set<String> = emptySet())

/**
 * What the app asks of an output besides the [DecodeOptions]: at most `lengthCap` tokens (`</s>` included;
 * null: the model's capacity), no `</s>` before `minNewTokens` tokens, and no invented figure ([figures]).
 */
data class OutputRules(
    val lengthCap: Int? = null,
    val minNewTokens: Int = 0,
    val figures: Figures? = null,
) {
    init {
        require(lengthCap == null || lengthCap >= 1) { "length cap must be at least 1" }
        require(minNewTokens >= 0) { "min new tokens cannot be negative" }
    }
}

/** The constraints of one decode, as the loop applies them at every step. */
internal class Constraints(
    val eos: Int,
    val minNewTokens: Int,
    val noRepeatNgram: Int,
    /** Python's spec.cap(source): at `position + 1 == cap` only `</s>` is possible; null: none. */
    val cap: Int?,
    val figures: Figures?,
)

/**
 * The logits with Python's constraints, in its order (loop.held_open, constraints.ban_repeated_ngrams,
 * figures.keep_figures, strategies.end_capped): no `</s>` before minNewTokens, no token that repeats an n-gram,
 * no number the source lacks (the guard gives way when it would leave no token), only `</s>` at the cap.
 * Returns `logits` itself when none applies, else a changed copy.
 */
internal fun constrain(logits: FloatArray, position: Int, history: List<Int>, rules: Constraints): FloatArray {
    val early = position < rules.minNewTokens
    val banned = repeatedNgramEnds(history, rules.noRepeatNgram)
    val invented = rules.figures?.let { it.guard.banned(history, it.numbers) } ?: IntArray(0)
    val capped = rules.cap != null && position + 1 >= rules.cap
    if (!early && banned.isEmpty() && invented.isEmpty() && !capped) return logits
    val changed = logits.copyOf()
    if (early) changed[rules.eos] = Float.NEGATIVE_INFINITY
    for (token in banned) changed[token] = Float.NEGATIVE_INFINITY
    if (invented.isNotEmpty()) {
        val before = changed.copyOf()
        for (token in invented) changed[token] = Float.NEGATIVE_INFINITY
        if (changed.none { it.isFinite() }) before.copyInto(changed) // the other constraints left only these
    }
    if (capped) {
        changed.fill(Float.NEGATIVE_INFINITY)
        changed[rules.eos] = 0f
    }
    return changed
}
