package transformerstudio

import transformerstudio.decode.DecodeHooks
import transformerstudio.decode.DecodeOptions
import transformerstudio.decode.FigureGuard
import transformerstudio.decode.SourceFacts
import transformerstudio.decode.Task
import transformerstudio.decode.TaskDecoder
import transformerstudio.decode.limitSource
import transformerstudio.runtime.Runtime
import transformerstudio.text.Facts
import transformerstudio.text.LanguagePair
import transformerstudio.text.PyStr
import transformerstudio.text.TextPipeline
import transformerstudio.tokenizer.SentencePiece

/**
 * A package's model as text in, text out (studio/inference.py's TextGenerator with its Preprocessor, one source at
 * a time): normalize, tokenize, cut to the model's length, decode with the task's rules, detokenize.
 * Thread-safe: the tokenizers, the figure guard and the runtime may be shared (see the runtime's KDoc).
 */
internal class TextModel(
    val task: Task,
    val pipeline: TextPipeline,
    /** What it translates from and into (a chatbot's: the shipped translator's). */
    val pair: LanguagePair,
    private val source: SentencePiece,
    private val target: SentencePiece,
    val runtime: Runtime,
) : AutoCloseable {
    private val decoder = TaskDecoder(runtime, task, if (task.keepsFigures) figureGuard(target) else null)

    /** The source tokens of [text] as the model reads it, before any cut (Preprocessor.count_tokens). */
    fun countTokens(text: String): Int = source.encode(pipeline.source(text)).size

    /** The most source tokens the model reads (`</s>` aside). */
    val sourceLimit: Int get() = runtime.maxSourceLen - 1

    /** [text] if the model can take it, else [InputException] with the app's message (inputs.py's check_text). */
    fun check(text: String) {
        if (PyStr.strip(text).isEmpty()) throw InputException(task.emptyInput)
        if (pipeline.source(text).isNotEmpty()) return
        throw InputException(
            if (pipeline.name == TextPipeline.TUTORIAL) "That text has nothing the model can read: it understands " +
                "Korean, Latin letters, digits and punctuation (emoji, symbols and other scripts are skipped)."
            else "That text has only invisible characters (control or zero-width characters): there is nothing to read.",
        )
    }

    /** The model's output for [text] (TextGenerator.generate of one text); [onText] hears the text so far after each
     * token where the decoding streams. */
    fun generate(text: String, options: DecodeOptions, onText: ((String) -> Unit)?, hooks: DecodeHooks): String {
        val tokens = source.encode(pipeline.source(text))
        val ids = limitSource(tokens, runtime.maxSourceLen, runtime.specialIds.eos).ids
        val read = source.decode(ids) // the figure guard's facts are of the text as the model reads it (spec)
        val facts = if (task.keepsFigures) SourceFacts(Facts.sourceNumbers(read), Facts.sourceYears(read)) else SourceFacts()
        val streaming = if (onText == null) hooks else DecodeHooks(
            onToken = { _, soFar -> onText(output(soFar)) }, onStep = hooks.onStep, cancellation = hooks.cancellation,
        )
        return output(decoder.decode(ids, facts, options, streaming).ids)
    }

    private fun output(ids: List<Int>): String = pipeline.output(target.decode(ids.toIntArray()))

    override fun close() = runtime.close()

    companion object {
        /** The model of a package ([ModelException] when a part is missing or damaged). */
        fun open(files: ModelFiles, threads: Int): TextModel {
            val pkg = ModelPackage.read(files)
            val source = tokenizer(files, pkg.sourceTokenizer)
            val target = if (pkg.targetTokenizer == pkg.sourceTokenizer) source else tokenizer(files, pkg.targetTokenizer)
            if (target.vocabSize != pkg.graphs.vocabSize) {
                throw ModelException(
                    "the tokenizer ${pkg.targetTokenizer} of ${files.description} has ${target.vocabSize} " +
                        "pieces and the model's graphs ${pkg.graphs.vocabSize} (manifest.json): they are not one " +
                        "model's files",
                )
            }
            return TextModel(pkg.task, pkg.pipeline, pkg.pair, source, target, Runtimes.open(files, pkg, threads))
        }

        private fun tokenizer(files: ModelFiles, path: String): SentencePiece = try {
            SentencePiece.load(files.bytes(path))
        } catch (error: IllegalArgumentException) {
            throw ModelException("the tokenizer $path of ${files.description} is damaged: ${error.message}", error)
        }

        private fun figureGuard(target: SentencePiece): FigureGuard =
            FigureGuard(List(target.vocabSize) { target.idToPiece(it) })
    }
}
