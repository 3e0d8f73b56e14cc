package transformerstudio.decode

import transformerstudio.text.Facts

/** Masks kept per vocabulary (studio.generate.figures.CACHED). */
const val FIGURE_MASKS_CACHED = 1024

/**
 * No invented figure: the port of studio/generate/figures.py (web/src/figures.js). A translation may write a
 * number only where its source has it: at every step the decode loop masks the pieces that would write another
 * one (a number in progress must be the beginning of one of the source's numbers, and may only end once it is
 * one of them). Numbers are compared as English may write them ([writtenForms]: "1500" or "1,500"); every
 * beginning the guard allows can be finished, so it never leaves the model without a token to write.
 *
 * Built once per target vocabulary from its pieces in id order (SentencePiece's `id_to_piece`).
 * Thread safety: safe to share between threads (its cache of masks is synchronized).
 */
class FigureGuard(pieces: List<String>) {
    /** What each piece writes ("▁" as a space; a byte piece as its ASCII character, or nothing). */
    private val texts: Array<String> = Array(pieces.size) { pieceText(pieces[it]) }

    /** Pieces that write a digit or only separators: checked against the source's numbers. */
    private val numberIds: IntArray

    /** Pieces (and `</s>`) that end a number in progress. */
    private val closingIds: IntArray

    private val masks = LinkedHashMap<String, IntArray>()

    init {
        val writesNumbers = texts.map { text ->
            hasDigit(text) || (text.isNotEmpty() && text.all { it in Facts.SEPARATORS })
        }
        numberIds = texts.indices.filter { writesNumbers[it] }.toIntArray()
        closingIds = texts.indices.filter { !writesNumbers[it] }.toIntArray()
    }

    /** The number the output ends in ("" when it ends in something else), read from its last pieces. */
    fun openNumber(history: List<Int>): String {
        val tail = StringBuilder()
        for (k in history.indices.reversed()) {
            val text = texts.getOrElse(history[k]) { "" }
            tail.insert(0, text)
            if (text.isEmpty() || !onlyNumberChars(text)) break
        }
        return Facts.OPEN_NUMBER.search(tail.toString())?.value ?: ""
    }

    /** Whether the output has each of `years` (the source's years, studio.text.facts.source_years). */
    fun wroteAll(history: List<Int>, years: Set<String>): Boolean {
        val text = history.joinToString("") { texts.getOrElse(it) { "" } }
        return years.all { text.contains(it) }
    }

    /** The token ids that would write a number the source (`numbers`) does not have, after `history`. */
    fun banned(history: List<Int>, numbers: Set<String>): IntArray {
        val open = openNumber(history)
        val key = numbers.sorted().joinToString(" ") + "|" + open
        synchronized(masks) {
            masks[key]?.let { return it }
        }
        val ids = compute(numbers, open)
        synchronized(masks) {
            if (masks.size >= FIGURE_MASKS_CACHED) masks.clear() // ever new sources: start again, not grow
            masks[key] = ids
        }
        return ids
    }

    private fun compute(numbers: Set<String>, open: String): IntArray {
        val forms = writtenForms(numbers)
        val prefixes = HashSet<String>()
        for (form in forms) {
            val points = form.codePoints().toArray()
            for (k in 1..points.size) prefixes += String(points, 0, k)
        }
        val banned = numberIds.filter { !fits(open + texts[it], forms, prefixes) }.toMutableList()
        if (open.isNotEmpty() && !closes(open, forms)) banned += closingIds.toList() // the number must go on
        return banned.toIntArray()
    }
}
