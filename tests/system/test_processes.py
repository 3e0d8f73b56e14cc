"""The commands as separate processes: training killed with SIGKILL resumes from its last checkpoint; a broken
bundle is reported without a traceback; chat on an exported backend never loads TensorFlow."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid

from helpers import NO_XLA


def test_training_killed_with_sigkill_resumes_from_its_last_checkpoint(chat_csv, tmp_path):
    out = tmp_path / f"run-{uuid.uuid4().hex[:6]}"
    command = [sys.executable, "-m", "studio.cli", "train", "chatbot", "--data", str(chat_csv), "--out", str(out),
               "--set", "model.d_model=32", "--set", "model.num_heads=4", "--set", "model.d_ff=64",
               "--set", "model.num_layers=1", "--set", "tokenizer.vocab_size=300", "--set", "train.batch_size=8",
               "--set", "train.patience=1000", "--set", "train.keep_checkpoints=3", *NO_XLA]
    process = subprocess.Popen(command + ["--epochs", "500"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    latest = out / "checkpoints" / "latest.json"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and process.poll() is None:
        if latest.exists() and json.loads(latest.read_text())["checkpoint"] >= "ckpt-00000012":
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL

    from studio.train.checkpoints import CheckpointStore

    store = CheckpointStore(out / "checkpoints")
    newest = store.latest()
    assert newest is not None
    for checkpoint in store.all():  # every checkpoint in place is complete and readable
        state = json.loads((checkpoint / "state.json").read_text())
        assert state["step"] == int(checkpoint.name.split("-")[1])
    killed_at = json.loads((newest / "state.json").read_text())
    resumed = subprocess.run(command + ["--epochs", str(killed_at["epoch"] + 2), "--resume"], capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"Resumed from {newest}" in resumed.stdout + resumed.stderr
    history = json.loads((out / "metrics.json").read_text())["history"]
    epochs = [record["epoch"] for record in history]
    assert epochs == list(range(1, killed_at["epoch"] + 3))  # the curve continues, no gap, no repeat
    steps = [record["step"] for record in history]
    assert steps == sorted(set(steps)) and steps[killed_at["epoch"] - 1] == killed_at["step"]


def test_chat_with_a_broken_bundle_says_what_is_wrong(tmp_path):
    result = subprocess.run([sys.executable, "-m", "studio.cli", "chat", "--bundle", str(tmp_path)],
                            input="안녕\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "config.json: missing" in result.stderr and "Traceback" not in result.stderr


def test_chat_on_an_exported_backend_answers_without_loading_tensorflow(exported):
    """TensorFlow's import alone takes seconds: `studio chat` and `translate` import it only for the tf backends
    or to export, so on their default (an exported TFLite model) they answer at once; a stored reply (the chat's
    default) loads no runtime at all."""
    def chat(*options):
        return subprocess.run([sys.executable, "-X", "importtime", "-m", "studio.cli", "chat", "--bundle",
                               str(exported[0]), *options], input="나는 커피를 좋아해?\n", capture_output=True,
                              text=True, timeout=120)

    def imported(result):
        return {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time")}

    stored = chat()
    default, tf = chat("--reply", "generate"), chat("--backend", "tf", "--reply", "generate")
    assert default.returncode == 0 and tf.returncode == 0, default.stderr[-2000:] + tf.stderr[-2000:]
    assert "ai_edge_litert" in imported(default) and not {"tensorflow", "keras"} & imported(default)
    assert default.stdout == tf.stdout  # the same reply
    assert stored.returncode == 0 and stored.stdout.strip(), stored.stderr[-2000:]
    assert not {"tensorflow", "keras", "ai_edge_litert", "onnxruntime"} & imported(stored)
