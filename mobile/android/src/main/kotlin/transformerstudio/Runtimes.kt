package transformerstudio

import ai.onnxruntime.OrtException
import transformerstudio.runtime.ExportManifest
import transformerstudio.runtime.OnnxRuntime
import transformerstudio.runtime.Runtime
import java.nio.ByteBuffer

/** The runtime a package's manifest asks for: ONNX Runtime for encode/decode_step .onnx, LiteRT for a .tflite. */
internal object Runtimes {
    /** LiteRtRuntime is compiled with LiteRT's classes (src/litert/kotlin), which only an Android build has. */
    private const val LITERT_CLASS = "transformerstudio.runtime.LiteRtRuntime"

    fun open(files: ModelFiles, pkg: ModelPackage, threads: Int): Runtime =
        if (pkg.isLiteRt) liteRt(files, pkg, threads) else onnx(files, pkg, pkg.decodeStep!!, threads)

    private fun onnx(files: ModelFiles, pkg: ModelPackage, decodeStep: String, threads: Int): Runtime = try {
        val encode = files.file(pkg.model)
        val step = files.file(decodeStep)
        if (encode != null && step != null) OnnxRuntime(encode, step, pkg.graphs, threads)
        else OnnxRuntime(files.bytes(pkg.model), files.bytes(decodeStep), pkg.graphs, threads)
    } catch (error: OrtException) {
        throw ModelException("ONNX Runtime cannot load the graphs of ${files.description}: ${error.message}", error)
    } catch (error: IllegalArgumentException) {
        throw ModelException("the graphs of ${files.description} are not its manifest's model: ${error.message}", error)
    }

    private fun liteRt(files: ModelFiles, pkg: ModelPackage, threads: Int): Runtime {
        val type = try {
            Class.forName(LITERT_CLASS)
        } catch (error: ClassNotFoundException) {
            throw ModelException("${pkg.model} is a LiteRT model, and LiteRT runs on Android only: on the JVM use an " +
                "ONNX package (studio export --target android --variant onnx)", error)
        }
        val buffer = files.buffer(pkg.model)
        return try {
            type.getConstructor(ByteBuffer::class.java, ExportManifest::class.java, Int::class.javaPrimitiveType)
                .newInstance(buffer, pkg.graphs, threads) as Runtime
        } catch (error: java.lang.reflect.InvocationTargetException) {
            throw ModelException("LiteRT cannot load ${pkg.model} of ${files.description}: ${error.targetException.message}",
                error.targetException)
        }
    }
}
