package transformerstudio.tokenizer

/**
 * SentencePiece's normalizer (src/normalizer.cc) on UTF-8 bytes: user-defined symbols are kept whole, everything
 * else goes through the model's precompiled rules (longest match) or is copied; runs of spaces become one, spaces
 * at both ends are dropped, a space is written as U+2581 and one is put before the text (or after it).
 */
internal class Normalizer(
    spec: NormalizerSpec,
    private val treatWhitespaceAsSuffix: Boolean = false,
    private val userSymbols: ByteTrie? = null,
) {
    private val charsMap = if (spec.precompiledCharsmap.isEmpty()) null else CharsMap.parse(spec.precompiledCharsmap)
    private val addDummyPrefix = spec.addDummyPrefix
    private val removeExtraWhitespaces = spec.removeExtraWhitespaces
    private val escapeWhitespaces = spec.escapeWhitespaces
    private val spaceMark = if (escapeWhitespaces) SPACE_MARK else byteArrayOf(SPACE)

    companion object {
        val SPACE_MARK = byteArrayOf(0xE2.toByte(), 0x96.toByte(), 0x81.toByte())  // U+2581 ▁
        const val SPACE: Byte = 0x20
        private const val USER_SYMBOL_MATCHES = 64  // PrefixMatcher's result buffer: longer matches are not seen
    }

    /** What one step of normalization makes of the text at a position: bytes [from, to) of [source]. */
    private class Step {
        var source = ByteArray(0)
        var from = 0
        var to = 0
        var consumed = 0

        fun isOneSpace() = to - from == 1 && source[from] == SPACE
    }

    fun normalize(input: ByteArray): ByteArray {
        val step = Step()
        var pos = 0
        if (removeExtraWhitespaces) {
            while (pos < input.size && normalizePrefix(input, pos, step).isOneSpace()) pos += step.consumed
        }
        if (pos == input.size) return ByteArray(0)
        val out = ByteBuilder(input.size * 3)
        if (!treatWhitespaceAsSuffix && addDummyPrefix) out.append(spaceMark)
        var isPrevSpace = removeExtraWhitespaces
        while (pos < input.size) {
            normalizePrefix(input, pos, step)
            var from = step.from
            while (isPrevSpace && from < step.to && step.source[from] == SPACE) from++
            if (from < step.to) {
                appendEscaped(out, step.source, from, step.to)
                isPrevSpace = step.source[step.to - 1] == SPACE
            }
            pos += step.consumed
            if (!removeExtraWhitespaces) isPrevSpace = false
        }
        if (removeExtraWhitespaces) {
            while (out.endsWith(spaceMark)) out.truncate(out.size - spaceMark.size)
        }
        if (treatWhitespaceAsSuffix && addDummyPrefix) out.append(spaceMark)
        return out.toByteArray()
    }

    private fun appendEscaped(out: ByteBuilder, source: ByteArray, from: Int, to: Int) {
        if (!escapeWhitespaces) return out.append(source, from, to)
        for (k in from until to) {
            if (source[k] == SPACE) out.append(SPACE_MARK) else out.append(source[k].toInt())
        }
    }

    /** One step (Normalizer::NormalizePrefix): a user symbol, else the longest rule, else one character as is. */
    private fun normalizePrefix(input: ByteArray, pos: Int, step: Step): Step {
        val symbol = userSymbols?.longestPrefix(input, pos, input.size, USER_SYMBOL_MATCHES) ?: 0
        if (symbol > 0) return step.set(input, pos, pos + symbol, symbol)
        val rule = charsMap?.longestMatch(input, pos, input.size) ?: -1L
        if (rule >= 0) {
            val start = rule.toInt()
            val replacements = charsMap!!.replacementBytes()
            return step.set(replacements, start, charsMap.replacementEnd(start), (rule ushr 32).toInt())
        }
        val length = Utf8.validCharLength(input, pos, input.size)
        // a malformed byte becomes U+FFFD, consuming that one byte
        return if (length == 0) step.set(Utf8.REPLACEMENT, 0, 3, 1) else step.set(input, pos, pos + length, length)
    }

    private fun Step.set(source: ByteArray, from: Int, to: Int, consumed: Int): Step {
        this.source = source
        this.from = from
        this.to = to
        this.consumed = consumed
        return this
    }
}
