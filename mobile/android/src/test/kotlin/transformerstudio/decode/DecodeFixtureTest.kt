package transformerstudio.decode

import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import kotlin.math.abs

/**
 * The Kotlin loop on the exported ONNX graphs gives the app's ids: mobile/scripts/decode-fixture.py wrote what
 * Python's ONNX runtime and studio.generate give for each source (greedy and beam, the figure guard on and off,
 * a seeded sample, the loop guard's retry), and the logits of one greedy decode.
 */
class DecodeFixtureTest {
    /** Each output of the fixture decoded with the same settings. */
    private val settings = listOf("greedy_on", "greedy_off", "beam_on", "beam_off", "sample")

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = ["translator", "chatbot"])
    @DisplayName("greedy, beam and seeded sampling give Python's ids for every source, the figure guard on and off")
    fun sameIdsAsPython(bundle: String) {
        val fixture = TestData.decodeFixture(bundle)
        val task = Task.named(fixture.getString("task"))
        val guard = FigureGuard(TestData.pieces(bundle))
        TestData.onnxRuntime(fixture).use { runtime ->
            val decoder = TaskDecoder(runtime, task, guard)
            val cases = fixture.getJSONArray("cases")
            val mismatches = ArrayList<String>()
            val matched = settings.associateWith { 0 }.toMutableMap()
            val checked = TestData.checked(cases.length())
            for (index in checked) {
                val case = cases.getJSONObject(index)
                for (setting in settings) {
                    val got = decodeAs(decoder, guard, case, setting, index)
                    val want = TestData.ints(case.getJSONArray(setting))
                    val retried = setting in TestData.strings(case.getJSONArray("retried"))
                    if (got.ids == want && got.retried == retried) matched[setting] = matched.getValue(setting) + 1
                    else mismatches += "${case.getString("label")} [$setting]: ${got.ids} (retried ${got.retried}), " +
                        "Python $want (retried $retried)"
                }
            }
            println("$bundle: ${checked.count()} of ${cases.length()} sources; identical ids: $matched")
            assertTrue(mismatches.isEmpty(), "not Python's ids:\n" + mismatches.joinToString("\n"))
        }
    }

    /** The app's decode of one fixture case: the task's beam or greedy, or the chatbot's sampling, seeded. */
    private fun decodeAs(decoder: TaskDecoder, guard: FigureGuard, case: JSONObject, setting: String, index: Int): Generation {
        val source = TestData.ints(case.getJSONArray("source")).toIntArray()
        val facts = SourceFacts(TestData.strings(case.getJSONArray("numbers")), TestData.strings(case.getJSONArray("years")))
        val base = decoder.task.defaults
        val options = when (setting.substringBefore('_')) {
            "greedy" -> base.copy(strategy = Strategy.GREEDY)
            "beam" -> base.copy(strategy = Strategy.BEAM)
            else -> base.copy(strategy = Strategy.SAMPLE, seed = index.toLong())
        }.copy(keepFigures = !setting.endsWith("_off"))
        if (decoder.task.keepsFigures || !options.keepFigures) return decoder.decode(source, facts, options)
        // the chatbot keeps no figures; the fixture's "on" runs the guard all the same
        val rules = decoder.rulesFor(source, facts, options).copy(figures = Figures(guard, facts.numbers, facts.years))
        return generateUnlooped(decoder.runtime, source, options, rules)
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = ["translator", "chatbot"])
    @DisplayName("each step's best logits are within 1e-4 of Python's, in the same order")
    fun sameLogitsAsPython(bundle: String) {
        val fixture = TestData.decodeFixture(bundle)
        val logits = fixture.getJSONObject("logits")
        TestData.onnxRuntime(fixture).use { runtime ->
            var state = runtime.encode(TestData.ints(logits.getJSONArray("source")).toIntArray())
            val steps = logits.getJSONArray("steps")
            var worst = 0.0
            for (position in 0 until steps.length()) {
                val step = steps.getJSONObject(position)
                val result = runtime.step(state, step.getInt("token"), position)
                state = result.state
                val ids = TestData.ints(step.getJSONArray("ids"))
                assertEquals(ids, topTokens(result.logits, ids.size).toList(), "the best tokens at step $position")
                val values = step.getJSONArray("logits")
                for ((rank, id) in ids.withIndex()) worst = maxOf(worst, abs(result.logits[id] - values.getDouble(rank)))
            }
            runtime.release(state)
            println("$bundle: ${steps.length()} steps, largest logit difference from Python's %.2e".format(worst))
            assertTrue(worst <= 1e-4, "a logit differs from Python's by $worst")
        }
    }
}
