package transformerstudio.text

import transformerstudio.text.PyClasses.D
import transformerstudio.text.PyClasses.S
import java.math.BigDecimal
import java.math.MathContext
import java.math.RoundingMode

/**
 * Korean amounts written with the myriad scales (만 10^4, 억 10^8, 조 10^12) in English, a port of
 * studio/text/numbers.py (web/src/numbers.js): "30억 달러" -> "$3 billion", "3조 5천억 원" -> "3.5 trillion won",
 * "1만8500" -> "18,500". Term protection protects what [AMOUNT] matches and gives the output [amountInEnglish].
 *
 * Where Kotlin differs from Python: `\d` and `\s` are Unicode 14.0's ([PyClasses]); Decimal() reads any decimal
 * digit ("３０억"), so digits are read by their Unicode 14.0 value ([asciiDigits]); Python's Decimal computes with
 * 28 significant digits rounding half to even after each operation, which BigDecimal does with [CONTEXT]
 * (an amount can have 30 digits: "123456789012,345,678,901,234.123456만"); quantize's InvalidOperation (a
 * result of more than 28 digits) is checked by hand.
 */
object Numbers {
    private val CONTEXT = MathContext(28, RoundingMode.HALF_EVEN)
    private val NUM get() = "[$D]{1,12}(?:,[$D]{3}){0,4}(?:\\.[$D]{1,6})?" // "135", "3.5", "1,000"
    private val SUB get() = "[$D]{1,4}[$S]?[천백십]" // "5천", "3 백"
    private val SUBS get() = "$SUB(?:[$S]?$SUB)*(?:[$S]?[$D]{1,4}(?![$D]))?" // "3천5백", "2천 500"
    private val GROUP get() = "(?:$SUBS|$NUM)[$S]?[조억만](?!큼)" // "3천5백만", "135만"; not "3만큼"
    private val CURRENCY = linkedMapOf("달러" to ("$" to ""), "유로" to ("€" to ""), "파운드" to ("£" to ""),
        "불" to ("$" to ""), "원" to ("" to " won"), "엔" to ("" to " yen"), "위안" to ("" to " yuan"))
    private const val CURRENCY_WORD =
        "(?:달러|유로(?![존파])|파운드(?!리)|불(?=[을를이은는의에로도만]|[^가-힣]|$)|원|엔(?![진터지])|위안(?!부))"
    private val TAIL get() = "(?<=만)(?:[$D]{1,4}(?![$D.,]?[$D])|[$S]?$SUBS)" // "1만8500", "1만 2천"
    private val SCALED get() = "$GROUP(?:[$S]?$GROUP)*(?:$TAIL)?" +
        "(?![$D.,]?[$D]|[$S]?[천백십조억만]|(?<=[억조])[$S]?[$D])(?:[$S]?$CURRENCY_WORD)?"
    private const val AFTER_PRICE = "[을를이은는의에로으도만과와까씩짜어대쯤밖보며다였나면라]"
    private val PRICE get() = "$NUM(?![$D.,]?[$D])[$S]?(?:원(?=$AFTER_PRICE|[^가-힣]|$)" +
        "|(?!원)$CURRENCY_WORD(?=$AFTER_PRICE|[가정선미부인]|[^가-힣]|$))"

    /** The pattern of an amount (numbers.py's AMOUNT), for java.util.regex with [PyRegex]'s flags. */
    val AMOUNT: String by lazy { "(?<![제$D.,천백십조억만])(?<!제 )(?:$SCALED|$PRICE)" }
    private val PARTS by lazy { PyRegex("(?<value>$SUBS|$NUM)[$S]?(?<scale>[조억만])?") }
    private val SUB_PARTS by lazy { PyRegex("([$D]{1,4})[$S]?([천백십])") }
    private val DIGIT by lazy { PyRegex("[$D]") }
    private val MULTIPLIER = mapOf("십" to 10, "백" to 100, "천" to 1000)
    private val SCALE = mapOf("조" to BigDecimal.TEN.pow(12), "억" to BigDecimal.TEN.pow(8), "만" to BigDecimal.TEN.pow(4))
    private val NAMES = listOf(BigDecimal.TEN.pow(12) to "trillion", BigDecimal.TEN.pow(9) to "billion",
        BigDecimal.TEN.pow(6) to "million")

