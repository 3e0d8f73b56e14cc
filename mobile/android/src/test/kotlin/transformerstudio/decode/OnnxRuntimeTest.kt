package transformerstudio.decode

import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import transformerstudio.runtime.ExportManifest
import transformerstudio.runtime.OnnxRuntime
import java.io.File

/** The ONNX runtime's contract on the chatbot's graphs: bytes or files, forks, freed states. */
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
}
