"""`studio launch`: on bundles never exported it serves at once and builds only the default backend; on the
shipped packs it never imports TensorFlow; idle, its queue polls gently; it keeps no summary of its traffic."""

from helpers import app_client, free_port


def test_first_launch_serves_at_once_and_exports_only_the_default_backend(bundle_copy):
    from studio.inference import TextGenerator
    from studio.ui.app import launch

    messages = []
    app = launch(bundle_copy, bundle_copy, port=free_port(), backend="tflite", prevent_thread_lock=True,
                 progress=messages.append)
    try:
        client = app_client(app.local_url)
        # the model's reply (a stored one needs no backend): waits for its export
        reply, latency = client.predict("나는 커피를 좋아해?", "tflite", reply="generate", api_name="/chat")
        assert latency.startswith("written by the model · tflite")
        assert reply == TextGenerator.from_path(bundle_copy, "tf")("나는 커피를 좋아해?")
    finally:
        app.close()
    exported = sorted(p.name for p in (bundle_copy / "exports").iterdir() if not p.name.startswith("."))
    assert exported == ["manifest.json", "model.tflite"]  # the other backends wait until someone picks them


def test_launch_on_the_shipped_packs_never_imports_tensorflow(tmp_path):
    """`studio launch` imports TensorFlow only when a backend or an export needs it: the command itself, the app and
    the shipped models' TFLite graphs (rebuilt from their packs) do not (its import was ~4 s of a first launch on
    2 cores)."""
    import os
    import subprocess
    import sys

    script = """
import sys
import studio.cli
import studio.ui.app
from studio.app_model import AppModel, Limits
def launch(*args, **kwargs):
    for task in ("chatbot", "translator"):
        AppModel(task, None, Limits(200)).generator("tflite")
    print("tensorflow imported:", "tensorflow" in sys.modules)
studio.ui.app.launch = launch
sys.argv = ["studio", "launch"]
studio.cli.main()
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "STUDIO_CACHE_DIR": str(tmp_path / "cache")})
    assert "tensorflow imported: False" in result.stdout, result.stdout + result.stderr


def test_an_idle_app_looks_for_new_events_every_10_ms_not_every_millisecond(tmp_path):
    """Gradio's queue polls every millisecond while idle (4.5% of a core here, all day); the app sets it gentler. A
    Gradio that renamed these settings would quietly poll as fast again: this test says so."""
    from studio.ui.app import launch
    from studio.ui.sessions import PROGRESS_POLL_S, QUEUE_POLL_S

    app = launch(tmp_path / "none", tmp_path / "none", port=free_port(), backend="tf", prevent_thread_lock=True,
                 progress=lambda _: None)
    try:
        assert app._queue.sleep_when_free >= QUEUE_POLL_S  # (Gradio's own default is slower on Windows)
        assert app._queue.progress_update_sleep_when_free >= PROGRESS_POLL_S
    finally:
        app.close()


def test_the_queue_keeps_no_summary_of_its_traffic_and_there_is_no_traffic_page(tmp_path, monkeypatch):
    """Gradio's queue summarised its last 10,000 events in a pandas table after every event (3 to 11 ms of CPU
    each here), for a monitoring page the app does not offer. A Gradio that renamed these settings would summarise
    again: this test says so."""
    import urllib.error
    import urllib.request

    from gradio.queueing import Queue

    from studio.ui.app import launch

    summarised = []
    monkeypatch.setattr(Queue, "_get_df", staticmethod(lambda records: summarised.append(len(records))))
    app = launch(tmp_path / "none", tmp_path / "none", port=free_port(), backend="tf", prevent_thread_lock=True,
                 progress=lambda _: None)
    try:
        client = app_client(app.local_url)
        for _ in range(3):
            assert "unavailable" in client.predict(api_name="/health")
        assert summarised == [] and len(app._queue.event_analytics) <= 1
        try:
            urllib.request.urlopen(f"{app.local_url}monitoring/summary", timeout=30)
            raise AssertionError("a traffic page is served")
        except urllib.error.HTTPError as error:
            assert error.code in (403, 404)
    finally:
        app.close()
