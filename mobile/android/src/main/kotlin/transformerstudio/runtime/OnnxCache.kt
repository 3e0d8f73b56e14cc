package transformerstudio.runtime

import ai.onnxruntime.OnnxTensor
import ai.onnxruntime.OrtEnvironment
import ai.onnxruntime.OrtSession
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.nio.FloatBuffer

/** One state's self-attention cache: cache_k_<i>/cache_v_<i> of [1, heads, slots, head_dim], held by `lease`. */
internal class CacheTensors(val tensors: Map<String, OnnxTensor>, val slots: Int, val lease: Lease)

/** Makes and grows the ONNX caches as graph_state.py does (zeros; grown [CACHE_STEP] slots at a time). */
internal class OnnxCache(private val environment: OrtEnvironment, private val manifest: ExportManifest) {
    private val names = manifest.cacheInputs.keys.toList()

    /** An all-zero cache: the whole capacity for a fixed-cache graph, else [CACHE_STEP] slots. */
    fun empty(): CacheTensors {
        val slots = if (manifest.fixedCache) manifest.maxTargetLen else minOf(CACHE_STEP, manifest.maxTargetLen)
        return fromBuffers(names.associateWith { zeros(elements(manifest.cacheShape(it, slots))) }, slots)
    }

    /** The cache a step at `position` is fed: `cache` itself, or a grown copy with its own lease. */
    fun withCapacity(cache: CacheTensors, position: Int): CacheTensors {
        if (manifest.fixedCache) return cache
        val slots = cacheSlots(position, manifest.maxTargetLen)
        if (slots <= cache.slots) return cache
        return fromBuffers(names.associateWith { grown(it, cache.tensors.getValue(it), cache.slots, slots) }, slots)
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

    /** A [1, heads, `to`, head_dim] copy of a [1, heads, `from`, head_dim] cache, zeros in the new slots. */
    private fun grown(name: String, tensor: OnnxTensor, from: Int, to: Int): FloatBuffer {
        val shape = manifest.cacheShape(name, to)
        val heads = shape[1].toInt()
        val headDim = shape[3].toInt()
        val old = tensor.floatBuffer
        val values = FloatArray(from * headDim)
        val buffer = zeros(elements(shape))
        for (head in 0 until heads) {
            old.at(head * from * headDim).get(values)
            buffer.at(head * to * headDim).put(values)
        }
        return buffer.atStart()
    }

    private fun fromBuffers(buffers: Map<String, FloatBuffer>, slots: Int): CacheTensors {
        val made = ArrayList<OnnxTensor>()
        try {
            for (name in names) {
                made += OnnxTensor.createTensor(environment, buffers.getValue(name), manifest.cacheShape(name, slots))
            }
        } catch (error: Throwable) {
            made.forEach { it.close() }
            throw error
        }
        val tensors = names.zip(made).toMap()
        return CacheTensors(tensors, slots, Lease { made.forEach { it.close() } })
    }

    private fun elements(shape: LongArray): Int = shape.fold(1L) { a, b -> a * b }.toInt()

    private fun zeros(count: Int): FloatBuffer =
        ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder()).asFloatBuffer()
}
