package transformerstudio.runtime

import java.util.concurrent.atomic.AtomicInteger

/**
 * Native memory shared by several decoder states (a fork shares its parent's cache tensors: ONNX Runtime never
 * writes into its inputs): closed when the last state holding it lets go.
 */
internal class Lease(private val resource: AutoCloseable) {
    private val holders = AtomicInteger(1)

    /** One more state holds the resource. */
    fun retain(): Lease {
        check(holders.getAndIncrement() > 0) { "a freed decoder state was used" }
        return this
    }

    /** One state lets go; the last one closes the resource. */
    fun free() {
        val left = holders.decrementAndGet()
        check(left >= 0) { "a decoder state was freed twice" }
        if (left == 0) resource.close()
    }
}
