package transformerstudio.runtime

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/**
 * What the decode loop needs of an export's `manifest.json` (studio/variants.py writes it): the limits, the
 * special ids, and the inputs and outputs of the `encode` and `decode_step` signatures.
 *
 * A dimension is a number, or a name: "batch" (1 here), "source_len", "cache_len". A graph whose
 * `source_ids` has a numbered length takes sources of exactly [maxSourceLen] ids ([fixedSource]); one whose
 * cache has a numbered length takes caches of exactly [maxTargetLen] slots ([fixedCache]).
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
) {
    /** The shape of a cache input at batch 1 with `slots` cache positions. */
    fun cacheShape(name: String, slots: Int): LongArray =
        cacheInputs.getValue(name).map { dim ->
            when (dim) {
                "batch" -> 1L
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
            return ExportManifest(
                maxSourceLen = json.getInt("max_source_len"),
                maxTargetLen = json.getInt("max_target_len"),
                vocabSize = json.getInt("vocab_size"),
                specialIds = SpecialIds(ids.getInt("pad"), ids.getInt("bos"), ids.getInt("eos")),
                cacheInputs = cacheInputs,
                encodeOutputs = encode.getJSONObject("outputs").keySet().sorted(),
                fixedSource = sourceShape[1] is Number,
                fixedCache = cacheInputs.values.first()[2] is Number,
            )
        }

        private fun shapeOf(spec: JSONObject): List<Any> {
            val shape: JSONArray = spec.getJSONArray("shape")
            return List(shape.length()) { shape.get(it) }
        }
    }
}
