package transformerstudio.tokenizer

import java.io.File
import java.io.InputStream

/**
 * A SentencePiece unigram tokenizer in pure Kotlin: it reads a bundle's `tokenizer/shared.spm.model` and gives the
 * ids that Python's `sentencepiece` 0.2.3 gives (the version its tests' fixture was written with; 0.2.1 breaks
 * some ties between equally good splits differently), with the app's wrapper around it (studio/text/tokenizers.py,
 * `SentencePieceTokenizer`): a lone surrogate is read as U+FFFD, and [decode] stops at `</s>`, skips `<pad>`, `<s>`
 * and `<unk>` and leaves out byte pieces that do not form valid UTF-8.
 *
 * It normalizes with the model's own precompiled rules (so with the Unicode tables the model was trained with, not
 * the phone's), segments with the unigram model's Viterbi search and spells a character outside the vocabulary as
 * its UTF-8 byte pieces (`<0xNN>`) when the model has byte fallback.
 *
 * Thread safety: an instance is immutable once [load] returns; any number of threads may use it at once.
 */
class SentencePiece private constructor(private val model: ModelProto) {
    private val pieces = withNulPiecesUnused(model)
    private val normalIds = HashMap<String, Int>()  // NORMAL, USER_DEFINED and UNUSED pieces
    private val reservedIds = HashMap<String, Int>()  // CONTROL, UNKNOWN and BYTE pieces
    private val modelUnkId: Int = indexPieces()  // the UNKNOWN piece, or -1 (allowed with byte fallback)
    private val byteIds = IntArray(256) { pieceToId("<0x%02X>".format(it)) }
    private val pieceBytes = IntArray(pieces.size) {  // the byte each BYTE piece stands for (checked: <0xNN>)
        if (pieces[it].type == PieceType.BYTE) pieces[it].text.substring(3, 5).toInt(16) else -1
    }
    private val unigram: UnigramModel
    private val normalizer: Normalizer
    private val denormalizer: Normalizer?

    /** Ids of the special pieces as `sentencepiece` reports them (`unk_id()` ...), -1 where the model has none. */
    val unkId: Int = special(model.trainerSpec.unkPiece, "<unk>", PieceType.UNKNOWN)
    val bosId: Int = special(model.trainerSpec.bosPiece, "<s>", PieceType.CONTROL)
    val eosId: Int = special(model.trainerSpec.eosPiece, "</s>", PieceType.CONTROL)
    val padId: Int = special(model.trainerSpec.padPiece, "<pad>", PieceType.CONTROL)

    init {
        checkScores()
        val inTrie = normalIds.entries.sortedBy { it.value }
        if (inTrie.isEmpty()) throw SentencePieceModelException("the model has no pieces to segment text into")
        unigram = UnigramModel(pieces, inTrie.map { pieces[it.value].bytes }, inTrie.map { it.value }.toIntArray(),
            modelUnkId)
        val userSymbols = inTrie.filter { pieces[it.value].type == PieceType.USER_DEFINED }
        val symbolTrie = if (userSymbols.isEmpty()) null
        else ByteTrie.build(userSymbols.map { pieces[it.value].bytes }, userSymbols.map { it.value }.toIntArray())
        normalizer = Normalizer(model.normalizerSpec, model.trainerSpec.treatWhitespaceAsSuffix, symbolTrie)
        denormalizer = model.denormalizerSpec?.takeIf { it.precompiledCharsmap.isNotEmpty() }?.let { Normalizer(it) }
    }

    companion object {
        /** Reads a serialized `sentencepiece.ModelProto` (a `.model` file); throws [SentencePieceModelException]. */
        @JvmStatic
        fun load(bytes: ByteArray): SentencePiece = SentencePiece(ModelProto.parse(bytes))

        @JvmStatic
        fun load(stream: InputStream): SentencePiece = load(stream.readBytes())

        @JvmStatic
        fun load(file: File): SentencePiece = load(file.readBytes())

        private val BYTE_PIECE = Regex("<0x([0-9A-F]{2})>")
        private const val MAX_PIECE_BYTES = 8000

        /** With byte fallback, a piece "\u0000" (which conversion scripts add) is read as UNUSED, as 0.2.3 does. */
        private fun withNulPiecesUnused(model: ModelProto): List<Piece> = model.pieces.map {
            val nul = model.trainerSpec.byteFallback && it.text == "\u0000"
            if (nul) Piece(it.bytes, it.score, PieceType.UNUSED) else it
        }
    }

