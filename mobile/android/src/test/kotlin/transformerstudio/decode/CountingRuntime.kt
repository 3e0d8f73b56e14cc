package transformerstudio.decode

import transformerstudio.runtime.DecoderState
import transformerstudio.runtime.Runtime
import transformerstudio.runtime.StepResult
import java.util.Collections
import java.util.IdentityHashMap

/** A runtime around another that counts its calls and the states not freed yet (`live`); [steps] counts states. */
class CountingRuntime(private val inner: Runtime) : Runtime by inner {
    val live: MutableSet<DecoderState> = Collections.newSetFromMap(IdentityHashMap())
    var encodes = 0
    var steps = 0
    var stepAllCalls = 0
    var releases = 0

    override fun encode(sourceIds: IntArray): DecoderState = inner.encode(sourceIds).also {
        live += it
        encodes++
    }

    override fun step(state: DecoderState, token: Int, position: Int): StepResult {
        check(state in live) { "a freed or replaced state was stepped" }
        val result = inner.step(state, token, position)
        steps++
        live -= state
        live += result.state
        return result
    }

    override fun stepAll(states: MutableList<DecoderState>, tokens: IntArray, position: Int): List<FloatArray> {
        check(states.all { it in live }) { "a freed or replaced state was stepped" }
        val before = states.toList()
        try {
            return inner.stepAll(states, tokens, position).also {
                steps += states.size
                stepAllCalls++
            }
        } finally {
            for ((old, new) in before.zip(states)) {
                if (old === new) continue
                live -= old
                live += new
            }
        }
    }

    override fun fork(state: DecoderState): DecoderState = inner.fork(state).also { live += it }

    override fun drop(state: DecoderState) {
        check(live.remove(state)) { "a freed state was dropped" }
        inner.drop(state)
    }

    override fun release(state: DecoderState) {
        check(live.remove(state)) { "a freed state was released" }
        releases++
        inner.release(state)
    }
}
