package transformerstudio

import transformerstudio.decode.CancellationToken
import transformerstudio.decode.DecodeHooks
import transformerstudio.decode.DecodeOptions
import transformerstudio.text.Protected
import transformerstudio.text.Protector
import transformerstudio.text.Retry
import transformerstudio.text.Sentences
import java.util.concurrent.CancellationException

/**
 * One translation as studio/translation.py's `translate` makes it: the text's lines planned into pieces
 * (sentences, split further when too long; none for a line without the source language's text), each distinct
 * piece decoded once (through placeholders with a [protector], retried when the model dropped one), finished as a
 * sentence, and the pieces joined back per line; each step as the model's language pair calls for it. [onText]
 * hears the translation so far after each piece.
 */
internal class Translation(
    private val model: TextModel,
    private val protector: Protector?,
    private val options: DecodeOptions,
    private val onText: ((String) -> Unit)?,
    private val cancellation: CancellationToken?,
) {
    fun of(text: String): String {
        val plan = Sentences.planLines(text, model::countTokens, model.sourceLimit, model.pair)
        val remembering = protector?.remembering(text)
        val done = HashMap<String, String>() // a piece written again gets the same English
        val outputs = ArrayList<String>()
        for (piece in plan.flatten()) {
            stopIfCancelled(outputs.size, plan.sumOf { it.size })
            outputs += done.getOrPut(piece) { Sentences.finishSentence(piece, decoded(piece, remembering), model.pair) }
            onText?.invoke(Sentences.joinPieces(plan, outputs, text))
        }
        return Sentences.joinPieces(plan, outputs, text)
    }

    /** The model's output for one piece, its protected spans put back. */
    private fun decoded(piece: String, protector: Protector?): String {
        if (protector == null) return decode(piece)
        val shield: Protected = protector.protect(piece)
        val decoded = Retry.decodeProtected(shield) { source, _ -> decode(source) }
        return checkNotNull(decoded) { "a first pass always decodes" }.text
    }

    private fun decode(source: String): String {
        val text = model.generate(source, options, null, DecodeHooks(cancellation = cancellation))
        stopIfCancelled(-1, -1)
        return text
    }

    private fun stopIfCancelled(done: Int, total: Int) {
        if (cancellation?.isCancelled != true) return
        throw CancellationException(if (done < 0) "translation cancelled" else "translation cancelled after $done of $total pieces")
    }
}