    /** [text] with every decimal digit written in ASCII ("３０" -> "30"), as Python's int() and Decimal() read it. */
    fun asciiDigits(text: String): String = DIGIT.sub(text) { Unicode14.digitValue(it.value.codePointAt(0)).toString() }

    /** The English of an amount [AMOUNT] matched, or null where it is not one amount: scales that do not fall from
     * left to right ("3만 2억"), or a trillion with nothing after it ("2조로", "250조") unless a currency says it is
     * money. */
    fun amountInEnglish(text: String): String? {
        val currency = CURRENCY.keys.firstOrNull { text.endsWith(it) }
        val number = PyStr.strip(if (currency != null) text.dropLast(currency.length) else text)
        var total = BigDecimal.ZERO
        val scales = ArrayList<String?>()
        for (part in PARTS.findAll(number)) {
            val scale = part.group("scale")
            if (scales.isNotEmpty() && scaleOf(scale) >= scaleOf(scales.last())) return null
            total = total.add(subMyriad(part.group("value")!!).multiply(scaleOf(scale), CONTEXT), CONTEXT)
            scales.add(scale)
        }
        if (scales == listOf("조") && currency == null) return null
        val (prefix, suffix) = if (currency != null) CURRENCY.getValue(currency) else ("" to "")
        val words = inWords(total) ?: return null
        return if (words.isEmpty()) null else "$prefix$words$suffix"
    }

    private fun scaleOf(scale: String?): BigDecimal = if (scale == null) BigDecimal.ONE else SCALE.getValue(scale)

    /** "3천5백" -> 3500, "2천 500" -> 2500, "135" -> 135, "1,000" -> 1000. */
    private fun subMyriad(value: String): BigDecimal {
        var total = BigDecimal.ZERO
        for (part in SUB_PARTS.findAll(value)) {
            val multiplier = BigDecimal(MULTIPLIER.getValue(part.group(2)!!))
            total = total.add(decimal(part.group(1)!!).multiply(multiplier, CONTEXT), CONTEXT)
        }
        val rest = PyStr.strip(SUB_PARTS.sub(value, "")).replace(",", "")
        return total.add(if (rest.isEmpty()) BigDecimal.ZERO else decimal(rest), CONTEXT)
    }

    /** Python's Decimal(text): exact, whatever its length. */
    private fun decimal(text: String) = BigDecimal(asciiDigits(PyStr.strip(text)))

    /** 12300000000000 -> "12.3 trillion", 110000000 -> "110 million", 18500 -> "18,500"; null where Python's
     * quantize raises InvalidOperation (more digits than a Decimal context holds). */
    private fun inWords(value: BigDecimal): String? {
        for ((scale, name) in NAMES) {
            if (value < scale) continue
            val quotient = value.divide(scale, CONTEXT)
            val cents = quotient.setScale(2, RoundingMode.HALF_EVEN)
            if (cents.unscaledValue().abs().toString().length > CONTEXT.precision) return null
            if (quotient.compareTo(cents) == 0) return "${plain(quotient)} $name"
            break
        }
        val text = plain(value)
        val grouped = Facts.withCommas(text.substringBefore('.'))
        return if ('.' in text) grouped + "." + text.substringAfter('.') else grouped
    }

    /** The value's digits without an exponent or trailing zeros after a point ("3.50" -> "3.5", "3E+1" -> "30"). */
    private fun plain(value: BigDecimal): String =
        if (value.signum() == 0) "0" else value.stripTrailingZeros().toPlainString()
}
