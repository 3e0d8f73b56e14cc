package transformerstudio.decode

/** Why a decode stopped. */
enum class Stop {
    /** The output ended with `</s>` (beam search: some hypothesis did). */
    EOS,

    /** It reached its length limit. */
    LENGTH,

    /** It was cancelled (beam search: the best hypothesis so far is the output). */
    ABORTED,
}

/** A finished beam-search output and its length-normalized log-probability. */
data class ScoredOutput(val ids: List<Int>, val score: Double)

/**
 * Decode times, in milliseconds.
 *
 * @property firstTokenMs encoder + first decode step: the wait before the first token (beam search: encoder and
 *   the whole search, the wait before the output); null when no step ran
 * @property msPerToken the mean time of each later step (the first step's when there is only one); beam: of each
 *   later position, every live hypothesis stepped
 * @property steps decode positions run; [modelSteps]: states stepped (beam search: each live hypothesis at each
 *   position, in one model run per position where the runtime batches them)
 */
data class Timings(
    val encodeMs: Double,
    val firstTokenMs: Double?,
    val msPerToken: Double?,
    val totalMs: Double,
    val steps: Int,
    val modelSteps: Int,
)

/**
 * The output of one decode: the generated ids without `<s>`/`</s>`, why it stopped, its timings; beam search's
 * distinct finished outputs best first ([alternatives], empty otherwise); [retried] when the loop guard decoded
 * again with repeated bigrams banned (the app then warns [RETRIED]).
 */
data class Generation(
    val ids: List<Int>,
    val stop: Stop,
    val timings: Timings,
    val alternatives: List<ScoredOutput> = emptyList(),
    val retried: Boolean = false,
)

/**
 * A cancellation flag checked between decode steps: [cancel] from any thread stops the decode after the step in
 * progress (greedy and sampling keep the tokens so far; beam search answers with its best hypothesis so far).
 */
class CancellationToken {
    @Volatile
    var isCancelled: Boolean = false
        private set

    fun cancel() {
        isCancelled = true
    }
}

/**
 * Callbacks of a decode, run on the decoding thread.
 *
 * @property onToken after each generated token (not `</s>`) of greedy and sampling: the token and the output so
 *   far (streaming). Beam search does not stream (its best hypothesis changes until the end), nor does the loop
 *   guard's retry.
 * @property onStep after each decode position the search goes on from (greedy and sampling: after onToken).
 * @property cancellation checked before each step.
 */
class DecodeHooks(
    val onToken: ((token: Int, idsSoFar: List<Int>) -> Unit)? = null,
    val onStep: ((position: Int) -> Unit)? = null,
    val cancellation: CancellationToken? = null,
) {
    internal val cancelled: Boolean get() = cancellation?.isCancelled == true

    internal fun withoutStreaming() = DecodeHooks(null, onStep, cancellation)
}
