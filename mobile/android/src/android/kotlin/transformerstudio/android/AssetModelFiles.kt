// Android only (android.content.res): compiled by build.gradle.kts, never by the JVM build. NOT COMPILED HERE: the
// machine this was written on has no Android SDK.
package transformerstudio.android

import android.content.res.AssetManager
import transformerstudio.ModelException
import transformerstudio.ModelFiles
import java.io.FileInputStream
import java.io.FileNotFoundException
import java.io.IOException
import java.nio.ByteBuffer
import java.nio.channels.FileChannel

/**
 * A model package in an app's assets, under [folder] ("model" for app/src/main/assets/model/):
 * `Translator.open(AssetModelFiles(context.assets, "model"))`.
 *
 * A .tflite stored uncompressed (androidResources.noCompress += "tflite") is memory-mapped from the APK, not
 * copied; a compressed one is read whole into memory. ONNX graphs are read whole (ONNX Runtime takes bytes).
 * Safe to read from several threads (AssetManager is).
 */
class AssetModelFiles(private val assets: AssetManager, private val folder: String) : ModelFiles {
    override val description: String get() = "the app's assets folder \"$folder\""

    override fun exists(path: String): Boolean = try {
        assets.open(full(path)).close()
        true
    } catch (error: IOException) {
        false
    }

    override fun bytes(path: String): ByteArray = try {
        assets.open(full(path)).use { it.readBytes() }
    } catch (error: IOException) {
        throw ModelException("$description has no readable $path: is an exported model package there?", error)
    }

    override fun buffer(path: String): ByteBuffer = try {
        assets.openFd(full(path)).use { descriptor ->
            FileInputStream(descriptor.fileDescriptor).channel.use { channel ->
                channel.map(FileChannel.MapMode.READ_ONLY, descriptor.startOffset, descriptor.declaredLength)
            }
        }
    } catch (compressed: FileNotFoundException) { // openFd refuses a compressed asset: read it whole instead
        super.buffer(path)
    } catch (error: IOException) {
        throw ModelException("cannot map $path of $description: ${error.message}", error)
    }

    private fun full(path: String) = if (folder.isEmpty()) path else "$folder/$path"
}
