package transformerstudio.text

import org.json.JSONObject
import transformerstudio.decode.Task

/**
 * What a translator translates from and into (a package config.json's `task.source_lang` and `task.target_lang`:
 * an imported model's are its own), and which steps of the translation path, written for the shipped models'
 * Korean->English, apply to it: studio/tasks.py's LanguagePair. Every step asks here; no code elsewhere compares
 * language codes.
 */
data class LanguagePair(val source: String = "ko", val target: String = "en") {
    /** Its input is Korean: a line without Hangul is kept as written, and automatic protection leaves an input
     * mostly in another script as written (the app's language hint reads it). */
    val koreanSource: Boolean get() = source == "ko"

    /** Korean written the English way: amounts, times, ranges and a date's month, names introduced with their
     * original in brackets, numbers, figures and Latin names passed through. */
    val koreanToEnglish: Boolean get() = koreanSource && target == "en"

    /** Its outputs are English: [Sentences.finishSentence]'s habits (capital first letter, final mark, a doubled
     * word written once) apply. */
    val englishTarget: Boolean get() = target == "en"

    /** What a line needs to be translated, as messages say it ("without Korean to translate"). */
    val sourceText: String get() = if (koreanSource) "Korean" else "letters"

    /** Whether [line] has something to translate: a Korean letter for a Korean source, else any letter (a line of
     * digits or symbols alone is kept as written). */
    fun hasText(line: String): Boolean =
        if (koreanSource) Script.hasHangul(line) else line.codePoints().anyMatch(Unicode14::isAlpha)

    /** Whether automatic term protection passes spans of [kind] ([ProtectPatterns.AUTO_KINDS], or "named") through
     * placeholders: every kind for Korean->English, addresses for the others. */
    fun protects(kind: String): Boolean = koreanToEnglish || kind in ANY_PAIR_KINDS

    companion object {
        private val ANY_PAIR_KINDS = setOf("url", "email")

        /** The shipped translator's. */
        @JvmField
        val KOREAN_ENGLISH = LanguagePair()

        /** The pair of a package config.json's `task` section (language_pair): a translator's own languages (the
         * shipped one's where it names none); a chatbot's Korean input is the shipped translator's. */
        @JvmStatic
        fun of(task: JSONObject): LanguagePair {
            if (!Task.named(task.optString("task").ifEmpty { null }).translates) return KOREAN_ENGLISH
            return LanguagePair(task.optString("source_lang").ifEmpty { KOREAN_ENGLISH.source },
                task.optString("target_lang").ifEmpty { KOREAN_ENGLISH.target })
        }
    }
}
