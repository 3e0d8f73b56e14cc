package transformerstudio.decode

import kotlin.math.ceil

// The Python package's values (studio/generate/guards.py, web/src/generated/constants.js).

/** An output may have at most CAP_RATIO x its source's ids + [CAP_EXTRA] tokens (`</s>` included). */
const val CAP_RATIO = 1.5

/** See [CAP_RATIO]. */
const val CAP_EXTRA = 10

/** An n-gram this many times back to back is a loop (guards.REPEATS). */
const val LOOP_REPEATS = 3

/** The longest n-gram [isDegenerate] looks for. */
const val LOOP_MAX_N = 4

/** The retry of a looping output bans every repeated n-gram of this size (guards.RETRY_NO_REPEAT). */
const val RETRY_NO_REPEAT = 2

/** The warning a retried output carries (guards.RETRIED). */
const val RETRIED =
    "the first output repeated itself in a loop; decoded again with repeated $RETRY_NO_REPEAT-grams banned"

/**
 * The most tokens (`</s>` included) the app lets the output of a source of `sourceLength` ids (`</s>` included)
 * have (guards.length_cap): the translator's cap.
 */
fun lengthCap(sourceLength: Int): Int = ceil(CAP_RATIO * sourceLength).toInt() + CAP_EXTRA

/** Whether some n-gram (n <= maxN) occurs [LOOP_REPEATS] times back to back: "a a a", "a b a b a b". */
fun isDegenerate(ids: List<Int>, maxN: Int = LOOP_MAX_N): Boolean {
    for (n in 1..maxN) {
        var start = 0
        while (start + n * LOOP_REPEATS <= ids.size) {
            var repeated = true
            var i = n
            while (i < n * LOOP_REPEATS && repeated) {
                repeated = ids[start + i] == ids[start + (i % n)]
                i++
            }
            if (repeated) return true
            start++
        }
    }
    return false
}

/** The tokens that would complete an n-gram already in `history` (constraints.ban_repeated_ngrams). */
fun repeatedNgramEnds(history: List<Int>, n: Int): List<Int> {
    val banned = ArrayList<Int>()
    if (n <= 0 || history.size < n - 1) return banned
    val prefix = history.size - n + 1 // the last n - 1 tokens start here
    var i = 0
    while (i + n - 1 < history.size) {
        var same = true
        var j = 0
        while (j < n - 1 && same) {
            same = history[i + j] == history[prefix + j]
            j++
        }
        if (same) banned += history[i + n - 1]
        i++
    }
    return banned
}