    /** The number of pieces, ids 0 until [vocabSize]. */
    val vocabSize: Int get() = pieces.size

    fun idToPiece(id: Int): String = pieces[checkId(id)].text

    /** The id of [piece], or the unknown piece's id (-1 if the model has none) when the vocabulary lacks it. */
    fun pieceToId(piece: String): Int = reservedIds[piece] ?: normalIds[piece] ?: modelUnkId

    /** The ids of [text], as `SentencePieceTokenizer.encode` gives them (no `<s>` or `</s>` added). */
    fun encode(text: String): IntArray {
        val normalized = normalizer.normalize(Utf8.encode(text))
        if (normalized.isEmpty()) return IntArray(0)
        val segmentation = unigram.segment(normalized)
        val ids = IntArrayBuilder(segmentation.ids.size + 8)
        var start = 0
        var previousWasUnknown = false
        for (k in segmentation.ids.indices) {
            val id = segmentation.ids[k]
            val unknown = isUnknown(id)
            when {
                // an unknown character spelled as its UTF-8 bytes
                unknown && model.trainerSpec.byteFallback ->
                    for (b in start until segmentation.ends[k]) ids.add(byteIds[normalized[b].toInt() and 0xFF])
                unknown && previousWasUnknown -> Unit  // a run of unknown characters is one unknown piece
                else -> ids.add(id)
            }
            previousWasUnknown = unknown
            start = segmentation.ends[k]
        }
        return ids.toIntArray()
    }

    /**
     * The text of [ids] as the app shows it (`SentencePieceTokenizer.decode`): up to the first `</s>`, without
     * `<pad>`, `<s>` and `<unk>`, byte pieces assembled into UTF-8, and every U+FFFD (a byte piece that does not
     * form UTF-8 decodes as one) left out.
     * Throws [IllegalArgumentException] for an id outside the vocabulary.
     */
    fun decode(ids: IntArray): String {
        val kept = IntArrayBuilder(ids.size)
        for (id in ids) {
            if (id == eosId) break
            if (id != padId && id != bosId && id != unkId) kept.add(checkId(id))
        }
        return decodeLikeSentencePiece(kept.toIntArray()).replace("\uFFFD", "")
    }

    /** sentencepiece 0.2.3's `DecodeOptimized` (src/sentencepiece_processor.cc) on ids, as a String. */
    private fun decodeLikeSentencePiece(ids: IntArray): String {
        val text = ByteBuilder(ids.size * 4)
        val byteRun = ByteBuilder()
        var atStart = true  // no visible text yet: the first piece's leading space mark is dropped
        for (id in ids) {
            val piece = pieces[id]
            if (piece.type == PieceType.BYTE) {
                byteRun.append(pieceBytes[id])
                continue
            }
            appendUtf8(text, byteRun)
            if (!text.isEmpty()) atStart = false
            if (piece.type == PieceType.CONTROL) continue
            val droppedStartSpace = if (isUnknown(id)) {
                text.append(model.trainerSpec.unkSurface)
                false
            } else {
                appendPiece(text, piece.bytes, atStart)
            }
            // with extra whitespace removed, every leading space mark goes, so the next piece is still at the start
            if ((droppedStartSpace && !model.normalizerSpec.removeExtraWhitespaces) || !text.isEmpty()) atStart = false
        }
        appendUtf8(text, byteRun)
        val bytes = denormalizer?.normalize(text.toByteArray()) ?: text.toByteArray()
        return String(bytes, Charsets.UTF_8)
    }

    /** Appends a piece with each U+2581 as a space, its first one dropped [atStart]; true when it was dropped. */
    private fun appendPiece(text: ByteBuilder, bytes: ByteArray, atStart: Boolean): Boolean {
        val spec = model.normalizerSpec
        val mark = Normalizer.SPACE_MARK
        val dropStart = atStart && (spec.addDummyPrefix || spec.removeExtraWhitespaces) && isSpaceMark(bytes, 0)
        var k = if (dropStart) mark.size else 0
        while (k < bytes.size) {
            if (isSpaceMark(bytes, k)) {
                text.append(Normalizer.SPACE.toInt()); k += mark.size
            } else {
                text.append(bytes[k++].toInt())
            }
        }
        return dropStart
    }

