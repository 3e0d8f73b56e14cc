package transformerstudio.text

import transformerstudio.text.ProtectPatterns.ANY_PLACEHOLDER
import transformerstudio.text.ProtectPatterns.AUTO_KINDS
import transformerstudio.text.ProtectPatterns.BRACKET_AFTER
import transformerstudio.text.ProtectPatterns.BRACKET_END
import transformerstudio.text.ProtectPatterns.GLUES

/**
 * Terms the translator must not mangle (protect.py's Protector): a user's [glossary] and, with [auto], URLs,
 * e-mail addresses, numbers with units, decimals, Korean amounts and prices, ranges, times of day, symbols, runs
 * of Latin script and Korean names followed by their original in brackets; [names]: foreign names a document
 * introduced with their original ([remembering]). Each matched span becomes a placeholder the model copies
 * ("Xq1"), and [Protected.restore] gives the output the span's English back. [pair]: the model's languages, which
 * kinds of span automatic protection passes through ([LanguagePair.protects]). Immutable, so thread-safe.
 */
class Protector(
    val glossary: Glossary = Glossary(),
    val auto: Boolean = true,
    val names: Glossary = Glossary(),
    val pair: LanguagePair = LanguagePair.KOREAN_ENGLISH,
) {
    /** Whether it does anything (Python's bool(protector)): without it, decode the plain way. */
    val enabled: Boolean get() = !glossary.isEmpty() || auto

    /** This protector for a model that translates [pair]: its automatic protection only of the kinds the pair calls
     * for (and without the remembered names where it calls for none). */
    fun forPair(pair: LanguagePair): Protector = if (pair == this.pair) this
    else Protector(glossary, auto, if (pair.protects("named")) names else Glossary(), pair)

    /** This protector, also giving each foreign name that [text] (a whole document) introduces with its original
     * in brackets ("도이체반(Deutsche Bahn)") that original wherever the name is written alone ("도이체반은 …"). Only
     * with automatic protection of names; the first introduction wins. */
    fun remembering(text: String): Protector = if (!(auto && pair.protects("named"))) this
    else Protector(glossary, auto, Protection.introducedNames(text).extended(names), pair)

    /** [source] with its protected spans replaced by placeholders; a source longer than
     * [Protection.MAX_PROTECTED_CHARS] code points as it is; for a Korean source, one mostly in another language
     * with its glossary only. */
    fun protect(source: String): Protected {
        if (PyStr.length(source) > Protection.MAX_PROTECTED_CHARS) return Protected(source)
        // not Korean: the app's language hint reads it as written
        if (auto && pair.koreanSource && Script.looksLikeAnotherLanguage(Protection.languageSample(source))) {
            return protect(source, false)
        }
        return protect(source, auto)
    }

    private class Hit(val start: Int, val end: Int, val kind: String, val english: String)

    private fun protect(source: String, auto: Boolean): Protected {
        val found = ArrayList<Hit>() // not overlapping
        // "Xq…" tokens already in the source (the user's, or a document format's markup) pass through as they are
        val tokens = ANY_PLACEHOLDER.findAll(source).map { it.start() to it.end() }
        val free = { start: Int, end: Int ->
            tokens.all { (s, e) -> end <= s || start >= e } && found.all { end <= it.start || start >= it.end }
        }
        if (!glossary.isEmpty()) {
            val englishOf = glossary.asMap()
            for (match in glossary.pattern.findAll(source)) {
                val term = match.group("term")!!
                val end = match.start() + term.length
                val bracket = BRACKET_AFTER.match(source, end) // "삼성전자(Samsung Electronics)": the English once
                val spanEnd = bracket?.end() ?: end
                if (free(match.start(), spanEnd)) found.add(Hit(match.start(), spanEnd, "glossary", englishOf.getValue(term)))
            }
        }
        if (auto) findAutomatic(source, free, found)
        return placeholders(source, found)
    }

    private fun findAutomatic(source: String, free: (Int, Int) -> Boolean, found: MutableList<Hit>) {
        if (pair.protects("named")) findNames(source, free, found)
        val kinds = AUTO_KINDS.filter(pair::protects)
        if (kinds.isEmpty()) return
        for (match in ProtectPatterns.auto(kinds).findAll(source)) {
            val kind = match.lastGroup!!
            val english = Protection.autoEnglish(kind, match.value)
            if (english.isNullOrEmpty() || !free(match.start(), match.end())) continue
            found.add(Hit(match.start(), match.end(), kind, english))
        }
    }

    private fun findNames(source: String, free: (Int, Int) -> Boolean, found: MutableList<Hit>) {
        val own = if ('(' in source) Protection.introducedNames(source) else Glossary()
        // the document's names when they have this sentence's already
        val known = names.asMap()
        val all = if (!own.isEmpty() && !own.entries.all { it.first in known }) own.extended(names) else names
        val originalOf = all.asMap()
        if (!all.isEmpty()) {
            for (match in all.pattern.findAll(source)) {
                val term = match.group("term")!!
                var end = match.start() + term.length
                // its bracket too when it holds this original ("도이체반(Deutsche Bahn)"); another ("(HRW)") stays
                val bracket = BRACKET_AFTER.match(source, end)
                if (bracket != null && Unicode14.casefold(PyStr.strip(bracket.value, " ()")) ==
                    Unicode14.casefold(originalOf.getValue(term)) && free(match.start(), bracket.end())) end = bracket.end()
                if (free(match.start(), end)) found.add(Hit(match.start(), end, "named", originalOf.getValue(term)))
            }
        }
        for ((start, end, english) in Protection.named(source)) {
            if (free(start, end)) found.add(Hit(start, end, "named", english))
        }
    }

    /** The source with each found span replaced by its placeholder (the same term twice shares one), a space put
     * where a placeholder would touch a Latin letter, a digit or another placeholder ("Xq15" would be read). */
    private fun placeholders(source: String, found: List<Hit>): Protected {
        val taken = Protected.placeholdersIn(source).toSet()
        var number = 0
        val spans = LinkedHashMap<Pair<String, String>, Span>()
        val pieces = ArrayList<String>()
        var position = 0
        for (f in found.sortedWith(compareBy({ it.start }, { it.end }))) {
            var original = source.substring(f.start, f.end)
            if (f.kind == "glossary" || f.kind == "named") original = BRACKET_END.sub(original, "")
            val span = spans.getOrPut(original to f.kind) {
                do number++ while (Unicode14.casefold(Protection.placeholder(number)) in taken)
                Span(Protection.placeholder(number), original, f.english, f.kind)
            }
            pieces.add(source.substring(position, f.start))
            if (GLUES.match(pieces.lastOrNull { it.isNotEmpty() }?.let(PyStr::lastChar) ?: "") != null) pieces.add(" ")
            pieces.add(span.placeholder)
            if (GLUES.match(source.substring(f.end, minOf(f.end + 1, source.length))) != null) pieces.add(" ")
            position = f.end
        }
        return Protected(pieces.joinToString("") + source.substring(position), spans.values.toList(), taken)
    }
}
