package transformerstudio

import org.json.JSONException
import org.json.JSONObject
import transformerstudio.decode.Task
import transformerstudio.runtime.ExportManifest
import transformerstudio.text.LanguagePair
import transformerstudio.text.TextPipeline

/**
 * What a package's `manifest.json` and `config.json` say (exporters/package.py writes them; studio/packaged.py
 * reads them): the model's graph files, its tokenizers, its task and text pipeline, and the graphs' contract.
 *
 * @property model the .tflite, or the ONNX `encode` graph (then [decodeStep] is the `decode_step` graph)
 * @property pair what a translator translates from and into: which steps of the translation path apply
 */
class ModelPackage(
    val model: String,
    val decodeStep: String?,
    val sourceTokenizer: String,
    val targetTokenizer: String,
    val task: Task,
    val pipeline: TextPipeline,
    val graphs: ExportManifest,
    val pair: LanguagePair = LanguagePair.KOREAN_ENGLISH,
) {
    /** Whether the model is a LiteRT (.tflite) model, else ONNX. */
    val isLiteRt: Boolean get() = decodeStep == null

    companion object {
        /** The package description of [files]; [ModelException] saying what is missing or damaged. */
        fun read(files: ModelFiles): ModelPackage {
            val manifest = json(files, "manifest.json")
            return try {
                val parts = manifest.getJSONObject("package")
                val tokenizer = manifest.getJSONObject("tokenizer")
                val config = json(files, manifest.getJSONObject("text_pipeline").getString("config"))
                val task = config.optJSONObject("task") ?: JSONObject()
                ModelPackage(
                    model = parts.getString("model"),
                    decodeStep = parts.optString("decode_step").ifEmpty { null },
                    sourceTokenizer = tokenizer.getString("source"),
                    targetTokenizer = tokenizer.getString("target"),
                    task = Task.named(task.optString("task").ifEmpty { null }),
                    pipeline = TextPipeline.named(
                        task.optString("text_pipeline").ifEmpty { null }, task.optBoolean("lowercase_target"),
                    ),
                    graphs = ExportManifest.parse(manifest),
                    pair = LanguagePair.of(task),
                )
            } catch (error: JSONException) {
                throw ModelException("the manifest.json of ${files.description} is not a package's: ${error.message}", error)
            } catch (error: IllegalArgumentException) {
                throw ModelException("the model in ${files.description} cannot be used: ${error.message}", error)
            } catch (error: NoSuchElementException) { // signatures without the cache inputs the loop feeds
                throw ModelException("the manifest.json of ${files.description} describes no decoder cache", error)
            }
        }

        private fun json(files: ModelFiles, path: String): JSONObject = try {
            JSONObject(files.bytes(path).toString(Charsets.UTF_8))
        } catch (error: JSONException) {
            throw ModelException("$path in ${files.description} is damaged: ${error.message}", error)
        }
    }
}
