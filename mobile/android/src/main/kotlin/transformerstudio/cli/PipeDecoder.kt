package transformerstudio.cli

import java.nio.ByteBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.Charset

/**
 * The lines of a pipe as `studio chat` / `studio translate` read them (studio/text/encoding.py's PipeDecoder),
 * never refused: UTF-8; else Korean in CP949 (EUC-KR) when the line reads so, noted once for the pipe; else UTF-8 with
 * each maximal ill-formed subpart shown as one U+FFFD, as Python's "replace" does, and a note naming the line.
 */
internal class PipeDecoder(private val name: String) {
    private var koreanNoted = false

    /** (text, a note for the user or "") for line [number]'s bytes. */
    fun decode(data: ByteArray, number: Int): Pair<String, String> {
        val (text, firstBad) = utf8(data)
        if (firstBad < 0) return text to ""
        val korean = legacyKorean(data)
        if (korean != null) {
            val noted = koreanNoted
            koreanNoted = true
            return korean to if (noted) "" else "$name line $number: read as CP949 (EUC-KR), the legacy Korean " +
                "encoding (and so are the lines after it that are)"
        }
        val byte = "%02x".format(data[firstBad].toInt() and 0xFF)
        return text to "$name line $number: not valid UTF-8 (byte 0x$byte), nor Korean in CP949/EUC-KR: its " +
            "unreadable bytes became U+FFFD (\uFFFD)"
    }

    private fun legacyKorean(data: ByteArray): String? {
        val text = try {
            CP949.newDecoder().decode(ByteBuffer.wrap(data)).toString()
        } catch (error: CharacterCodingException) {
            return null
        }
        val wide = text.filter { it.code > 0x7F }
        return if (wide.isNotEmpty() && wide.count(::commonHangul) * 2 >= wide.length) text else null
    }

    /** One of the 2,350 syllables EUC-KR has. */
    private fun commonHangul(character: Char): Boolean =
        character in '\uAC00'..'\uD7A3' && EUC_KR.newEncoder().canEncode(character)

    companion object {
        private val CP949: Charset = Charset.forName("x-windows-949")
        private val EUC_KR: Charset = Charset.forName("EUC-KR")

        /** [data] as UTF-8 with U+FFFD for each maximal ill-formed subpart, and the first bad byte's index (-1). */
        fun utf8(data: ByteArray): Pair<String, Int> {
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
}
