package transformerstudio.runtime

/** Sources are padded to a multiple of this (studio/runtimes/graph_state.py SOURCE_STEP). */
const val SOURCE_STEP = 16

/** A growing cache grows by this many slots (graph_state.py CACHE_STEP). */
const val CACHE_STEP = 16

/**
 * The length a source of `tokens` ids is padded to: a multiple of [SOURCE_STEP], at most `limit`; exactly
 * `limit` for a graph of a fixed source length (graph_state.source_length).
 */
fun sourceLength(tokens: Int, limit: Int, fixed: Boolean = false): Int {
    if (fixed) return limit
    val rounded = (tokens + SOURCE_STEP - 1) / SOURCE_STEP * SOURCE_STEP
    return minOf(limit, maxOf(SOURCE_STEP, rounded))
}

/**
 * The cache slots a step at `position` needs: the cache grows [CACHE_STEP] slots at a time, never beyond
 * `limit` (graph_state.GraphState.with_capacity). The same shapes as Python's give the same sums, bit for bit.
 */
fun cacheSlots(position: Int, limit: Int): Int {
    val needed = position + 1
    return minOf(limit, (needed + CACHE_STEP - 1) / CACHE_STEP * CACHE_STEP)
}
