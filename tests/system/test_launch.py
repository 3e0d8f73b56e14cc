"""`studio launch` on bundles never exported: it serves at once and builds only the default backend."""

from helpers import free_port


def test_first_launch_serves_at_once_and_exports_only_the_default_backend(bundle_copy):
    from gradio_client import Client

    from studio.inference import TextGenerator
    from studio.ui.app import launch

    messages = []
    app = launch(bundle_copy, bundle_copy, port=free_port(), backend="tflite", prevent_thread_lock=True,
                 progress=messages.append)
    try:
        client = Client(app.local_url, verbose=False)
        reply, latency = client.predict("나는 커피를 좋아해?", "tflite", api_name="/chat")  # waits for its export
        assert latency.startswith("tflite")
        assert reply == TextGenerator.from_path(bundle_copy, "tf")("나는 커피를 좋아해?")
    finally:
        app.close()
    exported = sorted(p.name for p in (bundle_copy / "exports").iterdir() if not p.name.startswith("."))
    assert exported == ["manifest.json", "model.tflite"]  # the other backends wait until someone picks them
