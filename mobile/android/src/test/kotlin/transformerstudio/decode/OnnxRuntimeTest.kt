package transformerstudio.decode

import ai.onnxruntime.OrtException
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import org.json.JSONObject
import transformerstudio.runtime.DecoderState
import transformerstudio.runtime.ExportManifest
import transformerstudio.runtime.OnnxRuntime
import java.io.File

/** The ONNX runtime's contract on the chatbot's graphs: bytes or files, forks, batched steps, freed states. */
class OnnxRuntimeTest {
    private val fixture = TestData.decodeFixture("chatbot")
    private val source = TestData.ints(fixture.getJSONObject("logits").getJSONArray("source")).toIntArray()

    @Test
    @DisplayName("a runtime made from the graphs' bytes gives the logits of one made from their files")
    fun bytesAsFiles() {
        val dir = TestData.exportFor(fixture)
        val manifest = ExportManifest.read(File(dir, "manifest.json"))
        val fromBytes = OnnxRuntime(File(dir, "encode.onnx").readBytes(), File(dir, "decode_step.onnx").readBytes(), manifest)
        val logits = listOf(fromBytes, OnnxRuntime.open(dir)).map { runtime ->
            runtime.use {
                val result = it.step(it.encode(source), it.specialIds.bos, 0)
                it.release(result.state)
                result.logits
            }
        }
        assertArrayEquals(logits[0], logits[1])
    }

    @Test
    @DisplayName("a fork steps on its own: the parent's next logits are as if the fork never ran")
    fun forksAreIndependent() {
        TestData.onnxRuntime(fixture).use { runtime ->
            val first = runtime.step(runtime.encode(source), runtime.specialIds.bos, 0)
            val fork = runtime.fork(first.state)
            val forkStep = runtime.step(fork, 7, 1)
            val parentStep = runtime.step(first.state, 7, 1)
            assertArrayEquals(forkStep.logits, parentStep.logits)
            val other = runtime.step(forkStep.state, 9, 2)
            val same = runtime.step(parentStep.state, 9, 2)
            assertArrayEquals(other.logits, same.logits)
            runtime.drop(other.state)
            runtime.release(same.state)
            assertThrows(IllegalStateException::class.java) { runtime.step(same.state, 1, 3) }
        }
    }

    @Test
    @DisplayName("states stepped together get the logits each gets stepped alone, in any order, forks included")
    fun batchedStepsAsAlone() {
        TestData.onnxRuntime(fixture).use { runtime ->
            val first = runtime.step(runtime.encode(source), runtime.specialIds.bos, 0).state
            val alone = MutableList(4) { runtime.fork(first) }
            val together = mutableListOf(first, runtime.fork(first), runtime.fork(first), runtime.fork(first))
            // the cache grows at position 16: one batch fed rows of another batch in a new order, a row twice
            for ((position, tokens) in listOf(1 to intArrayOf(7, 9, 7, 11), 2 to intArrayOf(5, 5, 8, 12),
                16 to intArrayOf(3, 4, 6, 9), 17 to intArrayOf(10, 11, 12, 13))) {
                if (position > 2) reorder(runtime, together, alone, order = intArrayOf(2, 0, 3, 3))
                val batched = runtime.stepAll(together, tokens, position)
                for (i in alone.indices) {
                    val result = runtime.step(alone[i], tokens[i], position)
                    alone[i] = result.state
                    assertArrayEquals(result.logits, batched[i], "row $i at position $position")
                }
            }
            val one = runtime.step(together[1], 3, 18) // a row of a batch stepped alone
            val same = runtime.step(alone[1], 3, 18)
            assertArrayEquals(same.logits, one.logits)
            together[1] = one.state
            alone[1] = same.state
            val replaced = together[0]
            runtime.stepAll(together, intArrayOf(1, 2, 3, 4), 19)
            assertThrows(IllegalStateException::class.java) { runtime.step(replaced, 1, 20) }
            (together.drop(1) + alone).forEach(runtime::drop)
            runtime.release(together[0])
        }
    }

    @Test
    @DisplayName("a batched step that fails leaves its states as they were")
    fun failedBatchedStepKeepsTheStates() {
        TestData.onnxRuntime(fixture).use { runtime ->
            val first = runtime.step(runtime.encode(source), runtime.specialIds.bos, 0).state
            val states = mutableListOf(first, runtime.fork(first))
            val before = states.toList()
            assertThrows(OrtException::class.java) { runtime.stepAll(states, intArrayOf(7, 1_000_000), 1) }
            assertEquals(before, states)
            val logits = runtime.stepAll(states, intArrayOf(7, 7), 1)
            assertArrayEquals(logits[0], logits[1])
            runtime.drop(states[1])
            runtime.release(states[0])
        }
    }

    /** Rows `order` of both lists (a fork for a row taken twice), the others dropped. */
    private fun reorder(runtime: OnnxRuntime, vararg lists: MutableList<DecoderState>, order: IntArray) {
        for (states in lists) {
            val taken = HashSet<Int>()
            val next = order.map { if (taken.add(it)) states[it] else runtime.fork(states[it]) }
            states.indices.filter { it !in taken }.forEach { runtime.drop(states[it]) }
            states.clear()
            states.addAll(next)
        }
    }

    @Test
    @DisplayName("a package of batch-1 graphs, or a graph of a numbered batch, is stepped a state at a time")
    fun batchOneGraphsAreNotBatched() {
        val manifest = JSONObject(File(TestData.exportFor(fixture), "manifest.json").readText())
        assertTrue(ExportManifest.parse(manifest).batchable)
        manifest.put("package", JSONObject(mapOf("batch_1" to true)))
        assertFalse(ExportManifest.parse(manifest).batchable)
        manifest.remove("package")
        val cache = manifest.getJSONObject("signatures").getJSONObject("decode_step").getJSONObject("inputs")
        for (name in cache.keySet().filter { it.startsWith("cache_") }) {
            cache.getJSONObject(name).getJSONArray("shape").put(0, 1)
        }
        assertFalse(ExportManifest.parse(manifest).batchable)
    }
}
