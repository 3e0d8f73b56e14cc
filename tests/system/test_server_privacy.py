"""The server calls no one: `studio launch` is run with a guard (tests/netguard/sitecustomize.py) that refuses and
records every connection and name look-up off this computer (the page's own requests: test_privacy.py)."""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from helpers import app_client, free_port


def test_the_server_calls_no_one_while_it_starts_and_serves_chat_translate_and_the_api(exported, tmp_path):
    """`studio launch` run with a guard (tests/netguard/sitecustomize.py) that refuses and records every connection
    and name look-up off this computer: none while it starts, the page loads, Chat and Translate answer through
    Gradio's API and the LibreTranslate API answers (Gradio's analytics asked api.gradio.app and huggingface.co)."""
    log, port = tmp_path / "outside.log", free_port()
    guard = Path(__file__).resolve().parents[1] / "netguard"
    env = {**os.environ, "STUDIO_NET_LOG": str(log), "STUDIO_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": os.pathsep.join([str(guard), os.environ.get("PYTHONPATH", "")])}
    env.pop("GRADIO_ANALYTICS_ENABLED", None)  # as on a user's machine
    command = [sys.executable, "-m", "studio.cli", "launch", "--backend", "tflite", "--port", str(port),
               "--chatbot", str(exported[0]), "--translator", str(exported[0])]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                               encoding="utf-8", errors="replace")
    output: list[str] = []
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 180
        while not (any("Running on" in line for line in list(output)) and any("tflite ready" in line for line in
                                                                               list(output))):
            assert process.poll() is None, "".join(output)
            assert time.monotonic() < deadline, "".join(output)
            time.sleep(0.2)
        url = f"http://127.0.0.1:{port}/"
        assert "Transformer Studio" in urllib.request.urlopen(url, timeout=30).read().decode("utf-8")
        client = app_client(url)
        assert client.predict("나는 커피를 좋아해?", api_name="/chat")[0]
        assert client.predict("나는 커피를 좋아해?", api_name="/translate")[0]
        request = urllib.request.Request(f"{url}translate", data=json.dumps(
            {"q": "나는 커피를 좋아해?", "source": "ko", "target": "en"}).encode(), headers={
                "Content-Type": "application/json"})
        assert json.loads(urllib.request.urlopen(request, timeout=60).read())["translatedText"]
        time.sleep(2)  # what a background thread would send after the requests
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert process.returncode is not None
    assert not log.exists(), f"the server reached beyond this computer:\n{log.read_text(encoding='utf-8')[:3000]}"
