// A sample Activity: the one-call API off the main thread. NOT COMPILED HERE (no Android SDK on the machine this
// was written on). Put it in an app module that depends on the library, with a model package's files under
// app/src/main/assets/model/ (stored uncompressed: androidResources { noCompress += listOf("tflite", "onnx") }).
package transformerstudio.sample

import android.app.Activity
import android.os.Bundle
import android.widget.TextView
import transformerstudio.InputException
import transformerstudio.ModelException
import transformerstudio.Translator
import transformerstudio.android.AssetModelFiles
import java.util.concurrent.Executors

class MainActivity : Activity() {
    // one thread for the model: opening it and translating block for a while
    private val worker = Executors.newSingleThreadExecutor()
    private var translator: Translator? = null

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val view = TextView(this)
        setContentView(view)
        worker.execute {
            val english = try {
                val opened = translator ?: Translator.open(AssetModelFiles(assets, "model")).also { translator = it }
                opened.translate("삼성전자는 3조 5천억 원을 투자했다.", onText = { soFar ->
                    runOnUiThread { view.text = soFar } // each finished sentence as it comes
                })
            } catch (error: InputException) { // empty input: the app's message
                error.message ?: ""
            } catch (error: ModelException) { // no package in assets/model, or a damaged one
                error.message ?: ""
            }
            runOnUiThread { view.text = english }
        }
    }

    override fun onDestroy() {
        worker.execute { translator?.close() } // after any translation in progress
        worker.shutdown()
        super.onDestroy()
    }
}
