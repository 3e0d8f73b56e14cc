package transformerstudio.tokenizer

/**
 * A model's precompiled normalization rules (`NormalizerSpec.precompiled_charsmap`): a 4-byte little-endian size,
 * a darts-clone double-array trie of that many bytes whose keys are UTF-8 sequences, then the replacements, each
 * ending with a NUL byte; a key's value is where its replacement starts.
 */
internal class CharsMap private constructor(private val units: IntArray, private val replacements: ByteArray) {
    companion object {
        /** Darts-clone's result buffer in SentencePiece's normalizer: matches past the first 32 are not seen. */
        private const val MAX_MATCHES = 32

        /** The rules of [blob], checked as sentencepiece 0.2.3 checks them (Normalizer::Init). */
        fun parse(blob: ByteArray): CharsMap {
            fun broken(why: String): Nothing =
                throw SentencePieceModelException("the normalization rules (precompiled_charsmap) are broken: $why")
            if (blob.size <= 4) broken("they are ${blob.size} bytes")
            val trieSize = littleEndianInt(blob, 0).toLong() and 0xFFFFFFFFL
            if (trieSize >= blob.size - 4) broken("the trie is larger than the rules")
            if (trieSize < 1024 || trieSize % 1024 != 0L) broken("the trie's size is not a multiple of 1024")
            val units = IntArray((trieSize / 4).toInt()) { littleEndianInt(blob, 4 + 4 * it) }
            val replacements = blob.copyOfRange(4 + trieSize.toInt(), blob.size)
            if (replacements.last().toInt() != 0) broken("the replacements do not end with a NUL byte")
            if (!isValidTrie(units, replacements.size)) broken("the trie is invalid")
            return CharsMap(units, replacements)
        }

        /** Darts-clone's DoubleArray::validate: every offset stays inside the array, every value inside the rules. */
        private fun isValidTrie(units: IntArray, valueLimit: Int): Boolean {
            val root = units[0]
            if (label(root) != 0 || hasLeaf(root) || offset(root) == 0) return false
            if ((offset(root) or 0xFF) >= units.size) return false
            for (i in 1 until units.size) {
                val unit = units[i]
                if (label(unit) in 0..0xFF) {
                    if (((i xor offset(unit)) or 0xFF) >= units.size) return false
                    if (hasLeaf(unit) && label(units[i xor offset(unit)]) in 0..0xFF) return false
                } else if (value(unit) >= valueLimit) {
                    return false
                }
            }
            return true
        }

        private fun hasLeaf(unit: Int) = (unit ushr 8) and 1 == 1
        private fun value(unit: Int) = unit and 0x7FFFFFFF
        private fun label(unit: Int) = unit and (0x80000000.toInt() or 0xFF)  // negative for a leaf: never a byte
        private fun offset(unit: Int) = (unit ushr 10) shl ((unit and (1 shl 9)) ushr 6)

        private fun littleEndianInt(bytes: ByteArray, at: Int): Int =
            (0 until 4).fold(0) { value, k -> value or ((bytes[at + k].toInt() and 0xFF) shl (8 * k)) }
    }

    /**
     * The longest rule matching [text] at [pos] (before [end]), as `length shl 32 or replacementStart`, or -1 when
     * none does. Darts-clone's commonPrefixSearch, keeping the longest of the first [MAX_MATCHES] matches.
     */
    fun longestMatch(text: ByteArray, pos: Int, end: Int): Long {
        var found = -1L
        var matches = 0
        var node = offset(units[0])
        for (i in pos until end) {
            val label = text[i].toInt() and 0xFF
            node = node xor label
            val unit = units[node]  // validated: every offset stays inside the array
            if (label(unit) != label) break
            node = node xor offset(unit)
            if (hasLeaf(unit)) {
                if (matches++ < MAX_MATCHES) found = ((i + 1 - pos).toLong() shl 32) or value(units[node]).toLong()
            }
        }
        return found
    }

    /** Where the replacement starting at [start] ends (its NUL byte, or the end of the rules). */
    fun replacementEnd(start: Int): Int {
        var end = start
        while (end < replacements.size && replacements[end].toInt() != 0) end++
        return end
    }

    fun replacementBytes(): ByteArray = replacements
}
