package transformerstudio.cli

import transformerstudio.tokenizer.Utf8
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
        val (text, firstBad) = Utf8.decodeReplacing(data)
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
        val euckr = EUC_KR.newEncoder() // one of the 2,350 syllables EUC-KR has: a common Hangul one
        val hangul = wide.count { it in '\uAC00'..'\uD7A3' && euckr.canEncode(it) }
        return if (wide.isNotEmpty() && hangul * 2 >= wide.length) text else null
    }

    companion object {
        private val CP949: Charset = Charset.forName("x-windows-949")
        private val EUC_KR: Charset = Charset.forName("EUC-KR")
    }
}