    private fun isSpaceMark(bytes: ByteArray, at: Int): Boolean {
        val mark = Normalizer.SPACE_MARK
        return at + mark.size <= bytes.size && mark.indices.all { bytes[at + it] == mark[it] }
    }

    /** Appends the queued byte pieces as UTF-8, each byte that does not start a valid character as U+FFFD. */
    private fun appendUtf8(text: ByteBuilder, byteRun: ByteBuilder) {
        if (byteRun.isEmpty()) return
        val bytes = byteRun.toByteArray()
        byteRun.truncate(0)
        var pos = 0
        while (pos < bytes.size) {
            val length = Utf8.validCharLength(bytes, pos, bytes.size)
            if (length == 0) {
                text.append(Utf8.REPLACEMENT); pos++
            } else {
                text.append(bytes, pos, pos + length); pos += length
            }
        }
    }

    private fun isUnknown(id: Int) = id == unkId || (id in pieces.indices && pieces[id].type == PieceType.UNKNOWN)

    private fun checkId(id: Int): Int {
        require(id in pieces.indices) { "piece id $id is out of range: the vocabulary has ids 0 to ${pieces.size - 1}" }
        return id
    }

    /** `sentencepiece`'s special id: the piece named in the trainer spec (or its default), if it has [type]. */
    private fun special(named: String, default: String, type: PieceType): Int {
        val id = pieceToId(named.ifEmpty { default })
        return if (id >= 0 && pieces[id].type == type) id else -1
    }

    /** Checks and indexes the pieces as ModelInterface::InitializePieces does; returns the unknown piece's id. */
    private fun indexPieces(): Int {
        var unknown = -1
        val bytesFound = BooleanArray(256)
        for ((id, piece) in pieces.withIndex()) {
            checkPiece(id, piece)
            if (piece.text == "\u0000" && piece.type == PieceType.UNUSED) continue
            val normal = piece.type == PieceType.NORMAL || piece.type == PieceType.USER_DEFINED ||
                piece.type == PieceType.UNUSED
            if ((if (normal) normalIds else reservedIds).putIfAbsent(piece.text, id) != null) {
                throw SentencePieceModelException("piece ${piece.text} is defined twice")
            }
            if (piece.type == PieceType.UNKNOWN) {
                if (unknown >= 0) throw SentencePieceModelException("the model defines more than one unknown piece")
                unknown = id
            }
            if (piece.type == PieceType.BYTE) bytesFound[checkBytePiece(piece)] = true
        }
        if (unknown == -1 && !model.trainerSpec.byteFallback) {
            throw SentencePieceModelException("the model has no unknown piece (<unk>)")
        }
        if (model.trainerSpec.byteFallback && !bytesFound.all { it }) {
            throw SentencePieceModelException("the model has byte fallback but not all 256 byte pieces")
        }
        return unknown
    }

    private fun checkPiece(id: Int, piece: Piece) {
        if (piece.bytes.size >= MAX_PIECE_BYTES) throw SentencePieceModelException("piece $id is too long")
        if (piece.bytes.isEmpty()) throw SentencePieceModelException("piece $id is empty")
        if (piece.text != "\u0000" && piece.text.contains('\u0000') ||
            piece.text == "\u0000" && piece.type != PieceType.UNUSED) {
            throw SentencePieceModelException("piece $id contains a NUL character")
        }
    }

    private fun checkBytePiece(piece: Piece): Int {
        if (!model.trainerSpec.byteFallback) {
            throw SentencePieceModelException("byte piece ${piece.text} is found although byte_fallback is false")
        }
        val match = BYTE_PIECE.matchEntire(piece.text)
            ?: throw SentencePieceModelException("byte piece ${piece.text} is invalid")
        return match.groupValues[1].toInt(16)
    }

    private fun checkScores() {
        if (pieces.any { it.score.isNaN() || it.score.isInfinite() }) {
            throw SentencePieceModelException("a piece's score is NaN or infinite")
        }
    }
}

/** A growable int array, so that encoding does not box its ids. */
internal class IntArrayBuilder(capacity: Int) {
    private var values = IntArray(maxOf(capacity, 8))
    private var size = 0

    fun add(value: Int) {
        if (size == values.size) values = values.copyOf(size * 2)
        values[size++] = value
    }

    fun toIntArray(): IntArray = values.copyOf(size)
}
