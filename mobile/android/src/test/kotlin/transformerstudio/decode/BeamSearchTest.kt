package transformerstudio.decode

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import transformerstudio.runtime.DecoderState
import transformerstudio.runtime.Runtime
import transformerstudio.runtime.SpecialIds
import transformerstudio.runtime.StepResult
import kotlin.math.abs
import kotlin.math.ln

private const val BOS = 1
private const val EOS = 2
private const val A = 3
private const val B = 4
private const val C = 5
private const val D = 6

/**
 * The Python tests' table runtime (tests/unit/test_decoding.py, web/test/beam.test.mjs): logits = log p(next |
 * the source's first id, the token fed), -1e9 elsewhere. Source A: greedy takes B (0.5) then has only weak choices;
 * beam search finds C (0.4) then D (0.9). Source B loops "a b a b ..." without end.
 */
private class TableRuntime(override val maxTargetLen: Int = 8) : Runtime {
    private class State(val source: Int) : DecoderState

    private val table = mapOf(
        A to mapOf(BOS to mapOf(B to 0.5, C to 0.4, EOS to 0.1), B to mapOf(A to 0.4, D to 0.25, EOS to 0.35),
            C to mapOf(D to 0.9, EOS to 0.1), D to mapOf(EOS to 1.0), A to mapOf(EOS to 1.0)),
        B to mapOf(BOS to mapOf(A to 0.6, B to 0.4), A to mapOf(B to 0.9, EOS to 0.1), B to mapOf(A to 0.9, EOS to 0.1)),
    )
    override val maxSourceLen = 4
    override val specialIds = SpecialIds()

    override fun encode(sourceIds: IntArray): DecoderState = State(sourceIds[0])

    override fun step(state: DecoderState, token: Int, position: Int): StepResult {
        val logits = FloatArray(7) { -1e9f }
        val source = (state as State).source
        for ((next, p) in table.getValue(source)[token] ?: mapOf(EOS to 1.0)) logits[next] = ln(p).toFloat()
        return StepResult(logits, State(source))
    }

    override fun fork(state: DecoderState): DecoderState = State((state as State).source)
    override fun drop(state: DecoderState) = Unit
    override fun release(state: DecoderState) = Unit
    override fun close() = Unit
}

private class StepFailure : RuntimeException("the model failed")

/** The table runtime whose `failAt`-th step throws, the states stepped before it replaced (a runtime's own loop). */
private class FailingRuntime(private val failAt: Int, private val table: Runtime = TableRuntime()) : Runtime by table {
    private var steps = 0

    override fun step(state: DecoderState, token: Int, position: Int): StepResult {
        if (++steps == failAt) throw StepFailure()
        return table.step(state, token, position)
    }

    override fun stepAll(states: MutableList<DecoderState>, tokens: IntArray, position: Int): List<FloatArray> =
        super<Runtime>.stepAll(states, tokens, position)
}

class BeamSearchTest {
    private fun beam(size: Int, penalty: Double) = DecodeOptions(strategy = Strategy.BEAM, beamSize = size, lengthPenalty = penalty)

    private fun ids(source: Int, options: DecodeOptions, rules: OutputRules = OutputRules()) =
        generate(TableRuntime(), intArrayOf(source, EOS), options, rules).ids

    @Test
    @DisplayName("beam search finds the more likely output greedy misses; beam size 1 is greedy")
    fun beamBeatsGreedy() {
        assertEquals(listOf(C, D), ids(A, beam(3, 0.0)))
        assertEquals(listOf(B, A), ids(A, DecodeOptions()))
        assertEquals(listOf(B, A), ids(A, beam(1, 1.0)))
    }

    @Test
    @DisplayName("each source gets its most likely finished output, the length penalty as Python's")
    fun lengthPenalty() {
        assertEquals(listOf(A), ids(B, beam(4, 0.0))) // p(A </s>) = 0.06 beats every longer ending
        assertEquals(listOf(A, B), ids(B, beam(4, 1.0))) // log(0.054) / 3 > log(0.06) / 2
    }

    @Test
    @DisplayName("finished hypotheses come back best first, distinct, with Python's normalized scores")
    fun alternativesAsPython() {
        val expected = listOf(-0.3405504126768893 to listOf(C, D), -0.5364793021578783 to listOf(B, A),
            -0.6931471704541837 to listOf(B, D), -0.8714846192448131 to listOf(B))
        val result = generate(TableRuntime(), intArrayOf(A, EOS), beam(4, 1.0))
        assertEquals(expected.map { it.second }, result.alternatives.map { it.ids })
        for ((i, item) in expected.withIndex()) assertTrue(abs(result.alternatives[i].score - item.first) < 1e-6)
    }

    @Test
    @DisplayName("without an ending the best live hypothesis is the output; maxNewTokens and lengthCap bound it")
    fun lengths() {
        val looping = generate(TableRuntime(), intArrayOf(B, EOS), beam(2, 0.0))
        assertEquals(listOf(A, B, A, B, A, B, A, B), looping.ids)
        assertEquals(Stop.LENGTH, looping.stop)
        assertEquals(8, looping.timings.steps)
        assertEquals(listOf(A), ids(B, beam(3, 0.0).copy(maxNewTokens = 3)))
        assertEquals(listOf(A, B), ids(B, beam(3, 0.0), OutputRules(lengthCap = 3)))
    }

    @Test
    @DisplayName("the loop guard decodes a looping output again with repeated bigrams banned")
    fun loopGuardRetries() {
        val result = generateUnlooped(TableRuntime(), intArrayOf(B, EOS), DecodeOptions())
        assertTrue(result.retried)
        assertEquals(listOf(A, B, A), result.ids) // then B would repeat the bigram "a b": only </s> is left
    }

    @Test
    @DisplayName("beam search prefers a finished output that writes every year of its source")
    fun yearsKept() {
        // A writes " a", B " 20", C " c", D "18": the best output, C D (" c18"), drops the year 2018; B D writes it
        val guard = FigureGuard(listOf("<pad>", "<s>", "</s>", "\u2581a", "\u258120", "\u2581c", "18"))
        val numbers = setOf("2018", "18", "20")
        assertEquals(listOf(C, D), ids(A, beam(4, 1.0), OutputRules(figures = Figures(guard, numbers))))
        assertEquals(listOf(B, D), ids(A, beam(4, 1.0), OutputRules(figures = Figures(guard, numbers, setOf("2018")))))
    }

    @Test
    @DisplayName("a step failing after some hypotheses were stepped: its error, and every state freed once")
    fun failingStepFreesEveryState() {
        // position 0 steps <s>; at position 1 the first of the two live hypotheses steps, the second fails
        val runtime = CountingRuntime(FailingRuntime(failAt = 3))
        assertThrows(StepFailure::class.java) { generate(runtime, intArrayOf(A, EOS), beam(3, 0.0)) }
        assertTrue(runtime.live.isEmpty(), "${runtime.live.size} states not freed")
        assertEquals(1, runtime.releases)
    }
}
