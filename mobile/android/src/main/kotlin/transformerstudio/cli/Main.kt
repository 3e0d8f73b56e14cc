@file:JvmName("Main")

package transformerstudio.cli

import transformerstudio.Chatbot
import transformerstudio.InputException
import transformerstudio.ModelException
import transformerstudio.ReplyMode
import transformerstudio.Translator
import transformerstudio.text.PyStr
import java.io.File
import java.io.PrintStream
import kotlin.system.exitProcess

private const val USAGE = "usage: run-jvm.sh translate|reply|generate [MODEL_DIR] < lines"

/**
 * The JVM command-line runner (run-jvm.sh): `translate` reads stdin's lines as one text and writes its translation,
 * one line per line, as `studio translate` does with stdin; `reply` writes the chatbot's reply to each line (an
 * empty line for an empty one): a stored reply where the package has one alike, as `studio chat` gives it;
 * `generate`, the model's (`studio chat --reply generate`). MODEL_DIR: a package folder (default: ./model).
 */
fun main(args: Array<String>) {
    if (args.isEmpty() || args.size > 2 || args[0] !in setOf("translate", "reply", "generate")) fail(USAGE)
    val folder = File(args.getOrElse(1) { "model" })
    if (!File(folder, "manifest.json").isFile) fail("$folder is not a model package folder (no manifest.json). $USAGE")
    val lines = stdinLines()
    val out = PrintStream(System.out, false, "UTF-8")
    try {
        val outputs = when (args[0]) {
            "translate" -> translated(folder, lines)
            "reply" -> replies(folder, lines, ReplyMode.RETRIEVE)
            else -> replies(folder, lines, ReplyMode.GENERATE)
        }
        outputs.forEach(out::println)
    } catch (error: ModelException) {
        fail(error.message ?: "the model cannot be used")
    }
    out.flush()
}

/** stdin's lines without their "\n", each read as `studio` reads a piped line ([PipeDecoder]; its notes on stderr). */
private fun stdinLines(): List<String> {
    val bytes = System.`in`.readBytes()
    if (bytes.isEmpty()) return emptyList()
    val lines = ArrayList<ByteArray>()
    var start = 0
    for (i in bytes.indices) {
        if (bytes[i] == '\n'.code.toByte()) {
            lines += bytes.copyOfRange(start, i)
            start = i + 1
        }
    }
    if (start < bytes.size) lines += bytes.copyOfRange(start, bytes.size)
    val decoder = PipeDecoder("stdin")
    return lines.mapIndexed { index, line ->
        val (text, note) = decoder.decode(line, index + 1)
        if (note.isNotEmpty()) System.err.println("warning: $note")
        text
    }
}

private fun translated(folder: File, lines: List<String>): List<String> {
    if (lines.isEmpty()) return lines
    Translator.open(folder).use { translator ->
        val text = lines.joinToString("\n")
        return try {
            translator.translate(text).split("\n").also {
                translator.keptAsWritten(text)?.let { kept -> System.err.println("warning: $kept") }
            }
        } catch (error: InputException) { // nothing to translate: each line as `translate` keeps it
            lines.map { if (PyStr.strip(it).isEmpty()) "" else it }
        }
    }
}

private fun replies(folder: File, lines: List<String>, mode: ReplyMode): List<String> =
    Chatbot.open(folder).use { chatbot ->
        lines.map { line ->
            try {
                chatbot.reply(line, mode = mode)
            } catch (error: InputException) {
                ""
            }
        }
    }

private fun fail(message: String): Nothing {
    System.err.println(message)
    exitProcess(2)
}
