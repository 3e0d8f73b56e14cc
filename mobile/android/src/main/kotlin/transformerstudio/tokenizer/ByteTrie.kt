package transformerstudio.tokenizer

/**
 * A trie over UTF-8 bytes with an int value per key, for the vocabulary and the user-defined symbols. A node's
 * children are consecutive nodes, sorted by the byte that leads to each ([labels]); built once, then read-only.
 */
internal class ByteTrie private constructor(
    private val firstChild: IntArray,
    private val childCount: IntArray,
    private val labels: ByteArray,
    private val values: IntArray,
) {
    companion object {
        const val ROOT = 0
        const val NONE = -1

        /** A trie of [keys] (distinct, non-empty) with [values][i] for keys[i]. */
        fun build(keys: List<ByteArray>, values: IntArray): ByteTrie {
            val order = keys.indices.sortedWith { a, b -> compareUnsigned(keys[a], keys[b]) }
            return Builder(order.map { keys[it] }, order.map { values[it] }.toIntArray()).build()
        }

        private fun compareUnsigned(a: ByteArray, b: ByteArray): Int {
            for (k in 0 until minOf(a.size, b.size)) {
                val diff = (a[k].toInt() and 0xFF) - (b[k].toInt() and 0xFF)
                if (diff != 0) return diff
            }
            return a.size - b.size
        }
    }

    /** The node reached from [node] by [byte], or [NONE]. */
    fun child(node: Int, byte: Byte): Int {
        var low = firstChild[node]
        var high = low + childCount[node] - 1
        while (low <= high) {
            val mid = (low + high) ushr 1
            val diff = (labels[mid].toInt() and 0xFF) - (byte.toInt() and 0xFF)
            when {
                diff < 0 -> low = mid + 1
                diff > 0 -> high = mid - 1
                else -> return mid
            }
        }
        return NONE
    }

    /** The value of the key ending at [node], or [NONE]. */
    fun value(node: Int): Int = values[node]

    /** Bytes of the longest key among the first [maxMatches] keys that [text] starts with at [pos], or 0. */
    fun longestPrefix(text: ByteArray, pos: Int, end: Int, maxMatches: Int = Int.MAX_VALUE): Int {
        var node = ROOT
        var longest = 0
        var matches = 0
        for (i in pos until end) {
            node = child(node, text[i])
            if (node == NONE) break
            if (values[node] != NONE && matches++ < maxMatches) longest = i + 1 - pos
        }
        return longest
    }

    /** Numbers a node's children consecutively; a work list, not recursion, since a piece may be 8,000 bytes long. */
    private class Builder(private val keys: List<ByteArray>, private val keyValues: IntArray) {
        private val capacity = keys.sumOf { it.size } + 1
        private val firstChild = IntArray(capacity)
        private val childCount = IntArray(capacity)
        private val labels = ByteArray(capacity)
        private val values = IntArray(capacity) { NONE }
        private var nodes = 1

        /** The sorted keys[from until to] share their first [depth] bytes, the path to [node]. */
        private class Span(val from: Int, val to: Int, val depth: Int, val node: Int)

        fun build(): ByteTrie {
            val work = ArrayDeque(listOf(Span(0, keys.size, 0, ROOT)))
            while (work.isNotEmpty()) work.addAll(addChildren(work.removeLast()))
            return ByteTrie(
                firstChild.copyOf(nodes), childCount.copyOf(nodes), labels.copyOf(nodes), values.copyOf(nodes))
        }

        private fun addChildren(span: Span): List<Span> {
            var start = span.from
            if (start < span.to && keys[start].size == span.depth) values[span.node] = keyValues[start++]
            val children = ArrayList<Span>()
            firstChild[span.node] = nodes
            var i = start
            while (i < span.to) {
                var j = i + 1
                while (j < span.to && keys[j][span.depth] == keys[i][span.depth]) j++
                labels[nodes] = keys[i][span.depth]
                children.add(Span(i, j, span.depth + 1, nodes++))
                i = j
            }
            childCount[span.node] = children.size
            return children
        }
    }
}
