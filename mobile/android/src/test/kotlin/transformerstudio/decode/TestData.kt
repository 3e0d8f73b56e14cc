package transformerstudio.decode

import org.json.JSONArray
import org.json.JSONObject
import org.junit.jupiter.api.Assumptions.assumeTrue
import transformerstudio.runtime.OnnxRuntime
import java.io.File

/** The test data: fixtures in the test resources, the bundles' tokenizers, the exported graphs. */
object TestData {
    private val repo = File(System.getProperty("repo.dir") ?: "../..")
    private val assets = File(System.getProperty("assets.dir") ?: File(repo, "assets").path)

    fun resource(path: String): JSONObject {
        val stream = TestData::class.java.getResourceAsStream("/$path") ?: error("no test resource $path")
        return JSONObject(stream.readBytes().toString(Charsets.UTF_8))
    }

    fun repoFile(path: String): File = File(repo, path)

    /** Every how manyth case of a golden fixture a test checks (`-Dgolden.every=N`; 1, all of them, by default). */
    private val every = (System.getProperty("golden.every") ?: "1").toIntOrNull()?.coerceAtLeast(1)
        ?: error("golden.every must be a whole number")

    /** The indices of the cases checked among `count`: the first, then every [every]th. */
    fun checked(count: Int): IntProgression = 0 until count step every

    /** A shipped bundle's folder (assets/<bundle>). */
    fun bundleDir(bundle: String): File = File(assets, bundle)

    /** The fixture mobile/scripts/decode-fixture.py wrote for `bundle`. */
    fun decodeFixture(bundle: String): JSONObject = resource("decode/$bundle.json")

    /**
     * The export the fixture was written from: the folder the system property `decode.export.<bundle>` names, else
     * `<user cache>/transformer-studio/exports/<fixture's export>` (STUDIO_CACHE_DIR, XDG_CACHE_HOME or ~/.cache).
     * Skips the test, saying why, when the graphs are absent; fails when they are not the fixture's.
     */
    fun exportFor(fixture: JSONObject): File {
        val bundle = fixture.getString("bundle")
        val given = System.getProperty("decode.export.$bundle")
        val dir = if (given != null) File(given) else File(cacheDir(), "exports/" + fixture.getString("export"))
        assumeTrue(File(dir, "decode_step.onnx").isFile && File(dir, "encode.onnx").isFile) {
            "the $bundle's exported ONNX graphs are not in $dir: run `studio export assets/$bundle` " +
                "(or set -Ddecode.export.$bundle=FOLDER) to run this test"
        }
        val sha = JSONObject(File(dir, "manifest.json").readText()).getJSONObject("files")
        for (graph in listOf("encode.onnx", "decode_step.onnx")) {
            check(sha.getJSONObject(graph).getString("sha256") == fixture.getJSONObject("sha256").getString(graph)) {
                "$dir/$graph is not the graph the fixture was written from: run mobile/scripts/decode-fixture.py"
            }
        }
        return dir
    }

    fun onnxRuntime(fixture: JSONObject): OnnxRuntime = OnnxRuntime.open(exportFor(fixture), threads = 1)

    private fun cacheDir(): File {
        System.getenv("STUDIO_CACHE_DIR")?.takeIf { it.isNotBlank() }?.let { return File(it) }
        val xdg = System.getenv("XDG_CACHE_HOME")?.takeIf { it.isNotBlank() }
        return File(xdg ?: File(System.getProperty("user.home"), ".cache").path, "transformer-studio")
    }

    /** The pieces of a bundle's SentencePiece model, in id order (ModelProto.pieces[].piece). */
    fun pieces(bundle: String): List<String> = spmPieces(File(assets, "$bundle/tokenizer/shared.spm.model").readBytes())

    fun ints(array: JSONArray): List<Int> = List(array.length()) { array.getInt(it) }

    fun strings(array: JSONArray): Set<String> = List(array.length()) { array.getString(it) }.toSet()
}

/** ModelProto's field 1 (pieces), each a SentencePiece whose field 1 is the piece: a minimal protobuf reader. */
internal fun spmPieces(bytes: ByteArray): List<String> {
    val pieces = ArrayList<String>()
    ProtoReader(bytes, 0, bytes.size).forEachField { field, start, end ->
        if (field != 1) return@forEachField // the trainer and normalizer specs are not needed here
        ProtoReader(bytes, start, end).forEachField { inner, from, to ->
            if (inner == 1) pieces += String(bytes, from, to - from, Charsets.UTF_8)
        }
    }
    return pieces
}

private class ProtoReader(private val bytes: ByteArray, private var at: Int, private val end: Int) {
    /** Calls `visit(field, start, end)` for each length-delimited field; skips the others. */
    fun forEachField(visit: (Int, Int, Int) -> Unit) {
        while (at < end) {
            val key = varint()
            when ((key and 7L).toInt()) {
                0 -> varint()
                1 -> at += 8
                2 -> {
                    val length = varint().toInt()
                    visit((key ushr 3).toInt(), at, at + length)
                    at += length
                }
                5 -> at += 4
                else -> error("unsupported protobuf wire type in the SentencePiece model")
            }
        }
    }

    private fun varint(): Long {
        var result = 0L
        var shift = 0
        while (true) {
            val byte = bytes[at++].toInt()
            result = result or ((byte and 0x7f).toLong() shl shift)
            if (byte and 0x80 == 0) return result
            shift += 7
        }
    }
}
