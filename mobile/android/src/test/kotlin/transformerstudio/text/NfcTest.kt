package transformerstudio.text

import org.json.JSONArray
import org.json.JSONObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

class NfcTest {
    private val cases = JSONObject(Fixtures.resourceText("nfc-cases.json"))

    @Test
    fun `the fixture is Python's Unicode 14 answer`() {
        assertEquals("14.0.0", cases.getString("unicode"))
    }

    @Test
    fun `the NFC of every code point is Python's`() {
        val changed = HashMap<Int, String>()
        cases.getJSONArray("changed").forEach { changed[(it as JSONArray).getInt(0)] = it.getString(1) }
        val wrong = ArrayList<String>()
        for (code in 0..0x10FFFF) {
            val text = String(Character.toChars(code))
            val got = Nfc.normalize(text)
            if (got != (changed[code] ?: text)) wrong.add("U+%04X".format(code))
        }
        assertEquals(emptyList<String>(), wrong.take(50), "${wrong.size} code points differ")
    }

    @Test
    fun `the NFC of every tricky sequence is Python's`() {
        val pairs = (0 until cases.getJSONArray("sequences").length()).map { cases.getJSONArray("sequences").getJSONArray(it) }
        assertEquals(emptyList<Difference>(),
            differences(pairs, { it.getString(0) }, { Nfc.normalize(it.getString(0)) }, { it.getString(1) }))
    }
}
