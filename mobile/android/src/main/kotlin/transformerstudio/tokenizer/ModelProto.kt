package transformerstudio.tokenizer

/** A `.model` file this tokenizer cannot use: not a SentencePiece model, damaged, or of a kind it does not read. */
class SentencePieceModelException(message: String, cause: Throwable? = null) : IllegalArgumentException(message, cause)

/** The piece types of sentencepiece_model.proto (`ModelProto.SentencePiece.Type`), by their wire numbers. */
internal enum class PieceType(val wire: Int) {
    NORMAL(1), UNKNOWN(2), CONTROL(3), USER_DEFINED(4), UNUSED(5), BYTE(6);

    companion object {
        fun of(wire: Int): PieceType =
            entries.firstOrNull { it.wire == wire } ?: throw SentencePieceModelException("unknown piece type $wire")
    }
}

internal class Piece(val bytes: ByteArray, val score: Float, val type: PieceType) {
    val text = String(bytes, Charsets.UTF_8)
}

/** The fields of `TrainerSpec` that encoding and decoding read; defaults as in sentencepiece_model.proto. */
internal class TrainerSpec {
    var modelType = 1
    var byteFallback = false
    var treatWhitespaceAsSuffix = false
    var unkPiece = "<unk>"
    var bosPiece = "<s>"
    var eosPiece = "</s>"
    var padPiece = "<pad>"
    var unkSurface: ByteArray = " \u2047 ".toByteArray(Charsets.UTF_8)
}

internal class NormalizerSpec {
    var precompiledCharsmap = ByteArray(0)
    var addDummyPrefix = true
    var removeExtraWhitespaces = true
    var escapeWhitespaces = true
}

/** The parts of a serialized `sentencepiece.ModelProto` that encoding and decoding need. */
internal class ModelProto(
    val pieces: List<Piece>,
    val trainerSpec: TrainerSpec,
    val normalizerSpec: NormalizerSpec,
    val denormalizerSpec: NormalizerSpec?,
) {
    companion object {
        private val MODEL_TYPES = mapOf(1 to "UNIGRAM", 2 to "BPE", 3 to "WORD", 4 to "CHAR")

        fun parse(bytes: ByteArray): ModelProto {
            val pieces = ArrayList<Piece>()
            val trainer = TrainerSpec()
            val normalizer = NormalizerSpec()
            var denormalizer: NormalizerSpec? = null
            val reader = WireReader(bytes, 0, bytes.size)
            // a message field written twice is merged, as protobuf does
            reader.forEachField { field, wireType ->
                when (field to wireType) {
                    1 to WireReader.LENGTH -> pieces.add(readPiece(reader.message()))
                    2 to WireReader.LENGTH -> readTrainerSpec(reader.message(), trainer)
                    3 to WireReader.LENGTH -> readNormalizerSpec(reader.message(), normalizer)
                    5 to WireReader.LENGTH -> {
                        val spec = denormalizer ?: NormalizerSpec().also { denormalizer = it }
                        readNormalizerSpec(reader.message(), spec)
                    }
                    else -> reader.skip(wireType)
                }
            }
            if (pieces.isEmpty()) {
                throw SentencePieceModelException("not a SentencePiece model, or a damaged one: it has no pieces")
            }
            if (trainer.modelType != 1) {
                val name = MODEL_TYPES[trainer.modelType] ?: "type ${trainer.modelType}"
                throw SentencePieceModelException(
                    "this is a SentencePiece $name model; this tokenizer reads UNIGRAM models only " +
                        "(the model_type every Transformer Studio bundle is trained with)")
            }
            return ModelProto(pieces, trainer, normalizer, denormalizer)
        }

        private fun readPiece(reader: WireReader): Piece {
            var bytes = ByteArray(0)
            var score = 0f
            var type = PieceType.NORMAL
            reader.forEachField { field, wireType ->
                when (field to wireType) {
                    1 to WireReader.LENGTH -> bytes = reader.bytes()
                    2 to WireReader.FIXED32 -> score = Float.fromBits(reader.fixed32())
                    3 to WireReader.VARINT -> type = PieceType.of(reader.varint().toInt())
                    else -> reader.skip(wireType)
                }
            }
            return Piece(bytes, score, type)
        }

        private fun readTrainerSpec(reader: WireReader, spec: TrainerSpec) {
            reader.forEachField { field, wireType ->
                when (field to wireType) {
                    3 to WireReader.VARINT -> spec.modelType = reader.varint().toInt()
                    24 to WireReader.VARINT -> spec.treatWhitespaceAsSuffix = reader.varint() != 0L
                    35 to WireReader.VARINT -> spec.byteFallback = reader.varint() != 0L
                    44 to WireReader.LENGTH -> spec.unkSurface = reader.bytes()
                    45 to WireReader.LENGTH -> spec.unkPiece = reader.string()
                    46 to WireReader.LENGTH -> spec.bosPiece = reader.string()
                    47 to WireReader.LENGTH -> spec.eosPiece = reader.string()
                    48 to WireReader.LENGTH -> spec.padPiece = reader.string()
                    else -> reader.skip(wireType)
                }
            }
        }

        private fun readNormalizerSpec(reader: WireReader, spec: NormalizerSpec) {
            reader.forEachField { field, wireType ->
                when (field to wireType) {
                    2 to WireReader.LENGTH -> spec.precompiledCharsmap = reader.bytes()
                    3 to WireReader.VARINT -> spec.addDummyPrefix = reader.varint() != 0L
                    4 to WireReader.VARINT -> spec.removeExtraWhitespaces = reader.varint() != 0L
                    5 to WireReader.VARINT -> spec.escapeWhitespaces = reader.varint() != 0L
                    else -> reader.skip(wireType)
                }
            }
        }
    }
}

