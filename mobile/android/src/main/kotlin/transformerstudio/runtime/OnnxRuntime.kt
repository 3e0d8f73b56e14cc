package transformerstudio.runtime

import ai.onnxruntime.OnnxTensor
import ai.onnxruntime.OrtEnvironment
import ai.onnxruntime.OrtLoggingLevel
import ai.onnxruntime.OrtSession
import ai.onnxruntime.TensorInfo
import java.io.File
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.nio.FloatBuffer
import java.nio.IntBuffer

/**
 * [Runtime] over an export's `encode.onnx` and `decode_step.onnx` with ONNX Runtime's Java API (on Android the
 * `onnxruntime-android` artifact, the same API): the port of studio/runtimes/onnx_runtime.py and of
 * web/src/onnx_runtime.js. As Python does, a source is padded to a multiple of 16 ids and the cache starts at 16
 * slots and grows by 16: the same shapes give the same logits, bit for bit, as the app's ONNX backend. As Python's
 * beam search does, [stepAll] runs the hypotheses of a source as the rows of one decode_step when the graphs have
 * a batch dimension.
 *
 * Thread safety: one instance may serve several threads at once (ONNX Runtime's sessions may be run
 * concurrently); each decoder state belongs to one decode on one thread.
 *
 * Made from the graphs' files ([open], or the File constructor) or their bytes (an Android asset read whole).
 *
 * @param threads ONNX Runtime's intra-op threads (1: one core per decode).
 */
