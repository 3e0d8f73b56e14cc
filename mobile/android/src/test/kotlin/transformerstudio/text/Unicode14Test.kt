package transformerstudio.text

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** The library's Unicode is Python 3.11's 14.0, not the JVM's (the fixtures hold the rest to Python's answers). */
class Unicode14Test {
    @Test
    fun `the table is the one written from Python's Unicode 14_0`() {
        val header = UnicodeTable::class.java.getResourceAsStream("/transformerstudio/text/unicode14.txt")!!
            .bufferedReader().use { it.readLine() }
        assertTrue(header.contains("unicodedata 14.0.0"), header)
    }

    @Test
    fun `characters new in Unicode 14 are assigned and later ones are not, whatever the JVM's Unicode`() {
        assertEquals("Lo", Unicode14.category(0x0870)) // ARABIC LETTER ALEF WITH ATTACHED FATHA: Unicode 14
        assertEquals("Cn", Unicode14.category(0x1FAE8)) // SHAKING FACE: Unicode 15
        assertEquals("Nd", Unicode14.category(0xFF13))
        assertEquals("Cs", Unicode14.category(0xD800))
    }

    @Test
    fun `Python's case mappings, digits and whitespace`() {
        assertEquals("ss", Unicode14.casefold("ß"))
        assertEquals("i\u0307", Unicode14.lower("İ"))
        assertEquals("SS", Unicode14.upper("ß"))
        assertEquals(3, Unicode14.digitValue(0xFF13))
        assertEquals(8, Unicode14.digitValue(0x1D7E0)) // MATHEMATICAL DOUBLE-STRUCK DIGIT EIGHT
        assertTrue(Unicode14.isSpace(0x85) && Unicode14.isSpace(0x1C))
        assertFalse(Unicode14.isSpace(0xFEFF))
    }
}
