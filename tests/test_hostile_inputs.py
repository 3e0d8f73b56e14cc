"""Hundreds of hostile inputs through every public entry point: the `generate` API, the CLI (chat and
translate), and each Gradio endpoint of a running app. Each gets a reply or a clear message; nothing
crashes, nothing leaks a traceback."""

from __future__ import annotations

import os
import re
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner
from pathlib import Path

from hostile import hostile_files, hostile_inputs
from studio.cli import app as cli
from studio.text import normalize
from studio.serving import InputError, Limits, check_text

INPUTS = hostile_inputs(300)
FILE_SETTINGS = ["greedy", 4, 1.0, 0.8, 0, 0.9, None, 64, 0]  # the Translate tab's decoding controls
GENERIC_ERROR = "has not enabled verbose error reporting"  # what Gradio says for an unexpected exception
CLEAR_MESSAGES = re.compile(r"type something|Korean text to translate|the limit is|nothing the model can read|nothing to read|"
                            r"Unknown backend|Invalid decoding settings|not valid UTF-8|NUL bytes|no text to translate|"
                            r"Please choose|exceeds the maximum file size")


def test_there_are_at_least_300_hostile_inputs_in_every_category():
    categories = {category.split("-")[0] for category, _ in INPUTS}
    assert len(INPUTS) >= 300
    assert {"empty", "emoji", "control", "surrogates_and_odd_unicode", "right_to_left", "html_js", "markdown",
            "sql_and_shell", "long_words", "numbers", "long_text", "mixed"} <= categories


@pytest.fixture(scope="module")
def generator(tiny_bundle):
    from studio.inference import TextGenerator

    return TextGenerator.from_path(tiny_bundle, "tf")


def test_generate_api_answers_every_hostile_input(generator):
    texts = [text for _, text in INPUTS]
    results = []
    for start in range(0, len(texts), 50):
        results += generator.generate(texts[start:start + 50])
    assert len(results) == len(texts)
    for (category, text), result in zip(INPUTS, results):
        assert isinstance(result.text, str), category
        if text.strip() and not normalize(text):  # nothing left to read: the reply says so
            assert any("no characters this model reads" in w for w in result.warnings), (category, text)


def test_streaming_answers_hostile_inputs_like_the_batch(generator):
    for _, text in INPUTS[::15]:
        streamed = list(generator.stream(text))[-1][0]
        assert streamed == generator.generate([text])[0].text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_any_text_gets_a_reply_or_a_clear_message(generator, tiny_bundle, text):
    try:
        check_text("chatbot", Limits(max_input_chars=200), text, generator.preprocessor.pipeline)
    except InputError as error:
        assert CLEAR_MESSAGES.search(str(error))
    assert isinstance(generator.generate([text])[0].text, str)


def _one_line(text: str) -> str:
    """A hostile input as one line of a pipe (a line cannot contain a line break)."""
    return re.sub(r"[\r\n]", " ", text)


@pytest.mark.parametrize("command", ["chat", "translate"])
def test_cli_answers_every_hostile_line_on_stdin(tiny_bundle, command):
    lines = [_one_line(text) for _, text in INPUTS]
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")  # lone surrogates arrive as invalid UTF-8
    result = CliRunner().invoke(cli, [command, "--bundle", str(tiny_bundle)], input=data)
    assert result.exit_code == 0, result.output[-2000:]
    assert "Traceback" not in result.output
    assert len(result.stdout.split("\n")) - 1 == len(lines)  # one output line per input line, in order
    for line, reply in zip(lines, result.stdout.split("\n")):
        if not line.strip():
            assert reply == ""


def test_cli_survives_invalid_utf8_on_stdin(tiny_bundle):
    result = CliRunner().invoke(cli, ["translate", "--bundle", str(tiny_bundle)], input=b"\xff\xfe\xfd\n\xc3\x28\n")
    assert result.exit_code == 0 and len(result.stdout.split("\n")) == 3


def test_cli_translates_hostile_arguments(tiny_bundle):
    for category, text in INPUTS[::40]:
        if "\x00" in text or category == "long_text":
            continue  # an operating system cannot pass NUL in an argument
        result = CliRunner().invoke(cli, ["translate", "--bundle", str(tiny_bundle), "--", text])
        assert result.exit_code == 0 and "Traceback" not in result.output


def test_cli_file_translator_rejects_bad_files_by_name(tiny_bundle, tmp_path):
    from studio.errors import StudioError

    for name, content in hostile_files().items():
        if name in ("huge.txt", "too_many_lines.txt"):
            continue  # on the command line these are legitimate (slow) work; the server limits them
        path = tmp_path / name
        path.write_bytes(content)
        result = CliRunner().invoke(cli, ["translate", "--bundle", str(tiny_bundle), "--file", str(path),
                                          "--out", str(tmp_path / f"{name}.en")])
        if result.exit_code == 0:
            lines = content.decode("utf-8-sig").replace("\r\n", "\n").split("\n")
            written = (tmp_path / f"{name}.en").read_text(encoding="utf-8").split("\n")
            assert len(written) == len(lines) + (not content.endswith(b"\n") and bool(content)), name
        else:
            # `studio` prints a StudioError as "error: <message>" without a traceback
            assert isinstance(result.exception, StudioError) and name in str(result.exception), (name, result)


