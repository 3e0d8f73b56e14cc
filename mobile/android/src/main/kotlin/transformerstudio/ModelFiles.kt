package transformerstudio

import java.io.File
import java.io.IOException
import java.io.RandomAccessFile
import java.nio.ByteBuffer
import java.nio.channels.FileChannel

/**
 * Where a model package's files come from, by their path in the package ("manifest.json", "model/encode.onnx"):
 * a folder ([folder]), or an Android app's assets (AssetModelFiles, in the Android glue). Implementations must
 * be safe to read from several threads.
 */
interface ModelFiles {
    /** What the files are, for error messages ("the folder /data/model"). */
    val description: String

    /** Whether the package has [path]. */
    fun exists(path: String): Boolean

    /** The whole content of [path]; throws [ModelException] when it is missing or unreadable. */
    fun bytes(path: String): ByteArray

    /** The content of [path] as a buffer LiteRT can read in place: memory-mapped where the files allow it. */
    fun buffer(path: String): ByteBuffer {
        val content = bytes(path)
        return ByteBuffer.allocateDirect(content.size).put(content).rewind()
    }

    /** [path] as a local file when it is one (ONNX Runtime then reads it itself), else null. */
    fun file(path: String): File? = null

    companion object {
        /** The files of a package folder on disk. */
        fun folder(dir: File): ModelFiles = FolderModelFiles(dir)
    }
}

/** A package folder on disk; the .tflite is memory-mapped. */
internal class FolderModelFiles(private val dir: File) : ModelFiles {
    override val description: String get() = "the folder $dir"

    override fun exists(path: String) = File(dir, path).isFile

    override fun bytes(path: String): ByteArray = try {
        require(path).readBytes()
    } catch (error: IOException) {
        throw ModelException("cannot read $path in $description: ${error.message}", error)
    }

    override fun buffer(path: String): ByteBuffer = try {
        RandomAccessFile(require(path), "r").use { it.channel.map(FileChannel.MapMode.READ_ONLY, 0, it.length()) }
    } catch (error: IOException) {
        throw ModelException("cannot map $path in $description: ${error.message}", error)
    }

    override fun file(path: String): File = require(path)

    private fun require(path: String): File = File(dir, path).takeIf { it.isFile }
        ?: throw ModelException("$description has no $path: is it an exported model package (studio export)?")
}
