package transformerstudio

import transformerstudio.decode.CancellationToken
import transformerstudio.decode.DecodeHooks
import transformerstudio.decode.DecodeOptions
import transformerstudio.decode.Task
import transformerstudio.replies.Retrieval
import java.io.File
import java.util.concurrent.CancellationException

/**
 * A Korean chatbot from an exported model package, replying as the app does (`studio chat`): with a stored reply —
 * the training answer of the question most like the message, when the package has them (its manifest's `replies`)
 * — else with the model's words (its default greedy decoding and loop guard):
 *
 * ```
 * Chatbot.open(File("model")).use { bot -> println(bot.reply("영화 볼래?")) }
 * ```
 *
 * [ReplyMode.GENERATE] has the model write every reply; [replyWithSource] says where a reply came from.
 * Thread safety: as [Translator]'s: one instance may reply on several threads at once; calls block.
 */
class Chatbot private constructor(private val model: TextModel, private val replies: Retrieval?) : AutoCloseable {
    init {
        if (model.task != Task.CHATBOT) {
            model.close()
            throw ModelException("this package's model is a ${model.task.id}, not a chatbot: use Translator.open")
        }
    }

    /** Whether the package has stored replies (else every reply is the model's). */
    val hasStoredReplies: Boolean get() = replies != null

    /**
     * The reply to [text] (taken as one message).
     *
     * @param decoding instead of the chatbot's default (greedy); e.g. its sampling, `Task.CHATBOT.sampling`
     * @param onText hears the reply so far after each token (not with beam search, nor the loop guard's retry);
     *   the last call is the reply (a stored reply's only call)
     * @param cancellation cancel it from any thread: this call then throws java.util.concurrent.CancellationException
     * @param mode [ReplyMode.RETRIEVE] (a stored reply, the model's when none is alike) or [ReplyMode.GENERATE]
     * @throws InputException for empty input or input of only invisible characters, with the app's message
     */
    @JvmOverloads
    fun reply(
        text: String,
        decoding: DecodeOptions? = null,
        onText: ((String) -> Unit)? = null,
        cancellation: CancellationToken? = null,
        mode: ReplyMode = ReplyMode.RETRIEVE,
    ): String = replyWithSource(text, decoding, onText, cancellation, mode).text

    /** [reply] with where the reply came from: a stored reply (its match and question) or the model's words. */
    @JvmOverloads
    fun replyWithSource(
        text: String,
        decoding: DecodeOptions? = null,
        onText: ((String) -> Unit)? = null,
        cancellation: CancellationToken? = null,
        mode: ReplyMode = ReplyMode.RETRIEVE,
    ): Reply {
        model.check(text)
        if (mode == ReplyMode.RETRIEVE && replies != null) {
            val (row, match) = replies.best(text)
            if (row >= 0) {
                onText?.invoke(replies.answers[row])
                return Reply(replies.answers[row], true, match.toDouble(), replies.questions[row], row, "")
            }
        }
        val options = (decoding ?: model.task.defaults).validate()
        val reply = model.generate(text, options, onText, DecodeHooks(cancellation = cancellation))
        if (cancellation?.isCancelled == true) throw CancellationException("reply cancelled")
        onText?.invoke(reply)
        val note = when {
            mode == ReplyMode.GENERATE -> ""
            replies == null -> Reply.NO_INDEX
            else -> Reply.NONE_STORED
        }
        return Reply(reply, false, 0.0, null, -1, note)
    }

    override fun close() = model.close()

    companion object {
        /** The chatbot of a package folder; [ModelException] when it is not one or its files are damaged. */
        @JvmStatic
        @JvmOverloads
        fun open(folder: File, threads: Int = 1): Chatbot = open(ModelFiles.folder(folder), threads)

        /** The chatbot of a package's [files] (a folder, an Android app's assets), with its stored replies if any. */
        @JvmStatic
        @JvmOverloads
        fun open(files: ModelFiles, threads: Int = 1): Chatbot {
            val model = TextModel.open(files, threads)
            val replies = try {
                if (model.task == Task.CHATBOT) Retrieval.open(files) else null
            } catch (error: Throwable) {
                model.close()
                throw error
            }
            return Chatbot(model, replies)
        }
    }
}
