package transformerstudio.replies

import org.json.JSONException
import org.json.JSONObject
import transformerstudio.ModelException
import transformerstudio.ModelFiles
import java.nio.ByteBuffer
import java.nio.ByteOrder
import kotlin.math.sqrt

/**
 * A chatbot's stored replies: the TF-IDF index over its training questions (studio/text/retrieval.py's
 * RetrievalIndex) read from a package's portable form — `replies.json` (the strings and where each array lies) and
 * `replies.bin` (idf, indptr, indices, data: little-endian float32/int32) — and scored as Python scores it, to the
 * bit: a message's weights are float32(float32(1 + ln count) × idf), divided by their L2 norm (in double) and
 * rounded to float32; a row's score adds its terms' float32 products in float32, term ids ascending; the lowest row
 * wins a tie.
 * Thread-safe: nothing changes after it is read.
 */
class Retrieval private constructor(
    val analyzer: String,
    private val termIds: HashMap<String, Int>,
    private val idf: FloatArray,
    val questions: List<String>,
    val answers: List<String>,
    private val postingStart: IntArray,
    private val postingRows: IntArray,
    private val postingValues: FloatArray,
) {
    /** (row, cosine) of the training question most like [text]: the lowest row among equals; (-1, 0) when none. */
    fun best(text: String): Pair<Int, Float> {
        if (questions.isEmpty()) return -1 to 0f
        val scores = scores(text)
        var best = 0
        for (row in 1 until scores.size) if (scores[row] > scores[best]) best = row
        return if (scores[best] > 0f) best to scores[best] else -1 to 0f
    }

    /** The cosine of [text] with every row's question. */
    fun scores(text: String): FloatArray {
        val (ids, weights) = vector(text)
        val scores = FloatArray(questions.size)
        for (k in ids.indices) {
            val term = ids[k]
            val weight = weights[k]
            for (p in postingStart[term] until postingStart[term + 1]) {
                scores[postingRows[p]] = scores[postingRows[p]] + weight * postingValues[p]
            }
        }
        return scores
    }

    /** The known terms of [text], ids ascending, with their L2-normalized sublinear tf-idf weights. */
    fun vector(text: String): Pair<IntArray, FloatArray> {
        val counts = HashMap<String, Int>()
        for (term in RetrievalText.terms(text, analyzer)) counts.merge(term, 1, Int::plus)
        val known = counts.entries.mapNotNull { (term, count) -> termIds[term]?.let { it to count } }
            .sortedBy { it.first }
        val ids = IntArray(known.size) { known[it].first }
        // NumPy 2 multiplies a Python float by a float32 in float32
        val raw = DoubleArray(known.size) {
            ((1.0 + StrictMath.log(known[it].second.toDouble())).toFloat() * idf[ids[it]]).toDouble()
        }
        var sum = 0.0
        for (value in raw) sum += value * value
        val norm = sqrt(sum)
        return ids to FloatArray(raw.size) { (if (norm > 0.0) raw[it] / norm else raw[it]).toFloat() }
    }

    companion object {
        const val FORMAT = "transformer-studio-replies/1"
        private val ARRAYS = listOf("idf" to "float32", "indptr" to "int32", "indices" to "int32", "data" to "float32")

        /**
         * The stored replies a package's manifest names (its `replies` section: `index`, `arrays`), or null for a
         * package without them; [ModelException] when they are damaged.
         */
        fun open(files: ModelFiles): Retrieval? {
            val section = try {
                JSONObject(files.bytes("manifest.json").toString(Charsets.UTF_8)).optJSONObject("replies")
            } catch (error: JSONException) {
                throw ModelException("the manifest.json of ${files.description} is damaged: ${error.message}", error)
            } ?: return null
            val index = section.optString("index").ifEmpty { "replies.json" }
            val arrays = section.optString("arrays").ifEmpty { "replies.bin" }
            return try {
                read(files.bytes(index), files.bytes(arrays))
            } catch (error: IllegalArgumentException) {
                throw ModelException(
                    "the stored replies $index of ${files.description} are damaged: ${error.message}", error,
                )
            }
        }

        /** The index of a `replies.json` ([meta]) and `replies.bin` ([arrays]); IllegalArgumentException saying what
         * does not fit. */
        fun read(meta: ByteArray, arrays: ByteArray): Retrieval = try {
            build(JSONObject(meta.toString(Charsets.UTF_8)), ByteBuffer.wrap(arrays).order(ByteOrder.LITTLE_ENDIAN))
        } catch (error: JSONException) {
            throw IllegalArgumentException(error.message, error)
        }

        private fun build(info: JSONObject, bytes: ByteBuffer): Retrieval {
            val format = info.optString("format")
            require(format == FORMAT) { "format \"$format\", expected \"$FORMAT\"" }
            val rows = info.getInt("rows")
            val terms = info.getInt("terms")
            val nonzeros = info.getInt("nonzeros")
            val sizes = mapOf("idf" to terms, "indptr" to rows + 1, "indices" to nonzeros, "data" to nonzeros)
            val layout = info.getJSONArray("arrays")
            val at = (0 until layout.length()).map { layout.getJSONObject(it) }.associateBy { it.getString("name") }
            for ((name, dtype) in ARRAYS) {
                val entry = at[name] ?: throw IllegalArgumentException("no array \"$name\"")
                require(entry.getString("dtype") == dtype && entry.getInt("length") == sizes[name]) {
                    "array \"$name\" is not $dtype of ${sizes[name]} values"
                }
                require(entry.getLong("offset") + 4L * sizes.getValue(name) <= bytes.capacity()) {
                    "the binary file ends before \"$name\" does"
                }
            }
            fun offset(name: String) = at.getValue(name).getInt("offset")
            fun ints(name: String) = IntArray(sizes.getValue(name)) { bytes.getInt(offset(name) + 4 * it) }
            fun floats(name: String) = FloatArray(sizes.getValue(name)) { bytes.getFloat(offset(name) + 4 * it) }
            val vocabulary = strings(info, "vocabulary", terms)
            val termIds = HashMap<String, Int>(terms * 2)
            vocabulary.forEachIndexed { id, term -> termIds[term] = id }
            val indptr = ints("indptr")
            val indices = ints("indices")
            require(indptr[0] == 0 && indptr[rows] == nonzeros && (0 until rows).all { indptr[it] <= indptr[it + 1] }) {
                "indptr does not run from 0 to nonzeros"
            }
            require(indices.all { it in 0 until terms }) { "a term id is out of the vocabulary" }
            val postings = invert(indptr, indices, floats("data"), terms)
            return Retrieval(
                info.getString("analyzer"), termIds, floats("idf"), strings(info, "questions", rows),
                strings(info, "answers", rows), postings.first, postings.second, postings.third,
            )
        }

        private fun strings(info: JSONObject, name: String, size: Int): List<String> {
            val array = info.getJSONArray(name)
            require(array.length() == size) { "$name has ${array.length()} strings, not $size" }
            return List(size) { array.getString(it) }
        }

        /** Each term's rows (ascending) and weights: the CSR matrix of the rows read by term. */
        private fun invert(
            indptr: IntArray,
            indices: IntArray,
            data: FloatArray,
            terms: Int,
        ): Triple<IntArray, IntArray, FloatArray> {
            val start = IntArray(terms + 1)
            for (term in indices) start[term + 1]++
            for (term in 0 until terms) start[term + 1] += start[term]
            val next = start.copyOf()
            val rows = IntArray(indices.size)
            val values = FloatArray(indices.size)
            for (row in 0 until indptr.size - 1) {
                for (k in indptr[row] until indptr[row + 1]) {
                    val at = next[indices[k]]++
                    rows[at] = row
                    values[at] = data[k]
                }
            }
            return Triple(start, rows, values)
        }
    }
}