class OnnxRuntime private constructor(
    private val manifest: ExportManifest,
    threads: Int,
    load: (OrtEnvironment, OrtSession.SessionOptions, Boolean) -> OrtSession,
) : Runtime {
    /** The runtime over the encode and decode_step graphs' files. */
    constructor(encodeModel: File, stepModel: File, manifest: ExportManifest, threads: Int = 1) :
        this(manifest, threads, { env, options, encoder ->
            env.createSession((if (encoder) encodeModel else stepModel).path, options)
        })

    /** The runtime over the encode and decode_step graphs' bytes. */
    constructor(encodeModel: ByteArray, stepModel: ByteArray, manifest: ExportManifest, threads: Int = 1) :
        this(manifest, threads, { env, options, encoder ->
            env.createSession(if (encoder) encodeModel else stepModel, options)
        })

    private val environment: OrtEnvironment = OrtEnvironment.getEnvironment()
    private val encoder: OrtSession = load(environment, sessionOptions(threads), true)
    private val stepper: OrtSession = try {
        load(environment, sessionOptions(threads), false)
    } catch (error: Throwable) {
        encoder.close()
        throw error
    }
    private val cache = OnnxCache(environment, manifest)

    init {
        try {
            checkGraphs()
        } catch (error: Throwable) {
            close()
            throw error
        }
    }

    /** [IllegalArgumentException] unless encode writes and decode_step takes the manifest's tensors, of its fixed
     * sizes, and decode_step writes its vocabulary's logits: another model's graph would fail only at the first
     * step, in ONNX Runtime. A size ONNX leaves open (-1) takes any. */
    private fun checkGraphs() {
        val encoded = encoder.outputInfo.keys.sorted()
        require(encoded == manifest.encodeOutputs.sorted()) {
            "encode writes ${encoded.size} tensors, not the manifest's ${manifest.encodeOutputs.size}"
        }
        val inputs = stepper.inputInfo
        val caches = inputs.keys.filter { it.startsWith("cache_") }.sorted()
        require(caches == manifest.cacheInputs.keys.sorted()) {
            "decode_step's cache inputs (${caches.size}) are not the manifest's (${manifest.cacheInputs.size})"
        }
        for ((name, expected) in manifest.cacheInputs) {
            val shape = (inputs.getValue(name).info as? TensorInfo)?.shape ?: continue
            val fits = shape.size == expected.size && expected.indices.all {
                val size = expected[it]
                size !is Number || shape[it] < 0 || size.toLong() == shape[it]
            }
            require(fits) { "decode_step's $name has the shape ${shape.toList()}, the manifest's $expected" }
        }
        val logits = (stepper.outputInfo["logits"]?.info as? TensorInfo)?.shape?.lastOrNull() ?: -1
        require(logits < 0 || logits == manifest.vocabSize.toLong()) {
            "decode_step writes $logits logits, the manifest's vocabulary has ${manifest.vocabSize}"
        }
    }

    override val maxSourceLen get() = manifest.maxSourceLen
    override val maxTargetLen get() = manifest.maxTargetLen
    override val specialIds get() = manifest.specialIds

    private fun sessionOptions(threads: Int): OrtSession.SessionOptions {
        val options = OrtSession.SessionOptions()
        options.setIntraOpNumThreads(threads)
        options.setInterOpNumThreads(1)
        options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL)
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT)
        options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR)
        // as Python: worker threads that spin between steps burn the CPU the rest of the app needs
        options.addConfigEntry("session.intra_op.allow_spinning", "0")
        return options
    }

    override fun encode(sourceIds: IntArray): DecoderState {
        val length = sourceLength(sourceIds.size, maxSourceLen, manifest.fixedSource)
        val source = padSource(sourceIds, length, specialIds.pad)
        val result = OnnxTensor.createTensor(environment, IntBuffer.wrap(source), longArrayOf(1, length.toLong()))
            .use { encoder.run(mapOf("source_ids" to it)) }
        val encoded = Encoded(result, manifest.encodeOutputs.associateWith { result.get(it).get() as OnnxTensor })
        return try {
            OnnxState(CacheRow(cache.empty(), 0), encoded)
        } catch (error: Throwable) {
            result.close()
            throw error
        }
    }

    override fun step(state: DecoderState, token: Int, position: Int): StepResult {
        val current = live(state)
        val fed = cache.withCapacity(current.cache, position)
        val inputs = HashMap<String, OnnxTensor>(current.encoded.tensors)
        inputs.putAll(fed.tensors)
        val scalars = listOf(
            OnnxTensor.createTensor(environment, IntBuffer.wrap(intArrayOf(token)), longArrayOf(1)),
            OnnxTensor.createTensor(environment, IntBuffer.wrap(intArrayOf(position)), longArrayOf()),
        )
        val result = try {
            inputs["tokens"] = scalars[0]
            inputs["position"] = scalars[1]
            stepper.run(inputs)
        } finally {
            scalars.forEach { it.close() }
            if (fed !== current.cache.cache) fed.lease.free()
        }
        val logits = FloatArray(manifest.vocabSize)
        try {
            (result.get("logits").get() as OnnxTensor).floatBuffer.get(logits)
        } catch (error: Throwable) {
            result.close()
            throw error
        }
        val next = cache.fromOutputs(result, fed.slots)
        current.cache.lease.free() // the new state replaces this one
        current.alive = false
        return StepResult(logits, OnnxState(CacheRow(next, 0), current.encoded))
    }

    /**
     * One decode_step of all `states` (of one [encode]) as its rows when the graphs take a batch
     * ([ExportManifest.batchable]): their caches gathered into one, the encoder's outputs repeated per row (Python's
     * GraphState.reorder and select). Else, or for one state, a [step] each. If it throws, the states are intact.
     */
    override fun stepAll(states: MutableList<DecoderState>, tokens: IntArray, position: Int): List<FloatArray> {
        if (states.size == 1 || !manifest.batchable) return super.stepAll(states, tokens, position)
        require(tokens.size == states.size) { "${states.size} states, ${tokens.size} tokens" }
        val current = states.map(::live)
        val encoded = current[0].encoded
        require(current.all { it.encoded === encoded } && current.toSet().size == current.size) {
            "only distinct states of one source are stepped together"
        }
        val fed = cache.gathered(current.map { it.cache }, position)
        val (next, logits) = try {
            stepRows(fed, encoded.repeated(states.size), tokens, position)
        } finally {
            fed.lease.free()
        }
        for ((row, state) in current.withIndex()) {
            state.cache.lease.free() // the new states replace these
            state.alive = false
            states[row] = OnnxState(CacheRow(next, row), encoded)
        }
        return logits
    }

    /** decode_step on the rows of `fed`: the cache it writes (held once per row) and each row's logits. */
    private fun stepRows(
        fed: CacheTensors,
        encoder: Map<String, OnnxTensor>,
        tokens: IntArray,
        position: Int,
    ): Pair<CacheTensors, List<FloatArray>> {
        val rows = tokens.size
        val vocab = manifest.vocabSize
        val next = cache.forOutputs(rows, fed.slots)
        val logits = floats(rows * vocab)
        val made = ArrayList<OnnxTensor>()
        try {
            made += OnnxTensor.createTensor(environment, IntBuffer.wrap(tokens), longArrayOf(rows.toLong()))
            made += OnnxTensor.createTensor(environment, IntBuffer.wrap(intArrayOf(position)), longArrayOf())
            made += OnnxTensor.createTensor(environment, logits, longArrayOf(rows.toLong(), vocab.toLong()))
            val inputs = HashMap<String, OnnxTensor>(encoder)
            inputs.putAll(fed.tensors)
            inputs["tokens"] = made[0]
            inputs["position"] = made[1]
            // the outputs are written into buffers of ours, which the next gather reads without a copy
            val outputs = HashMap<String, OnnxTensor>()
            outputs["logits"] = made[2]
            for ((name, tensor) in next.tensors) outputs["new_$name"] = tensor
            stepper.run(inputs, outputs).close()
        } catch (error: Throwable) {
            next.lease.free()
            throw error
        } finally {
            made.forEach { it.close() }
        }
        repeat(rows - 1) { next.lease.retain() }
        return next to List(rows) { row -> FloatArray(vocab).also { logits.at(row * vocab).get(it) } }
    }

    override fun fork(state: DecoderState): DecoderState {
        val current = live(state)
        current.cache.lease.retain()
        return OnnxState(current.cache, current.encoded)
    }

    override fun drop(state: DecoderState) {
        val current = live(state)
        current.alive = false
        current.cache.lease.free()
    }

    override fun release(state: DecoderState) {
        drop(state)
        (state as OnnxState).encoded.close()
    }

    override fun close() {
        encoder.close()
        stepper.close()
    }

    private fun live(state: DecoderState): OnnxState {
        check(state is OnnxState && state.alive) { "not a live state of this runtime" }
        return state
    }

    /** The encoder's outputs for one source: source_mask, cross_k_<i>, cross_v_<i> (read-only). */
    private inner class Encoded(val result: OrtSession.Result, val tensors: Map<String, OnnxTensor>) {
        private val repeats = HashMap<Int, Map<String, OnnxTensor>>() // by row count

        /** The outputs repeated `rows` times along the batch, made once per row count (a decode's one thread). */
        fun repeated(rows: Int): Map<String, OnnxTensor> = repeats.getOrPut(rows) {
            val made = LinkedHashMap<String, OnnxTensor>()
            try {
                for ((name, tensor) in tensors) {
                    val values = tensor.floatBuffer
                    val buffer = floats(rows * values.capacity())
                    repeat(rows) { buffer.put(values.atStart()) }
                    val shape = tensor.info.shape.copyOf().also { it[0] = rows.toLong() }
                    made[name] = OnnxTensor.createTensor(environment, buffer.atStart(), shape)
                }
            } catch (error: Throwable) {
                made.values.forEach { it.close() }
                throw error
            }
            made
        }

        fun close() {
            repeats.values.forEach { outputs -> outputs.values.forEach { it.close() } }
            result.close()
        }
    }

    private class OnnxState(val cache: CacheRow, val encoded: Encoded) : DecoderState {
        @Volatile
        var alive = true
    }

    companion object {
        private fun floats(count: Int): FloatBuffer =
            ByteBuffer.allocateDirect(4 * count).order(ByteOrder.nativeOrder()).asFloatBuffer()

        /** The runtime over an export folder: encode.onnx, decode_step.onnx and manifest.json. */
        fun open(exportDir: File, threads: Int = 1): OnnxRuntime = OnnxRuntime(
            File(exportDir, "encode.onnx"), File(exportDir, "decode_step.onnx"),
            ExportManifest.read(File(exportDir, "manifest.json")), threads,
        )
    }
}
