package transformerstudio

import java.util.Locale

/**
 * How a chatbot's reply comes (studio/replies.py's modes): [RETRIEVE], the default, gives a stored reply — the
 * training answer of the question most like the message — and the model's own words when no training question is
 * alike (or the package has no stored replies); [GENERATE] has the model write every reply.
 */
enum class ReplyMode(val id: String) {
    RETRIEVE("retrieve"),
    GENERATE("generate"),
}

/**
 * A chatbot's reply and where it came from.
 *
 * @property stored whether it is a stored reply (the answer of the training question [question]), else the model's
 * @property match how alike the message and [question] are: their cosine, 0 to 1 (0 when the model wrote it)
 * @property row the stored reply's row in the package's index (-1 when the model wrote it)
 * @property note why the model wrote it when a stored reply was asked for ("" otherwise), in the app's words
 */
class Reply internal constructor(
    val text: String,
    val stored: Boolean,
    val match: Double,
    val question: String?,
    val row: Int,
    val note: String,
) {
    /** The line the app shows beside a reply: "stored reply · match 0.57 · answers “…”", or "written by the
     * model". */
    fun summary(): String =
        if (stored) String.format(Locale.ROOT, "stored reply · match %.2f · answers “%s”", match, question)
        else "written by the model"

    override fun toString(): String = "Reply(${summary()}: $text)"

    internal companion object {
        const val NONE_STORED = "No stored reply is like this message: the model wrote this one."
        const val NO_INDEX =
            "This chatbot has no stored replies (trained before they were kept): the model wrote this one."
    }
}