/** Protocol-buffer wire format, read by hand: varints, fixed 32/64-bit values and length-delimited fields. */
internal class WireReader(private val data: ByteArray, private var pos: Int, private val end: Int) {
    companion object {
        const val VARINT = 0
        const val FIXED64 = 1
        const val LENGTH = 2
        const val START_GROUP = 3
        const val FIXED32 = 5
    }

    fun forEachField(action: (field: Int, wireType: Int) -> Unit) {
        while (hasMore()) {
            val tag = varint()
            val field = (tag ushr 3).toInt()
            if (field == 0 || tag ushr 3 > Int.MAX_VALUE) corrupt("field number ${tag ushr 3}")
            action(field, (tag and 7).toInt())
        }
    }

    fun hasMore() = pos < end

    fun varint(): Long {
        var result = 0L
        var shift = 0
        while (shift < 64) {
            if (pos >= end) corrupt("it ends inside a number")
            val b = data[pos++].toInt()
            result = result or ((b and 0x7F).toLong() shl shift)
            if (b and 0x80 == 0) return result
            shift += 7
        }
        corrupt("a number is longer than 10 bytes")
    }

    fun fixed32(): Int {
        need(4)
        var value = 0
        for (k in 0 until 4) value = value or ((data[pos + k].toInt() and 0xFF) shl (8 * k))
        pos += 4
        return value
    }

    fun bytes(): ByteArray {
        val length = length()
        return data.copyOfRange(pos, pos + length).also { pos += length }
    }

    fun string(): String = String(bytes(), Charsets.UTF_8)

    fun message(): WireReader {
        val length = length()
        return WireReader(data, pos, pos + length).also { pos += length }
    }

    fun skip(wireType: Int) {
        when (wireType) {
            VARINT -> varint()
            FIXED64 -> { need(8); pos += 8 }
            LENGTH -> { val length = length(); pos += length }
            FIXED32 -> { need(4); pos += 4 }
            START_GROUP -> skipGroup()
            else -> corrupt("unexpected wire type $wireType")
        }
    }

    private fun skipGroup() {
        while (true) {
            if (!hasMore()) corrupt("a group is not closed")
            val tag = varint()
            if ((tag and 7).toInt() == 4) return
            skip((tag and 7).toInt())
        }
    }

    private fun length(): Int {
        val length = varint()
        if (length < 0 || length > end - pos) corrupt("a field of $length bytes runs past the end")
        return length.toInt()
    }

    private fun need(count: Int) {
        if (end - pos < count) corrupt("it ends inside a field")
    }

    private fun corrupt(why: String): Nothing =
        throw SentencePieceModelException("not a SentencePiece model, or a damaged one: $why (at byte $pos)")
}
