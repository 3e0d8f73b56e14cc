package transformerstudio.tokenizer

/** A growable byte array: the normalized text and the decoded text are built as UTF-8, as SentencePiece does. */
internal class ByteBuilder(capacity: Int = 64) {
    private var bytes = ByteArray(maxOf(capacity, 16))
    var size = 0
        private set

    fun append(byte: Int) {
        if (size == bytes.size) bytes = bytes.copyOf(bytes.size * 2)
        bytes[size++] = byte.toByte()
    }

    fun append(source: ByteArray, from: Int = 0, to: Int = source.size) {
        val length = to - from
        if (size + length > bytes.size) bytes = bytes.copyOf(maxOf(bytes.size * 2, size + length))
        System.arraycopy(source, from, bytes, size, length)
        size += length
    }

    fun endsWith(suffix: ByteArray): Boolean {
        if (size < suffix.size) return false
        return suffix.indices.all { bytes[size - suffix.size + it] == suffix[it] }
    }

    fun truncate(newSize: Int) {
        size = newSize
    }

    fun toByteArray(): ByteArray = bytes.copyOf(size)

    fun isEmpty() = size == 0
}

internal object Utf8 {
    val REPLACEMENT = byteArrayOf(0xEF.toByte(), 0xBF.toByte(), 0xBD.toByte())

    /**
     * UTF-8 of [text], each lone surrogate spelled as U+FFFD: the app does that before SentencePiece sees a text
     * (`_encodable` in studio/text/tokenizers.py), where Java's own encoder would write '?'.
     */
    fun encode(text: String): ByteArray {
        val out = ByteBuilder(text.length * 3)
        var i = 0
        while (i < text.length) {
            val c = text[i]
            val code = when {
                Character.isHighSurrogate(c) && i + 1 < text.length && Character.isLowSurrogate(text[i + 1]) ->
                    Character.toCodePoint(c, text[++i])
                Character.isSurrogate(c) -> 0xFFFD
                else -> c.code
            }
            appendCodePoint(out, code)
            i++
        }
        return out.toByteArray()
    }

    private fun appendCodePoint(out: ByteBuilder, code: Int) {
        when {
            code < 0x80 -> out.append(code)
            code < 0x800 -> {
                out.append(0xC0 or (code shr 6)); out.append(0x80 or (code and 0x3F))
            }
            code < 0x10000 -> {
                out.append(0xE0 or (code shr 12)); out.append(0x80 or ((code shr 6) and 0x3F))
                out.append(0x80 or (code and 0x3F))
            }
            else -> {
                out.append(0xF0 or (code shr 18)); out.append(0x80 or ((code shr 12) and 0x3F))
                out.append(0x80 or ((code shr 6) and 0x3F)); out.append(0x80 or (code and 0x3F))
            }
        }
    }

    /** Bytes of the character starting with [lead], judged by the lead byte alone (SentencePiece's OneCharLen). */
    fun charLength(lead: Byte): Int = when ((lead.toInt() and 0xFF) shr 4) {
        0xC, 0xD -> 2
        0xE -> 3
        0xF -> 4
        else -> 1
    }

    /**
     * Length of the valid UTF-8 character at [pos], or 0 where it is not one (SentencePiece's IsValidDecodeUTF8:
     * no overlong forms, no surrogates, nothing above U+10FFFF).
     */
    fun validCharLength(bytes: ByteArray, pos: Int, end: Int): Int {
        val b0 = bytes[pos].toInt() and 0xFF
        if (b0 < 0x80) return 1
        val length = charLength(bytes[pos])
        if (length == 1 || pos + length > end || b0 >= 0xF8) return 0
        var code = b0 and (0xFF shr (length + 1))
        for (k in 1 until length) {
            val b = bytes[pos + k].toInt() and 0xFF
            if (b and 0xC0 != 0x80) return 0
            code = (code shl 6) or (b and 0x3F)
        }
        val shortest = when (length) { 2 -> 0x80; 3 -> 0x800; else -> 0x10000 }
        val valid = code >= shortest && code <= 0x10FFFF && (code < 0xD800 || code > 0xDFFF)
        return if (valid) length else 0
    }

    /**
     * [data] as UTF-8 with one U+FFFD for each maximal ill-formed subpart, as Python's `bytes.decode("utf-8",
     * "replace")` reads it (Java's decoder differs: one U+FFFD for a whole encoded surrogate), and the index of the
     * first byte not read (-1 when all were).
     */
    fun decodeReplacing(data: ByteArray): Pair<String, Int> {
        val out = StringBuilder(data.size)
        var firstBad = -1
        var i = 0
        while (i < data.size) {
            val lead = data[i].toInt() and 0xFF
            if (lead < 0x80) {
                out.append(lead.toChar())
                i++
                continue
            }
            val (length, low, high) = when (lead) {
                in 0xC2..0xDF -> Triple(2, 0x80, 0xBF)
                0xE0 -> Triple(3, 0xA0, 0xBF)
                0xED -> Triple(3, 0x80, 0x9F)
                in 0xE1..0xEF -> Triple(3, 0x80, 0xBF)
                0xF0 -> Triple(4, 0x90, 0xBF)
                in 0xF1..0xF3 -> Triple(4, 0x80, 0xBF)
                0xF4 -> Triple(4, 0x80, 0x8F)
                else -> Triple(1, 0, -1)
            }
            var taken = 1
            var code = if (length == 2) lead and 0x1F else if (length == 3) lead and 0x0F else lead and 0x07
            while (taken < length && i + taken < data.size) {
                val next = data[i + taken].toInt() and 0xFF
                val (from, to) = if (taken == 1) low to high else 0x80 to 0xBF
                if (next < from || next > to) break
                code = (code shl 6) or (next and 0x3F)
                taken++
            }
            if (length > 1 && taken == length) {
                out.appendCodePoint(code)
            } else {
                out.append('\uFFFD')
                if (firstBad < 0) firstBad = i
            }
            i += taken
        }
        return out.toString() to firstBad
    }
}
