"""Import TensorFlow without its C++ start-up chatter (oneDNN notice, "Could not find cuda drivers",
cuInit errors on machines without a GPU). TF_CPP_MIN_LOG_LEVEL does not silence these lines in
TF 2.21: absl prints them before its logging is initialised. The import and first device query run
with file descriptor 2 pointed at a temporary file, which is replayed if anything goes wrong.
Set STUDIO_TF_LOGS=1 to see everything."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading

_STDERR_LOCK = threading.Lock()


@contextlib.contextmanager
def quiet_stderr():
    """Silence native libraries' stderr (e.g. LiteRT's "Created TensorFlow Lite XNNPACK delegate")
    for the duration of the block. Errors still surface as Python exceptions."""
    if os.environ.get("STUDIO_TF_LOGS"):
        yield
        return
    with _STDERR_LOCK:
        sys.stderr.flush()
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(devnull)


def import_tensorflow_quietly():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if os.environ.get("STUDIO_TF_LOGS") or "tensorflow" in sys.modules:
        import tensorflow as tf  # deferred: importing TensorFlow is what this function does

        return tf
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as captured:
        os.dup2(captured.fileno(), 2)
        try:
            import tensorflow as tf  # deferred: TensorFlow may not be imported yet

            tf.config.list_physical_devices()
        except BaseException:
            os.dup2(saved, 2)
            captured.seek(0)
            sys.stderr.write(captured.read().decode("utf-8", "replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return tf
