package transformerstudio.replies

import org.json.JSONObject
import org.junit.jupiter.api.Assumptions.assumeTrue
import transformerstudio.decode.TestData
import java.io.File
import java.security.MessageDigest

/**
 * The stored replies fixture (mobile/scripts/replies-fixture.py: Python's answers on the shipped chatbot's index) and
 * that index's portable form, which the script keeps in the user cache (`<cache>/transformer-studio/<cache>`, where
 * the fixture's `cache` says): the test is skipped, saying why, when it is absent, and fails when it is not the
 * index the fixture was written from.
 */
object RepliesData {
    val fixture: JSONObject by lazy { TestData.resource("replies-cases.json") }

    /** The folder holding the shipped index's replies.json and replies.bin. */
    fun portableIndex(): File {
        val dir = File(cacheDir(), fixture.getString("cache"))
        assumeTrue(File(dir, "replies.json").isFile && File(dir, "replies.bin").isFile) {
            "the shipped chatbot's stored replies are not in $dir: run mobile/scripts/replies-fixture.py"
        }
        val sha = fixture.getJSONObject("sha256")
        for (name in listOf("replies.json", "replies.bin")) {
            check(sha256(File(dir, name).readBytes()) == sha.getString(name)) {
                "$dir/$name is not the index the fixture was written from: run mobile/scripts/replies-fixture.py"
            }
        }
        return dir
    }

    fun index(): Retrieval {
        val dir = portableIndex()
        return Retrieval.read(File(dir, "replies.json").readBytes(), File(dir, "replies.bin").readBytes())
    }

    private fun cacheDir(): File {
        System.getenv("STUDIO_CACHE_DIR")?.takeIf { it.isNotBlank() }?.let { return File(it) }
        val xdg = System.getenv("XDG_CACHE_HOME")?.takeIf { it.isNotBlank() }
        return File(xdg ?: File(System.getProperty("user.home"), ".cache").path, "transformer-studio")
    }

    private fun sha256(bytes: ByteArray): String =
        MessageDigest.getInstance("SHA-256").digest(bytes).joinToString("") { "%02x".format(it) }
}
