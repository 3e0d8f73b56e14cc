package transformerstudio.api

import org.json.JSONObject
import transformerstudio.ModelFiles
import transformerstudio.decode.TestData
import transformerstudio.replies.RepliesData
import java.io.File

/**
 * A model package as `studio export --zip` lays it out, made of the exported ONNX graphs in the user cache (the
 * export DecodeFixtureTest finds), the bundle's config and tokenizer in assets/ and, given [repliesDir], the stored
 * replies' portable index (the one mobile/scripts/replies-fixture.py keeps in the user cache): its manifest.json is
 * the export manifest with the package's sections added (exporters/package.py's package_manifest), the rest the
 * files themselves, read through the library's own folder reader.
 */
class ExportPackage(
    private val exportDir: File,
    private val bundleDir: File,
    private val repliesDir: File? = null,
) : ModelFiles {
    private val exported = ModelFiles.folder(exportDir)
    private val bundle = ModelFiles.folder(bundleDir)
    private val replies = repliesDir?.let { ModelFiles.folder(it) }
    private val manifest: ByteArray = JSONObject(File(exportDir, "manifest.json").readText()).apply {
        put("package", JSONObject(mapOf("model" to "encode.onnx", "decode_step" to "decode_step.onnx")))
        put("tokenizer", getJSONObject("tokenizer").put("source", TOKENIZER).put("target", TOKENIZER))
        put("text_pipeline", JSONObject(mapOf("config" to "config.json")))
        if (repliesDir != null) put("replies", JSONObject(mapOf("index" to REPLIES[0], "arrays" to REPLIES[1])))
    }.toString().toByteArray()

    override val description: String get() = "the export $exportDir with the bundle $bundleDir"

    override fun exists(path: String) = path == MANIFEST || exported.exists(path) || bundle.exists(path) ||
        (replies != null && path in REPLIES)

    override fun bytes(path: String): ByteArray = when {
        path == MANIFEST -> manifest
        replies != null && path in REPLIES -> replies.bytes(path)
        else -> (if (exported.exists(path)) exported else bundle).bytes(path)
    }

    override fun file(path: String): File? = if (exported.exists(path)) exported.file(path) else null

    companion object {
        private const val MANIFEST = "manifest.json"
        private const val TOKENIZER = "tokenizer/shared.spm.model"
        private val REPLIES = listOf("replies.json", "replies.bin")

        /** The package of a shipped bundle ("translator", "chatbot"), with the chatbot's stored replies when
         * [withReplies]; skips the test when its export (or the replies' portable index) is absent. */
        fun of(bundle: String, withReplies: Boolean = false): ExportPackage = ExportPackage(
            TestData.exportFor(TestData.decodeFixture(bundle)), TestData.bundleDir(bundle),
            if (withReplies) RepliesData.portableIndex() else null,
        )
    }
}
