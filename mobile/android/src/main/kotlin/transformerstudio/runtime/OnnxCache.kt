package transformerstudio.runtime

import ai.onnxruntime.OnnxTensor
import ai.onnxruntime.OrtEnvironment
import ai.onnxruntime.OrtSession
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.nio.FloatBuffer
import java.util.IdentityHashMap

/**
 * The self-attention caches cache_k_<i>/cache_v_<i> of [rows, heads, slots, head_dim], held by `lease`: one
 * state's (one row), or those of the states one batched step made (a row each, the lease shared). [buffers]: the
 * direct buffers the tensors were made over; null for the outputs ONNX Runtime allocated.
 */
internal class CacheTensors(
    val tensors: Map<String, OnnxTensor>,
    val slots: Int,
    val lease: Lease,
    val rows: Int = 1,
    val buffers: Map<String, FloatBuffer>? = null,
)

/** Row `row` of `cache`: one state's self-attention cache. */
internal class CacheRow(val cache: CacheTensors, val row: Int) {
    val lease: Lease get() = cache.lease
}

/**
 * Makes, grows and gathers the ONNX caches as graph_state.py does (zeros; grown [CACHE_STEP] slots at a time;
 * the rows of a batch gathered from the states' caches, as GraphState.reorder).
 */
internal class OnnxCache(private val environment: OrtEnvironment, private val manifest: ExportManifest) {
    private val names = manifest.cacheInputs.keys.toList()

    /** An all-zero cache: the whole capacity for a fixed-cache graph, else [CACHE_STEP] slots. */
    fun empty(): CacheTensors {
        val slots = if (manifest.fixedCache) manifest.maxTargetLen else minOf(CACHE_STEP, manifest.maxTargetLen)
        return fromBuffers(names.associateWith { zeros(elements(manifest.cacheShape(it, slots))) }, slots, 1)
    }

    /** The one-row cache a step at `position` is fed: `row`'s cache itself, or a copy with its own lease. */
    fun withCapacity(row: CacheRow, position: Int): CacheTensors {
        val slots = slotsFor(listOf(row), position)
        return if (row.cache.rows == 1 && slots == row.cache.slots) row.cache else gathered(listOf(row), position)
    }

    /**
     * A new cache of `rows`' caches, in order, with room for a step at `position` (zeros in the new slots): the
     * input of one batched step, with its own lease.
     */
    fun gathered(rows: List<CacheRow>, position: Int): CacheTensors {
        val slots = slotsFor(rows, position)
        val read = IdentityHashMap<OnnxTensor, FloatBuffer>() // a tensor ONNX Runtime made is copied out once
        val buffers = names.associateWith { name ->
            val shape = manifest.cacheShape(name, slots, rows.size)
            val buffer = zeros(elements(shape))
            for ((index, source) in rows.withIndex()) {
                val values = source.cache.buffers?.getValue(name)?.duplicate()
                    ?: source.cache.tensors.getValue(name).let { read.getOrPut(it) { it.floatBuffer } }
                copyRow(values, source.row, source.cache.slots, buffer, index, slots, shape)
            }
            buffer.atStart()
        }
        return fromBuffers(buffers, slots, rows.size)
    }

    /** The new_cache_* outputs of a step as the next state's cache (the step's result is its lease). */
    fun fromOutputs(result: OrtSession.Result, slots: Int): CacheTensors {
        val tensors = try {
            names.associateWith { result.get("new_$it").get() as OnnxTensor }
        } catch (error: Throwable) {
            result.close()
            throw error
        }
        return CacheTensors(tensors, slots, Lease(result))
    }

    /** A zero cache of `rows` rows and `slots` slots for a batched step to write its new_cache_* outputs into. */
    fun forOutputs(rows: Int, slots: Int): CacheTensors =
        fromBuffers(names.associateWith { zeros(elements(manifest.cacheShape(it, slots, rows))) }, slots, rows)

    /** The slots a step at `position` needs: the cache's own when it has more (a fixed cache has all of them). */
    private fun slotsFor(rows: List<CacheRow>, position: Int): Int {
        val held = rows.maxOf { it.cache.slots }
        return if (manifest.fixedCache) held else maxOf(held, cacheSlots(position, manifest.maxTargetLen))
    }

    /** Row `from` of a [_, heads, fromSlots, head_dim] cache into row `to` of a [_, heads, toSlots, head_dim] one. */
    private fun copyRow(source: FloatBuffer, from: Int, fromSlots: Int, target: FloatBuffer, to: Int, toSlots: Int,
                        shape: LongArray) {
        val heads = shape[1].toInt()
        val headDim = shape[3].toInt()
        val values = FloatArray(fromSlots * headDim)
        for (head in 0 until heads) {
            source.at(((from * heads + head) * fromSlots) * headDim).get(values)
            target.at(((to * heads + head) * toSlots) * headDim).put(values)
        }
    }

    private fun fromBuffers(buffers: Map<String, FloatBuffer>, slots: Int, rows: Int): CacheTensors {
        val made = ArrayList<OnnxTensor>()
        try {
            for (name in names) {
                val shape = manifest.cacheShape(name, slots, rows)
                made += OnnxTensor.createTensor(environment, buffers.getValue(name), shape)
            }
        } catch (error: Throwable) {
            made.forEach { it.close() }
            throw error
        }
        val tensors = names.zip(made).toMap()
        return CacheTensors(tensors, slots, Lease { made.forEach { it.close() } }, rows, buffers)
    }

    private fun elements(shape: LongArray): Int = shape.fold(1L) { a, b -> a * b }.toInt()

    private fun zeros(count: Int): FloatBuffer =
        ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder()).asFloatBuffer()
}