@pytest.fixture(scope="module")
def hostile_app(tiny_bundle):
    from studio.ui.app import launch
    from helpers import free_port

    port = free_port()
    app = launch(tiny_bundle, tiny_bundle, port=port, backend="tf", max_input_chars=200,
                 prevent_thread_lock=True, progress=lambda _: None)
    yield app.local_url
    app.close()


def _call(client, *args, api_name):
    """('ok', result) or ('error', message) for one request."""
    if any(isinstance(a, str) and re.search("[\ud800-\udfff]", a) for a in args):
        return _raw_call(client.src, api_name, list(args))  # gradio_client cannot send lone surrogates
    try:
        return "ok", client.predict(*args, api_name=api_name)
    except Exception as error:  # gradio_client raises AppError (or ValueError) with the server's message
        return "error", f"{type(error).__name__}: {error}"


def _raw_call(url: str, api_name: str, data: list):
    """One request over Gradio's plain HTTP API; JSON escapes (\\ud800) deliver what no UTF-8 client can."""
    import json
    import urllib.request

    defaults = {"/chat": ["tf", "greedy", 4, 0.8, 0, 0.9, None], "/translate": ["tf", "greedy", 4],
                "/compare": ["chatbot"]}[api_name]
    data = data + defaults[len(data) - 1:]
    base = url.rstrip("/") + "/gradio_api/call" + api_name
    request = urllib.request.Request(base, data=json.dumps({"data": data}).encode("ascii"),
                                     headers={"Content-Type": "application/json"})
    event_id = json.load(urllib.request.urlopen(request, timeout=60))["event_id"]
    stream = urllib.request.urlopen(f"{base}/{event_id}", timeout=60).read().decode("utf-8", "replace")
    event = re.findall(r"^event: (\w+)", stream, re.M)[-1]
    payload = re.findall(r"^data: (.*)$", stream, re.M)[-1]
    if event == "complete":
        outputs = json.loads(payload)
        return "ok", outputs[0] if len(outputs) == 1 else outputs
    return "error", str(json.loads(payload) if payload.strip() not in ("", "null") else "")


@pytest.mark.parametrize("endpoint", ["/chat", "/translate"])
def test_every_gradio_endpoint_answers_every_hostile_input(hostile_app, endpoint):
    from gradio_client import Client

    local = threading.local()  # one client per user: a gradio_client Client is not meant to be shared by threads

    def call(text):
        if not hasattr(local, "client"):
            local.client = Client(hostile_app, verbose=False)
        return _call(local.client, text, api_name=endpoint)

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(call, [t for _, t in INPUTS]))
    client = Client(hostile_app, verbose=False)
    for (category, text), (status, value) in zip(INPUTS, outcomes):
        if status == "ok":
            assert isinstance(value[0], str) and "ms" in value[1], (category, text[:40])
        else:
            assert GENERIC_ERROR not in value and CLEAR_MESSAGES.search(value), (category, text[:40], value)
    assert sum(status == "ok" for status, _ in outcomes) > len(INPUTS) // 3  # most are answered, not refused
    assert _call(client, "나는 커피를 좋아해?", api_name=endpoint)[0] == "ok"  # and the server still works


def test_compare_endpoint_and_bad_settings_get_clear_messages(hostile_app):
    from gradio_client import Client

    client = Client(hostile_app, verbose=False)
    for _, text in INPUTS[::60]:
        status, value = _call(client, text, "chatbot", api_name="/compare")
        assert status == "ok" or (GENERIC_ERROR not in value and CLEAR_MESSAGES.search(value)), value
    for args in (("안녕", "no-such-backend"), ("안녕", "../../etc/passwd"), ("안녕", "tf", "beam", -3),
                 ("안녕", "tf", "shout"), ("안녕", "tf", "sample", 4, "hot"), ("안녕", "tf", "sample", 4, -1.0),
                 ("안녕", "tf", "sample", 4, 1.0, -5), ("안녕", "tf", "sample", 4, 1.0, 0, 7.0)):
        status, value = _call(client, *args, api_name="/chat")
        assert status == "error" and GENERIC_ERROR not in value and CLEAR_MESSAGES.search(value), (args, value)


def test_file_translator_endpoint_handles_bad_files_and_keeps_no_upload(hostile_app, tmp_path):
    from gradio_client import Client, handle_file

    client = Client(hostile_app, verbose=False)
    for name, content in hostile_files().items():
        path = tmp_path / name
        path.write_bytes(content)
        status, value = _call(client, handle_file(str(path)), "tf", *FILE_SETTINGS, api_name="/translate_file")
        if status == "ok":
            text = open(value, encoding="utf-8").read()
            assert text.count("\n") >= 1, name
        else:
            assert GENERIC_ERROR not in value and CLEAR_MESSAGES.search(value), (name, value)
            assert "gradio/" not in value  # the server's own paths never appear in a message
    # the server itself refuses an oversized upload, whatever the client checks
    import httpx

    response = httpx.post(hostile_app.rstrip("/") + "/gradio_api/upload",
                          files={"files": ("huge.txt", hostile_files()["huge.txt"], "text/plain")}, timeout=60)
    assert response.status_code == 413, response.status_code
    cache = Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio")
    kept = [p.name for p in cache.rglob("*") if p.name in hostile_files()]
    assert not kept, f"uploads left on the server: {kept}"
    assert _call(client, "나는 커피를 좋아해?", api_name="/chat")[0] == "ok"
