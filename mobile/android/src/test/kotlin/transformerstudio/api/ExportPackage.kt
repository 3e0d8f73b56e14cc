package transformerstudio.api

import org.json.JSONObject
import transformerstudio.ModelFiles
import transformerstudio.decode.TestData
import java.io.File

/**
 * A model package as `studio export --zip` lays it out, made of the exported ONNX graphs in the user cache (the
 * export DecodeFixtureTest finds) and the bundle's config and tokenizer in assets/: its manifest.json is the export
 * manifest with the package's sections added (exporters/package.py's package_manifest), the rest the files
 * themselves, read through the library's own folder reader.
 */
class ExportPackage(private val exportDir: File, private val bundleDir: File) : ModelFiles {
    private val exported = ModelFiles.folder(exportDir)
    private val bundle = ModelFiles.folder(bundleDir)
    private val manifest: ByteArray = JSONObject(File(exportDir, "manifest.json").readText()).apply {
        put("package", JSONObject(mapOf("model" to "encode.onnx", "decode_step" to "decode_step.onnx")))
        put("tokenizer", getJSONObject("tokenizer").put("source", TOKENIZER).put("target", TOKENIZER))
        put("text_pipeline", JSONObject(mapOf("config" to "config.json")))
    }.toString().toByteArray()

    override val description: String get() = "the export $exportDir with the bundle $bundleDir"

    override fun exists(path: String) = path == MANIFEST || exported.exists(path) || bundle.exists(path)

    override fun bytes(path: String): ByteArray =
        if (path == MANIFEST) manifest else (if (exported.exists(path)) exported else bundle).bytes(path)

    override fun file(path: String): File? = if (exported.exists(path)) exported.file(path) else null

    companion object {
        private const val MANIFEST = "manifest.json"
        private const val TOKENIZER = "tokenizer/shared.spm.model"

        /** The package of a shipped bundle ("translator", "chatbot"); skips the test when its export is absent. */
        fun of(bundle: String): ExportPackage =
            ExportPackage(TestData.exportFor(TestData.decodeFixture(bundle)), TestData.bundleDir(bundle))
    }
}
