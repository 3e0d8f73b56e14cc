package transformerstudio.decode

/** How the next token is chosen. */
enum class Strategy { GREEDY, BEAM, SAMPLE }

/**
 * The decoding settings a user chooses: studio/generate/options.py's DecodeOptions, with its defaults.
 *
 * @property beamSize beam search's hypotheses (beam size 1 is greedy, as in Python)
 * @property lengthPenalty beam search ranks finished outputs by log-probability / length^lengthPenalty
 *   (length counts `</s>`)
 * @property temperature sampling: the logits are divided by it
 * @property topK sampling: only the k most likely tokens (0: all; ties at the k-th stay)
 * @property topP sampling: only the most likely tokens whose probability reaches p (1: all)
 * @property seed sampling: the same seed gives the same samples (NumPy's generator: [NumpyRandom]); null: a
 *   new sample each time
 * @property maxNewTokens at most this many steps (`</s>` included); null: the model's cache capacity
 * @property noRepeatNgram n > 0: no n-gram may appear twice in the output
 * @property keepFigures for a task that keeps its source's figures (the translator): write no number the
 *   source lacks
 */
data class DecodeOptions @JvmOverloads constructor(
    val strategy: Strategy = Strategy.GREEDY,
    val beamSize: Int = 4,
    val lengthPenalty: Double = 1.0,
    val temperature: Double = 1.0,
    val topK: Int = 0,
    val topP: Double = 1.0,
    val seed: Long? = null,
    val maxNewTokens: Int? = null,
    val noRepeatNgram: Int = 0,
    val keepFigures: Boolean = true,
) {
    /** The checks of DecodeOptions.validate; throws IllegalArgumentException with Python's words. */
    fun validate(): DecodeOptions {
        require(beamSize >= 1) { "beam size must be at least 1" }
        require(temperature > 0) { "temperature must be positive" }
        require(topP > 0 && topP <= 1) { "top-p must be in (0, 1]" }
        require(topK >= 0 && noRepeatNgram >= 0) { "top-k and no-repeat-ngram size cannot be negative" }
        require(maxNewTokens == null || maxNewTokens >= 1) { "max new tokens must be at least 1" }
        require(lengthPenalty.isFinite() && lengthPenalty >= 0) {
            "the length penalty cannot be negative (0 ranks by log-probability alone)"
        }
        require(seed == null || seed >= 0) { "the seed must be a whole number, 0 or more" }
        return this
    }

    /** Whether partial outputs mean anything while decoding (not for beam search: its best changes). */
    val streamsTokens: Boolean get() = !(strategy == Strategy.BEAM && beamSize > 1)
}
