package transformerstudio.decode

import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.condition.EnabledIfSystemProperty
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import transformerstudio.runtime.Runtime

/**
 * The JVM's side of the decode benchmark (mobile/scripts/decode-benchmark.py is Python's): ms per token of plain
 * greedy decoding on the exported ONNX graphs, one intra-op thread, the fixture's sources; and ms per position of
 * beam search with the task's beam settings. One warm-up pass, then the best of three. Prints, asserts nothing.
 * Run with -Dbenchmark=true.
 */
@EnabledIfSystemProperty(named = "benchmark", matches = "true")
class DecodeBenchmarkTest {
    private val passes = 3

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = ["translator", "chatbot"])
    @DisplayName("greedy decoding's ms per token on the JVM, printed beside the command that times Python's")
    fun msPerToken(bundle: String) {
        val fixture = TestData.decodeFixture(bundle)
        val cases = fixture.getJSONArray("cases")
        val sources = (0 until cases.length()).map {
            TestData.ints(cases.getJSONObject(it).getJSONArray("source")).toIntArray()
        }
        TestData.onnxRuntime(fixture).use { runtime ->
            var best: DoubleArray? = null
            for (attempt in 0..passes) {
                val totals = DoubleArray(3)
                for (source in sources) greedy(runtime, source).forEachIndexed { i, value -> totals[i] += value }
                if (attempt > 0 && (best == null || totals[1] < best[1])) best = totals // attempt 0 warms up
            }
            val (encodeMs, stepsMs, steps) = best!!.toList()
            println("{\"runtime\": \"jvm onnxruntime\", \"bundle\": \"$bundle\", \"sources\": ${sources.size}, " +
                "\"tokens\": ${steps.toInt()}, \"encode_ms\": ${"%.1f".format(encodeMs)}, " +
                "\"ms_per_token\": ${"%.3f".format(stepsMs / steps)}}")
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = ["translator", "chatbot"])
    @DisplayName("beam search's ms per position on the JVM (the task's beam size and length penalty, no rules)")
    fun beamMsPerPosition(bundle: String) {
        val fixture = TestData.decodeFixture(bundle)
        val cases = fixture.getJSONArray("cases")
        val sources = (0 until cases.length()).map {
            TestData.ints(cases.getJSONObject(it).getJSONArray("source")).toIntArray()
        }
        val options = Task.named(fixture.getString("task")).defaults.copy(strategy = Strategy.BEAM)
        TestData.onnxRuntime(fixture).use { runtime ->
            var best: DoubleArray? = null
            for (attempt in 0..passes) {
                val totals = DoubleArray(4) // encode ms, search ms, positions, model steps
                for (source in sources) {
                    val timings = generate(runtime, source, options).timings
                    totals[0] += timings.encodeMs
                    totals[1] += timings.totalMs - timings.encodeMs
                    totals[2] += timings.steps.toDouble()
                    totals[3] += timings.modelSteps.toDouble()
                }
                if (attempt > 0 && (best == null || totals[1] < best[1])) best = totals // attempt 0 warms up
            }
            val (encodeMs, searchMs, positions, modelSteps) = best!!.toList()
            println("{\"runtime\": \"jvm onnxruntime\", \"bundle\": \"$bundle\", \"beam\": ${options.beamSize}, " +
                "\"sources\": ${sources.size}, \"positions\": ${positions.toInt()}, " +
                "\"model_steps\": ${modelSteps.toInt()}, \"encode_ms\": ${"%.1f".format(encodeMs)}, " +
                "\"search_ms\": ${"%.1f".format(searchMs)}, " +
                "\"ms_per_position\": ${"%.3f".format(searchMs / positions)}}")
        }
    }

    /** (encode ms, steps ms, steps) of one greedy decode, as decode-benchmark.py times it. */
    private fun greedy(runtime: Runtime, source: IntArray): DoubleArray {
        val started = System.nanoTime()
        var state = runtime.encode(source)
        val encoded = System.nanoTime()
        var token = runtime.specialIds.bos
        var steps = 0
        for (position in 0 until runtime.maxTargetLen) {
            val result = runtime.step(state, token, position)
            state = result.state
            token = argmax(result.logits)
            steps++
            if (token == runtime.specialIds.eos) break
        }
        val done = System.nanoTime()
        runtime.release(state)
        return doubleArrayOf((encoded - started) / 1e6, (done - encoded) / 1e6, steps.toDouble())
    }
}
