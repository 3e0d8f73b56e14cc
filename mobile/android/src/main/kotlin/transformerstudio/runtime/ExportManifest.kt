package transformerstudio.runtime

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/**
 * What the decode loop needs of an export's `manifest.json` (studio/variants.py writes it): the limits, the
 * special ids, and the inputs and outputs of the `encode` and `decode_step` signatures.
 *
 * A dimension is a number, or a name: "batch", "source_len", "cache_len". A graph whose `source_ids` has a
 * numbered length takes sources of exactly [maxSourceLen] ids ([fixedSource]); one whose cache has a numbered
 * length takes caches of exactly [maxTargetLen] slots ([fixedCache]); one whose cache has a named batch takes
 * several rows at once ([batchable]), unless the package says its graphs are batch-1 (`package.batch_1`).
 */
class ExportManifest(
    val maxSourceLen: Int,
    val maxTargetLen: Int,
    val vocabSize: Int,
    val specialIds: SpecialIds,
    /** decode_step's self-attention cache inputs (cache_k_<i>, cache_v_<i>), by name: their shapes. */
    val cacheInputs: Map<String, List<Any>>,
    /** encode's outputs: source_mask, cross_k_<i>, cross_v_<i>. */
    val encodeOutputs: List<String>,
    val fixedSource: Boolean,
    val fixedCache: Boolean,
    /** Whether decode_step takes a batch of rows (beam search's hypotheses in one run), not only one. */
    val batchable: Boolean = false,
) {
    /** The shape of a cache input of `rows` rows with `slots` cache positions. */
    fun cacheShape(name: String, slots: Int, rows: Int = 1): LongArray =
        cacheInputs.getValue(name).map { dim ->
            when (dim) {
                "batch" -> rows.toLong()
                "cache_len" -> slots.toLong()
                is Number -> dim.toLong()
                else -> throw IllegalArgumentException("$name has an unknown dimension $dim")
            }
        }.toLongArray()

    companion object {
        fun read(file: File): ExportManifest = parse(JSONObject(file.readText(Charsets.UTF_8)))

        fun parse(json: JSONObject): ExportManifest {
            val signatures = json.getJSONObject("signatures")
            val encode = signatures.getJSONObject("encode")
            val stepInputs = signatures.getJSONObject("decode_step").getJSONObject("inputs")
            val cacheInputs = stepInputs.keySet().filter { it.startsWith("cache_") }.sorted()
                .associateWith { shapeOf(stepInputs.getJSONObject(it)) }
            val ids = json.getJSONObject("special_ids")
            val sourceShape = shapeOf(encode.getJSONObject("inputs").getJSONObject("source_ids"))
            val batch1Package = json.optJSONObject("package")?.optBoolean("batch_1") == true
            return ExportManifest(
                maxSourceLen = json.getInt("max_source_len"),
                maxTargetLen = json.getInt("max_target_len"),
                vocabSize = json.getInt("vocab_size"),
                specialIds = SpecialIds(ids.getInt("pad"), ids.getInt("bos"), ids.getInt("eos")),
                cacheInputs = cacheInputs,
                encodeOutputs = encode.getJSONObject("outputs").keySet().sorted(),
                fixedSource = sourceShape[1] is Number,
                fixedCache = cacheInputs.values.first()[2] is Number,
                batchable = cacheInputs.values.first()[0] !is Number && !batch1Package,
            )
        }

        private fun shapeOf(spec: JSONObject): List<Any> {
            val shape: JSONArray = spec.getJSONArray("shape")
            return List(shape.length()) { shape.get(it) }
        }
    }
}
