package transformerstudio.text

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/** The fixtures the tests hold the port to: this module's test resources, and the repository's web/test files. */
object Fixtures {
    private val repository = File(System.getProperty("repo.dir") ?: "../..")

    /** A JSON file of the repository (web/test/protect-cases.json...). */
    fun repositoryJson(path: String): JSONObject = JSONObject(File(repository, path).readText(Charsets.UTF_8))

    /** A JSON test resource of this module, written by a script of mobile/scripts/. */
    fun resourceText(name: String): String =
        Fixtures::class.java.getResourceAsStream("/$name")!!.use { it.readBytes().toString(Charsets.UTF_8) }

    fun objects(array: JSONArray): List<JSONObject> = (0 until array.length()).map { array.getJSONObject(it) }

    /** A case's language pair (`"pair": [source, target]`, written for a pair other than the shipped Korean→English),
     * else Korean→English. */
    fun pair(case: JSONObject): LanguagePair = case.optJSONArray("pair")
        ?.let { LanguagePair(it.getString(0), it.getString(1)) } ?: LanguagePair.KOREAN_ENGLISH

    fun strings(array: JSONArray): List<String> = (0 until array.length()).map { array.getString(it) }

    /** A JSON value as a string that compares the way Python's == compares it (key order aside). */
    fun canonical(value: Any?): String = when (value) {
        null, JSONObject.NULL -> "null"
        is JSONObject -> value.keySet().sorted().joinToString(",", "{", "}") { "${JSONObject.quote(it)}:${canonical(value.get(it))}" }
        is JSONArray -> (0 until value.length()).joinToString(",", "[", "]") { canonical(value.get(it)) }
        is Collection<*> -> value.joinToString(",", "[", "]") { canonical(it) }
        is Map<*, *> -> value.entries.sortedBy { it.key.toString() }
            .joinToString(",", "{", "}") { "${JSONObject.quote(it.key.toString())}:${canonical(it.value)}" }
        is Pair<*, *> -> canonical(listOf(value.first, value.second))
        is String -> JSONObject.quote(value)
        is Number -> if (value.toDouble() == Math.floor(value.toDouble()) && !value.toDouble().isInfinite()) value.toLong().toString() else value.toString()
        else -> value.toString()
    }
}

/** One case whose answer differs from Python's, for one assertion that lists them all. */
data class Difference(val case: String, val kotlin: String, val python: String)

/** The cases of [cases] whose [got] answer differs from the [expected] one (compared as canonical JSON). */
fun <T> differences(cases: List<T>, name: (T) -> String, got: (T) -> Any?, expected: (T) -> Any?): List<Difference> =
    cases.mapNotNull { case ->
        val kotlin = Fixtures.canonical(got(case))
        val python = Fixtures.canonical(expected(case))
        if (kotlin == python) null else Difference(name(case), kotlin, python)
    }
