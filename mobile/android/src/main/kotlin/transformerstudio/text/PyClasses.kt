package transformerstudio.text

/**
 * Python's Unicode `\w`, `\d` and `\s` (Unicode 14.0) as the contents of java.util.regex character classes, to
 * be written inside brackets: `"[$W]"`, `"[^$S<>]"`, `"(?<![$W.,])"`. Java's own `\w \d \s \b` are ASCII, and
 * its UNICODE_CHARACTER_CLASS follows the JVM's Unicode, not the app's.
 */
internal object PyClasses {
    /** `\w`: letters, numbers (L*, N*) and "_". */
    val W: String get() = Unicode14.wordClass

    /** `\d`: decimal digits (Nd). */
    val D: String get() = Unicode14.digitClass

    /** `\s`: str.isspace(). */
    val S: String get() = Unicode14.spaceClass
}
