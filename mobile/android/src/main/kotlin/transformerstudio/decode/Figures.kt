package transformerstudio.decode

import transformerstudio.text.Facts
import transformerstudio.text.Unicode14

// The text side of the figure guard (studio/generate/figures.py). Digits, number runs and separators are
// studio/text/facts.py's, held in [Facts] with Unicode 14.0's `\d` (Python's), not the JVM's Unicode.

private val BYTE_PIECE = Regex("<0x([0-9A-Fa-f]{2})>")

internal fun hasDigit(text: String) = text.codePoints().anyMatch(Unicode14::isDigit)

internal fun onlyNumberChars(text: String) =
    text.codePoints().allMatch { Unicode14.isDigit(it) || it == ','.code || it == '.'.code }

/** What a piece writes: "▁" as a space; a byte piece as its character when ASCII, else nothing. */
internal fun pieceText(piece: String): String {
    val byte = BYTE_PIECE.matchEntire(piece) ?: return piece.replace('\u2581', ' ')
    val value = byte.groupValues[1].toInt(16)
    return if (value < 0x80) value.toChar().toString() else ""
}

/** How English may write each number: as it is, with thousands commas, without leading zeros ("09" -> "9"). */
fun writtenForms(numbers: Set<String>): Set<String> {
    val forms = HashSet<String>()
    for (number in numbers) {
        val dot = number.indexOf('.')
        val whole = if (dot < 0) number else number.substring(0, dot)
        val rest = if (dot < 0) "" else number.substring(dot) // "." and the fraction
        for (digits in setOf(whole, whole.trimStart('0').ifEmpty { "0" })) {
            forms += digits + rest
            if (digits.codePointCount(0, digits.length) > 3) forms += Facts.withCommas(digits) + rest
        }
    }
    return forms
}

private fun rstripSeparators(run: String) = run.trimEnd { it in Facts.SEPARATORS }

/** Whether a number written as `run` may end here: one of the source's (a separator after it is punctuation). */
internal fun closes(run: String, forms: Set<String>) = rstripSeparators(run) in forms

/** Whether a number written as `run` may still grow into one of the source's. */
internal fun goesOn(run: String, forms: Set<String>, prefixes: Set<String>) =
    run in prefixes || (run != rstripSeparators(run) && closes(run, forms))

/** Whether every number `text` writes is one of `forms`, the one it ends in at least the start of one. */
internal fun fits(text: String, forms: Set<String>, prefixes: Set<String>): Boolean =
    Facts.NUMBER_RUN.findAll(text).all { run ->
        if (run.end() == text.length) goesOn(run.value, forms, prefixes) else closes(run.value, forms)
    }
