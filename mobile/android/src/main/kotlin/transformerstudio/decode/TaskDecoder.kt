package transformerstudio.decode

import transformerstudio.runtime.Runtime

/** A source's numbers and years (studio.text.facts.source_numbers / source_years of its text). */
data class SourceFacts(val numbers: Set<String> = emptySet(), val years: Set<String> = emptySet())

/**
 * Decodes as the app does for a task (TextGenerator.spec and .generate): the task's default decoding unless
 * options are given; for a task whose output length follows its source's (the translator) each output capped at
 * [lengthCap] of its source, else at the model's capacity; for a task that keeps its source's figures (the
 * translator, unless options.keepFigures is false) the figure guard with the source's [SourceFacts], beam search
 * preferring an output that writes every year; and the loop guard's retry ([generateUnlooped]).
 *
 * @param guard the target vocabulary's [FigureGuard]: required by a task that keeps figures.
 *
 * Thread safety: as [generate]; the guard is safe to share.
 */
class TaskDecoder(val runtime: Runtime, val task: Task, private val guard: FigureGuard? = null) {
    init {
        require(guard != null || !task.keepsFigures) {
            "the ${task.id} keeps its source's figures: give it the target vocabulary's FigureGuard"
        }
    }

    /** The output of `sourceIds` (ending in `</s>`, as [limitSource] gives them) with the app's rules. */
    fun decode(
        sourceIds: IntArray,
        facts: SourceFacts = SourceFacts(),
        options: DecodeOptions = task.defaults,
        hooks: DecodeHooks = DecodeHooks(),
    ): Generation = generateUnlooped(runtime, sourceIds, options, rulesFor(sourceIds, facts, options), hooks)

    /** The app's [OutputRules] for one source (TextGenerator.spec). */
    fun rulesFor(sourceIds: IntArray, facts: SourceFacts, options: DecodeOptions): OutputRules {
        val newTokens = minOf(options.maxNewTokens ?: runtime.maxTargetLen, runtime.maxTargetLen)
        val cap = if (task.lengthFollowsSource) lengthCap(sourceIds.size) else newTokens
        val figures = if (task.keepsFigures && options.keepFigures) Figures(guard!!, facts.numbers, facts.years) else null
        return OutputRules(lengthCap = cap, figures = figures)
    }
}
