package transformerstudio

import transformerstudio.decode.DecodeOptions

/**
 * How [Translator.translate] translates. The defaults are the app's (`studio translate`).
 *
 * @property glossary terms to translate your way, one `Korean = English` per line (`삼성 = Samsung`), as the
 *   app's glossary file; a malformed line throws [transformerstudio.text.GlossaryException]
 * @property protect protect numbers, Korean amounts, dates, times, URLs and Latin names (the app's default; for a
 *   model of another language pair than Korean->English, URLs and e-mail addresses only)
 * @property decoding the decoding to use instead of the translator's default (beam 4, length penalty 1.8)
 */
data class TranslateOptions @JvmOverloads constructor(
    val glossary: String = "",
    val protect: Boolean = true,
    val decoding: DecodeOptions? = null,
)
