package transformerstudio.runtime

import org.tensorflow.lite.Interpreter
import java.io.File
import java.nio.ByteBuffer
import java.nio.ByteOrder

/**
 * [Runtime] over a batch-1 `.tflite` (`model.b1*.tflite`: every shape static) with LiteRT's `Interpreter` and its
 * signature runners: encode/decode_step, and encode_<L>/decode_step_<L> for shorter sources (a source is padded to
 * the shortest L that holds it, as studio/runtimes/tflite_runtime.py and web/src/litert_runtime.js do).
 *
 * The `Interpreter` (package org.tensorflow.lite) comes in `com.google.ai.edge.litert:litert` (LiteRT 1.x/2.x, its
 * "Interpreter API", CPU) and, before the rename, in `org.tensorflow:tensorflow-lite`; the calls used here
 * (runSignature, getSignatureKeys, getSignatureOutputs, get{Input,Output}TensorFromSignature) are in both.
 * LiteRT copies inputs in before it runs and outputs out after, so a step writes the new cache into the buffers
 * it read the old one from: no allocation per step.
 *
 * Thread safety: an Interpreter is not thread-safe, so every call is serialized on it: share one instance and its
 * calls wait for each other, or give each thread its own.
 *
 * @param model the .tflite file (memory-mapped by LiteRT) ; see the other constructor for a mapped asset.
 */
class LiteRtRuntime(model: ByteBuffer, private val manifest: ExportManifest, threads: Int = 1) : Runtime {
    constructor(model: File, manifest: ExportManifest, threads: Int = 1) : this(mapped(model), manifest, threads)

    private val interpreter = Interpreter(model, Interpreter.Options().setNumThreads(threads))
    private val buckets: List<Int>
    private val logitsBuffer: ByteBuffer
    private val tokenBuffer = direct(4)
    private val positionBuffer = direct(4)

    override val maxSourceLen get() = manifest.maxSourceLen
    override val maxTargetLen get() = manifest.maxTargetLen
    override val specialIds get() = manifest.specialIds

    init {
        val keys = interpreter.signatureKeys.toSet()
        require("encode" in keys && "decode_step" in keys) { "the .tflite has no encode/decode_step signatures" }
        buckets = keys.mapNotNull { Regex("encode_(\\d+)").matchEntire(it)?.groupValues?.get(1)?.toInt() }
            .filter { "decode_step_$it" in keys }.sorted()
        logitsBuffer = direct(interpreter.getOutputTensorFromSignature("logits", "decode_step").numBytes())
    }

    override fun encode(sourceIds: IntArray): DecoderState = synchronized(interpreter) {
        val length = buckets.firstOrNull { sourceIds.size <= it } ?: maxSourceLen
        val suffix = if (length < maxSourceLen) "_$length" else ""
        val source = direct(4 * length)
        padSource(sourceIds, length, specialIds.pad).forEach { source.putInt(it) }
        val signature = "encode$suffix"
        val encoded = interpreter.getSignatureOutputs(signature).associateWith {
            direct(interpreter.getOutputTensorFromSignature(it, signature).numBytes())
        }
        interpreter.runSignature(mapOf("source_ids" to source.atStart()), HashMap<String, Any>(encoded), signature)
        val step = "decode_step$suffix"
        val cache = manifest.cacheInputs.keys.associateWith {
            direct(interpreter.getInputTensorFromSignature(it, step).numBytes()) // zeros
        }
        LiteRtState(cache, encoded, step)
    }

    override fun step(state: DecoderState, token: Int, position: Int): StepResult = synchronized(interpreter) {
        val current = live(state)
        val inputs = HashMap<String, Any>()
        for ((name, buffer) in current.encoded) inputs[name] = buffer.atStart()
        for ((name, buffer) in current.cache) inputs[name] = buffer.atStart()
        inputs["tokens"] = tokenBuffer.putInt(0, token).atStart()
        inputs["position"] = positionBuffer.putInt(0, position).atStart()
        val outputs = HashMap<String, Any>()
        outputs["logits"] = logitsBuffer.atStart()
        for ((name, buffer) in current.cache) outputs["new_$name"] = buffer // written after the inputs are read
        interpreter.runSignature(inputs, outputs, current.step)
        val logits = FloatArray(manifest.vocabSize)
        logitsBuffer.atStart().asFloatBuffer().get(logits)
        current.alive = false
        StepResult(logits, LiteRtState(current.cache, current.encoded, current.step))
    }

    override fun fork(state: DecoderState): DecoderState {
        val current = live(state)
        val copies = current.cache.mapValues { (_, buffer) -> direct(buffer.capacity()).put(buffer.duplicate().atStart()) }
        return LiteRtState(copies, current.encoded, current.step)
    }

    override fun drop(state: DecoderState) {
        live(state).alive = false // direct buffers: the garbage collector frees them
    }

    override fun release(state: DecoderState) = drop(state)

    override fun close() = synchronized(interpreter) { interpreter.close() }

    private fun live(state: DecoderState): LiteRtState {
        check(state is LiteRtState && state.alive) { "not a live state of this runtime" }
        return state
    }

    private class LiteRtState(
        val cache: Map<String, ByteBuffer>,
        val encoded: Map<String, ByteBuffer>,
        /** decode_step or decode_step_<L>: the signature of the source's padded length. */
        val step: String,
    ) : DecoderState {
        @Volatile
        var alive = true
    }

    companion object {
        private fun direct(bytes: Int): ByteBuffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder())

        private fun mapped(file: File): ByteBuffer = java.io.RandomAccessFile(file, "r").use {
            it.channel.map(java.nio.channels.FileChannel.MapMode.READ_ONLY, 0, it.length())
        }

        /** The runtime over an export folder's batch-1 float16 .tflite and its manifest.json. */
        fun open(exportDir: File, threads: Int = 1, model: String = "model.b1.float16.tflite"): LiteRtRuntime =
            LiteRtRuntime(File(exportDir, model), ExportManifest.read(File(exportDir, "manifest.json")), threads)
    }
}
