package transformerstudio.tokenizer

/**
 * The unigram model's segmentation (sentencepiece 0.2.3's `Model::EncodeOptimized`, src/unigram_model.cc): the
 * best-scoring split of the normalized UTF-8 bytes into vocabulary pieces, a character that no piece starts with
 * becoming one unknown piece.
 *
 * Scores are float sums, as in the C++: equally good splits ("0"+"00" and "00"+"0" of "000") are told apart by
 * float rounding and by which was found first, so the order of the search and the arithmetic are kept exactly,
 * including the C++'s rebasing of path scores once they pass ±100,000 (long lines).
 */
internal class UnigramModel(
    private val pieces: List<Piece>,
    trieKeys: List<ByteArray>,
    trieIds: IntArray,
    private val unkId: Int,
) {
    private val trie = ByteTrie.build(trieKeys, trieIds)
    private val unkScore: Float

    init {
        // C++ starts from FLT_MAX; NaN and infinite scores are refused when the model is loaded
        val minScore = pieces.filter { it.type == PieceType.NORMAL }.fold(Float.MAX_VALUE) { a, p -> minOf(a, p.score) }
        unkScore = minScore - UNK_PENALTY
    }

    companion object {
        private const val UNK_PENALTY = 10.0f
        private const val SCORE_RESET_THRESHOLD = 100000.0f
    }

    /** The pieces' ids and where each ends in the text: `ids[k]` covers `text[ends[k-1] until ends[k]]`. */
    class Segmentation(val ids: IntArray, val ends: IntArray)

    /** The best path ending at each byte position: its score, where its last piece starts (-1: none yet), its id. */
    private class Paths(size: Int) {
        val score = FloatArray(size + 1)
        val startsAt = IntArray(size + 1) { -1 }
        val id = IntArray(size + 1) { -1 }
        var frontier = 0  // the furthest position a path reaches so far

        fun offer(end: Int, candidate: Float, start: Int, pieceId: Int) {
            if (end > frontier) frontier = end
            if (startsAt[end] == -1 || candidate > score[end]) {
                score[end] = candidate; startsAt[end] = start; id[end] = pieceId
            }
        }

        /** Subtracts the score at [start] from every path from there on, as the C++ does past the threshold. */
        fun rebase(start: Int) {
            val offset = score[start]
            for (i in start..frontier) if (i == start || startsAt[i] != -1) score[i] -= offset
        }
    }

    fun segment(text: ByteArray): Segmentation {
        val paths = Paths(text.size)
        var start = 0
        while (start < text.size) {
            if (paths.score[start] < -SCORE_RESET_THRESHOLD || paths.score[start] > SCORE_RESET_THRESHOLD) {
                paths.rebase(start)
            }
            val charLength = minOf(Utf8.charLength(text[start]), text.size - start)
            if (!offerPieces(text, start, charLength, paths)) {
                paths.offer(start + charLength, unkScore + paths.score[start], start, unkId)
            }
            start += charLength
        }
        return backtrack(text.size, paths)
    }

    /** Offers every piece that starts at [start]; true when one of them is the single character there. */
    private fun offerPieces(text: ByteArray, start: Int, charLength: Int, paths: Paths): Boolean {
        val scoreHere = paths.score[start]
        var hasSingleChar = false
        var node = ByteTrie.ROOT
        var end = start
        while (end < text.size) {
            node = trie.child(node, text[end++])
            if (node == ByteTrie.NONE) break
            val id = trie.value(node)
            if (id == ByteTrie.NONE || pieces[id].type == PieceType.UNUSED) continue
            paths.offer(end, pieceScore(id, end - start) + scoreHere, start, id)
            if (end - start == charLength) hasSingleChar = true
        }
        return hasSingleChar
    }

    /** A user-defined symbol scores 0.1 per byte after its first, so that it always wins, the longest first. */
    private fun pieceScore(id: Int, length: Int): Float {
        val piece = pieces[id]
        return if (piece.type == PieceType.USER_DEFINED) (0.1 * (length - 1)).toFloat() else piece.score
    }

    private fun backtrack(size: Int, paths: Paths): Segmentation {
        var count = 0
        var end = size
        while (end > 0) { count++; end = paths.startsAt[end] }
        val ids = IntArray(count)
        val ends = IntArray(count)
        end = size
        for (k in count - 1 downTo 0) {
            ids[k] = paths.id[end]; ends[k] = end
            end = paths.startsAt[end]
        }
        return Segmentation(ids, ends)
    }
}
