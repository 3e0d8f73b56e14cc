package transformerstudio.decode

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.DisplayName
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import transformerstudio.runtime.OnnxRuntime
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread

/** Streaming and cancellation on the chatbot's exported ONNX graphs, every decoder state freed. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamingAndCancellationTest {
    private val fixture = TestData.decodeFixture("chatbot")
    private lateinit var onnx: OnnxRuntime

    @BeforeAll
    fun open() {
        onnx = TestData.onnxRuntime(fixture)
    }

    @AfterAll
    fun close() {
        if (::onnx.isInitialized) onnx.close()
    }

    /** Fixture sources whose greedy reply has at least `tokens` tokens. */
    private fun sources(tokens: Int): List<IntArray> {
        val cases = fixture.getJSONArray("cases")
        return (0 until cases.length()).map { cases.getJSONObject(it) }
            .filter { it.getJSONArray("greedy_off").length() >= tokens }
            .map { TestData.ints(it.getJSONArray("source")).toIntArray() }
    }

    @Test
    @DisplayName("the streamed tokens are the final output's ids, each call with the output so far")
    fun streamingGivesTheFinalIds() {
        for (source in sources(5).take(6)) {
            val streamed = ArrayList<Int>()
            val result = generate(onnx, source, hooks = DecodeHooks(onToken = { token, soFar ->
                streamed += token
                assertEquals(streamed, soFar)
            }))
            assertEquals(result.ids, streamed)
            assertEquals(Stop.EOS, result.stop)
        }
    }

    @Test
    @DisplayName("a cancel during greedy decoding stops it before the next step, keeping the tokens so far")
    fun cancellingGreedyStopsWithinOneStep() {
        val runtime = CountingRuntime(onnx)
        val cancellation = CancellationToken()
        val hooks = DecodeHooks(onToken = { _, soFar -> if (soFar.size == 3) cancellation.cancel() },
            cancellation = cancellation)
        val result = generate(runtime, sources(6).first(), hooks = hooks)
        assertEquals(Stop.ABORTED, result.stop)
        assertEquals(3, result.ids.size)
        assertEquals(3, runtime.steps)
        assertTrue(runtime.live.isEmpty() && runtime.releases == 1, "every state freed, the encoder's once")
    }

    @Test
    @DisplayName("a cancel during beam search stops it before the next position, with the best hypothesis so far")
    fun cancellingBeamStopsWithinOneStep() {
        val runtime = CountingRuntime(onnx)
        val cancellation = CancellationToken()
        val positions = ArrayList<Int>()
        val hooks = DecodeHooks(onStep = { position ->
            positions += position
            if (position == 2) cancellation.cancel()
        }, cancellation = cancellation)
        val result = generate(runtime, sources(8).first(), DecodeOptions(strategy = Strategy.BEAM), hooks = hooks)
        assertEquals(Stop.ABORTED, result.stop)
        assertEquals(listOf(0, 1, 2), positions)
        assertEquals(3, result.timings.steps)
        assertEquals(3, runtime.stepAllCalls, "the live hypotheses stepped together, one call per position")
        assertTrue(result.ids.size <= 3)
        assertTrue(runtime.live.isEmpty() && runtime.releases == 1, "every state freed, the encoder's once")
    }

    @Test
    @DisplayName("a cancel from another thread stops the decode after the step in progress")
    fun cancellingFromAnotherThread() {
        val cancellation = CancellationToken()
        val firstToken = CountDownLatch(1)
        val cancelled = CountDownLatch(1)
        val canceller = thread {
            firstToken.await()
            cancellation.cancel()
            cancelled.countDown()
        }
        val hooks = DecodeHooks(onToken = { _, soFar ->
            if (soFar.size == 1) {
                firstToken.countDown()
                cancelled.await(10, TimeUnit.SECONDS)
            }
        }, cancellation = cancellation)
        val result = generate(onnx, sources(4).first(), hooks = hooks)
        canceller.join()
        assertEquals(Stop.ABORTED, result.stop)
        assertEquals(1, result.ids.size)
    }

    @Test
    @DisplayName("beam search with the loop guard's retry frees every state it made")
    fun beamSearchFreesEveryState() {
        val runtime = CountingRuntime(onnx)
        val options = DecodeOptions(strategy = Strategy.BEAM, noRepeatNgram = 0)
        for (source in sources(1).take(5)) generateUnlooped(runtime, source, options)
        assertTrue(runtime.live.isEmpty(), "${runtime.live.size} states not freed")
        assertEquals(runtime.encodes, runtime.releases)
    }
}
