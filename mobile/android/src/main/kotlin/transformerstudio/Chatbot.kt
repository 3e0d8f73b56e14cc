package transformerstudio

import transformerstudio.decode.CancellationToken
import transformerstudio.decode.DecodeHooks
import transformerstudio.decode.DecodeOptions
import transformerstudio.decode.Task
import java.io.File
import java.util.concurrent.CancellationException

/**
 * A Korean chatbot from an exported model package, replying as the app does (`studio chat`, its default greedy
 * decoding and loop guard):
 *
 * ```
 * Chatbot.open(File("model")).use { bot -> println(bot.reply("영화 볼래?")) }
 * ```
 *
 * Thread safety: as [Translator]'s: one instance may reply on several threads at once; calls block.
 */
class Chatbot private constructor(private val model: TextModel) : AutoCloseable {
    init {
        if (model.task != Task.CHATBOT) {
            model.close()
            throw ModelException("this package's model is a ${model.task.id}, not a chatbot: use Translator.open")
        }
    }

    /**
     * The reply to [text] (taken as one message).
     *
     * @param decoding instead of the chatbot's default (greedy); e.g. its sampling, `Task.CHATBOT.sampling`
     * @param onText hears the reply so far after each token (not with beam search, nor the loop guard's retry);
     *   the last call is the reply
     * @param cancellation cancel it from any thread: this call then throws java.util.concurrent.CancellationException
     * @throws InputException for empty input or input of only invisible characters, with the app's message
     */
    @JvmOverloads
    fun reply(
        text: String,
        decoding: DecodeOptions? = null,
        onText: ((String) -> Unit)? = null,
        cancellation: CancellationToken? = null,
    ): String {
        model.check(text)
        val options = (decoding ?: model.task.defaults).validate()
        val reply = model.generate(text, options, onText, DecodeHooks(cancellation = cancellation))
        if (cancellation?.isCancelled == true) throw CancellationException("reply cancelled")
        onText?.invoke(reply)
        return reply
    }

    override fun close() = model.close()

    companion object {
        /** The chatbot of a package folder; [ModelException] when it is not one or its files are damaged. */
        @JvmStatic
        @JvmOverloads
        fun open(folder: File, threads: Int = 1): Chatbot = open(ModelFiles.folder(folder), threads)

        /** The chatbot of a package's [files] (a folder, an Android app's assets). */
        @JvmStatic
        @JvmOverloads
        fun open(files: ModelFiles, threads: Int = 1): Chatbot = Chatbot(TextModel.open(files, threads))
    }
}
