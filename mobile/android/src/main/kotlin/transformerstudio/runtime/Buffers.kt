package transformerstudio.runtime

import java.nio.Buffer

// Buffer's own position/rewind, not the covariant overrides Java 9 added to ByteBuffer and FloatBuffer: code
// compiled on JDK 17 that calls those fails with NoSuchMethodError on older Android versions.

/** This buffer with its position at 0. */
internal fun <T : Buffer> T.atStart(): T {
    (this as Buffer).rewind()
    return this
}

/** This buffer with its position at `position`. */
internal fun <T : Buffer> T.at(position: Int): T {
    (this as Buffer).position(position)
    return this
}
