package transformerstudio

import transformerstudio.decode.CancellationToken
import transformerstudio.decode.Task
import transformerstudio.text.Glossary
import transformerstudio.text.Protector
import transformerstudio.text.Sentences
import java.io.File

/**
 * A translator from an exported model package, giving what the app gives (`studio translate`):
 *
 * ```
 * Translator.open(File("model")).use { translator ->
 *     println(translator.translate("삼성전자는 3조 5천억 원을 투자했다."))
 * }
 * ```
 *
 * Lines in, lines out: each line of the text is translated sentence by sentence (a long sentence in pieces that fit
 * the model), with the app's default decoding (beam search), term protection and decode guards; a line without
 * Korean is kept as written, an empty line stays empty. The Korean->English steps (lines kept without Korean,
 * amounts, dates and names protected, English sentence finishing) apply as the package's language pair calls for
 * them ([transformerstudio.text.LanguagePair], from config.json's `task`): for an imported en->de model a line is
 * kept only without letters, only URLs, e-mail addresses and the glossary are protected, and outputs are not
 * finished as English.
 *
 * Thread safety: one instance may translate on several threads at once (the ONNX runtime runs concurrent
 * decodes; the LiteRT runtime serializes its steps). Calls block: make them off Android's main thread.
 * [close] frees the model; no call may be running or made after it.
 */
class Translator private constructor(private val model: TextModel) : AutoCloseable {
    init {
        if (model.task != Task.TRANSLATOR) {
            model.close()
            throw ModelException("this package's model is a ${model.task.id}, not a translator: use Chatbot.open")
        }
    }

    /**
     * The translation of [text], one output line per input line.
     *
     * @param onText hears the translation so far after each sentence (each a prefix of the next and of the result)
     * @param cancellation cancel it from any thread: the decode stops within a step and this call throws
     *   java.util.concurrent.CancellationException
     * @throws InputException for empty input or input of only invisible characters, with the app's message
     */
    @JvmOverloads
    fun translate(
        text: String,
        options: TranslateOptions = TranslateOptions(),
        onText: ((String) -> Unit)? = null,
        cancellation: CancellationToken? = null,
    ): String {
        model.check(text)
        val glossary = if (options.glossary.isBlank()) Glossary() else Glossary.parse(options.glossary)
        val protector = Protector(glossary, options.protect, pair = model.pair).takeIf { it.enabled }
        val decoding = (options.decoding ?: model.task.defaults).validate()
        return Translation(model, protector, decoding, onText, cancellation).of(text)
    }

    /** What the app says of the lines of [text] it keeps as written, having none of the model's source language to
     * translate (`studio translate`'s warning, for an app to show beside the translation), or null. */
    fun keptAsWritten(text: String): String? = Sentences.keptWarning(text, model.pair)

    override fun close() = model.close()

    companion object {
        /** The translator of a package folder; [ModelException] when it is not one or its files are damaged. */
        @JvmStatic
        @JvmOverloads
        fun open(folder: File, threads: Int = 1): Translator = open(ModelFiles.folder(folder), threads)

        /** The translator of a package's [files] (a folder, an Android app's assets). [threads]: the runtime's
         * threads per decode. */
        @JvmStatic
        @JvmOverloads
        fun open(files: ModelFiles, threads: Int = 1): Translator = Translator(TextModel.open(files, threads))
    }
}
