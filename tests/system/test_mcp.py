"""`studio launch --mcp`, run as a real process on loopback: `translate` and `chat` are its only MCP tools,
described and typed from their docstrings and signatures, and the real MCP Python client (streamable HTTP,
and SSE) gets from them what the HTTP API and the model itself give. Without --mcp there is no MCP endpoint."""

import asyncio
import re
import shutil
import subprocess
import sys
import threading
import time

import httpx
import pytest
from helpers import SAMPLED, app_client, free_port

pytest.importorskip("mcp", reason="the MCP client comes with the dev extra (gradio[mcp])")
from mcp import ClientSession  # noqa: E402
from mcp.client.sse import sse_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from studio.tasks import CHATBOT, TRANSLATOR  # noqa: E402
from studio.translation import finish_sentence  # noqa: E402
from studio.app_model import AppModel, Limits, decode_options  # noqa: E402
from studio.bundle import load_bundle  # noqa: E402
from studio.replies import find_reply  # noqa: E402

MESSAGE = "나는 커피를 좋아해?"
SENTENCE = "너는 영화를 봤어?"
LINES = "너는 영화를 봤어?\n그는 책을 샀어?"
CHAT_DEFAULTS = {"beam_size": 4, **{name: CHATBOT.default_decoding[name] for name in ("temperature", "top_k", "top_p")}}


@pytest.fixture(scope="module")
def bundle(tiny_bundle, tmp_path_factory):
    """A private copy of the tiny bundle's model files (the server may write next to them)."""
    target = tmp_path_factory.mktemp("mcp") / "bundle"
    shutil.copytree(tiny_bundle, target, ignore=shutil.ignore_patterns("exports", "checkpoints", "tensorboard"))
    return target


@pytest.fixture(scope="module")
def server(bundle):
    """`studio launch --mcp` on the tiny bundle (both tabs, TF backend): (its MCP URL, its port, its output)."""
    port = free_port()
    command = [sys.executable, "-m", "studio.cli", "launch", "--mcp", "--backend", "tf", "--port", str(port),
               "--chatbot", str(bundle), "--translator", str(bundle)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               encoding="utf-8", errors="replace")
    output: list[str] = []

    def read():
        for line in process.stdout:
            output.append(line)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 180
    url = None
    while url is None and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        found = [re.search(r"MCP server \(streamable HTTP\): (\S+)", line) for line in list(output)]
        url = next((match.group(1) for match in found if match), None)
    try:
        assert url, f"no MCP URL printed by {' '.join(command)}:\n{''.join(output)}"
        yield url, port, output
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def with_session(url: str, work, transport=streamable_http_client):
    """Run `work(session)` in a fresh MCP client session (streamable HTTP, or `sse_client`); return its result."""
    async def main():
        async with transport(url) as streams:
            async with ClientSession(*streams[:2]) as session:
                await session.initialize()
                return await work(session)

    return asyncio.run(main())


def texts(result) -> list[str]:
    assert not result.isError, result.content
    return [item.text for item in result.content]


def test_the_mcp_url_is_printed_at_start(server):
    url, port, output = server
    assert url == f"http://127.0.0.1:{port}/gradio_api/mcp/"
    assert any("tools: translate, chat" in line or "tools: chat, translate" in line for line in output)


def test_only_translate_and_chat_are_tools_with_described_typed_parameters(server):
    async def list_tools(session):
        return {tool.name: tool for tool in (await session.list_tools()).tools}

    tools = with_session(server[0], list_tools)
    assert sorted(tools) == ["chat", "translate"]  # not compare, translate_file, translate_scored, ...

    translate = tools["translate"]
    assert translate.description.startswith("Translate Korean text to English")
    assert "Returns: The English translation, line for line" in translate.description
    schema = translate.inputSchema
    assert list(schema["properties"]) == ["text", "backend", "strategy", "beam_size", "glossary", "protect"]
    assert schema["required"] == ["text"]
    properties = schema["properties"]
    assert properties["text"]["type"] == "string" and "Korean text, one or more lines" in properties["text"]["description"]
    assert properties["backend"]["type"] == "string" and properties["backend"]["default"] == "tf"
    assert "onnx-int8" in properties["backend"]["description"]
    assert properties["strategy"]["default"] == TRANSLATOR.default_decoding["strategy"] == "beam"
    assert '"greedy"' in properties["strategy"]["description"]
    assert properties["beam_size"]["type"] == "integer" and properties["beam_size"]["default"] == 4
    assert "number of beams" in properties["beam_size"]["description"]
    assert properties["glossary"]["type"] == "string" and "korean<TAB>english" in properties["glossary"]["description"]
    assert properties["protect"]["type"] == "boolean" and properties["protect"]["default"] is True

    chat = tools["chat"]
    assert chat.description.startswith("Reply to one Korean message")
    schema = chat.inputSchema
    assert list(schema["properties"]) == ["text", "backend", "strategy", "beam_size", "temperature", "top_k",
                                          "top_p", "seed", "reply"]
    assert schema["required"] == ["text"]
    properties = schema["properties"]
    assert properties["temperature"]["type"] == "number" and properties["temperature"]["default"] == 0.7
    assert properties["top_k"]["type"] == "integer" and properties["top_p"]["type"] == "number"
    assert {"type": "integer"} in properties["seed"]["oneOf"] and {"type": "null"} in properties["seed"]["oneOf"]
    for name, words in {"text": "in Korean", "strategy": '"sample"', "temperature": "sampling temperature",
                        "top_k": "k most likely", "top_p": "top_p", "seed": "same seed",
                        "reply": "stored reply"}.items():
        assert words in properties[name]["description"], name

    async def call_over_sse(session):
        return sorted(tool.name for tool in (await session.list_tools()).tools), \
            await session.call_tool("chat", {"text": MESSAGE, **SAMPLED, "reply": "generate"})

    names, sampled = with_session(server[0] + "sse", call_over_sse, transport=sse_client)  # the older transport
    assert names == ["chat", "translate"] and len(texts(sampled)) == 2 and texts(sampled)[0]


def test_tools_answer_what_the_model_and_the_http_api_answer(server, bundle):
    url, port, _ = server

    progress = []

    async def on_progress(step, total, message):
        progress.append(message)

    async def calls(session):
        return [await session.call_tool("translate", {"text": SENTENCE}),
                await session.call_tool("translate", {"text": LINES, "strategy": "beam", "beam_size": 2}),
                await session.call_tool("chat", {"text": MESSAGE}),
                await session.call_tool("chat", {"text": MESSAGE, **SAMPLED, "reply": "generate"}),
                await session.call_tool("chat", {"text": MESSAGE, **SAMPLED, "reply": "generate"},
                                        progress_callback=on_progress),
                await session.call_tool("chat", {"text": "   "}),
                await session.call_tool("compare", {"text": MESSAGE})]

    sentence, lines, greedy, sampled, with_progress, blank, compare = with_session(url, calls)

    limits = Limits()
    translator = AppModel("translator", bundle, limits).generator("tf")
    chatbot = AppModel("chatbot", bundle, limits).generator("tf")
    translation, latency = texts(sentence)
    raw = list(translator.stream(SENTENCE, decode_options(**TRANSLATOR.default_decoding)))[-1][0]
    assert translation == finish_sentence(SENTENCE, raw)  # capitalized, the source's final mark
    assert latency.startswith("tf") and "ms/token" in latency
    reply, latency = texts(greedy)  # by default, a stored reply
    stored = find_reply(load_bundle(bundle).replies, MESSAGE)
    assert reply == stored.text and latency.startswith("stored reply · match")
    reply, _ = texts(sampled)
    assert reply and reply == list(chatbot.stream(MESSAGE, decode_options(**CHAT_DEFAULTS, **SAMPLED)))[-1][0]
    assert texts(with_progress)[0] == reply and progress  # a client that asks for progress gets the same

    client = app_client(f"http://127.0.0.1:{port}/")
    assert texts(lines)[0] == client.predict(LINES, "tf", "beam", 2, api_name="/translate")[0]
    assert texts(lines)[0].count("\n") == 1  # line for line
    assert texts(sampled)[0] == client.predict(MESSAGE, strategy="sample", seed=1, reply="generate",
                                               api_name="/chat")[0]

    assert blank.isError and "type something" in blank.content[0].text.lower()  # the API's own message
    assert compare.isError and "Unknown tool" in compare.content[0].text  # not a tool, so not callable either


def test_without_mcp_there_is_no_mcp_endpoint_and_mcp_refuses_a_password(bundle, monkeypatch):
    from studio.errors import StudioError
    from studio.ui.app import launch

    monkeypatch.setenv("GRADIO_MCP_SERVER", "true")  # Gradio's own switch: `launch` decides, not the environment
    messages = []
    app = launch(bundle, bundle, port=free_port(), backend="tf", prevent_thread_lock=True, progress=messages.append)
    try:
        assert app.mcp_server_obj is None and not any("MCP" in message for message in messages)
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "test", "version": "0"}}}
        for path in ("gradio_api/mcp/", "gradio_api/mcp/sse"):
            response = httpx.post(f"{app.local_url}{path}", json=initialize,
                                  headers={"Accept": "application/json, text/event-stream"}, timeout=30)
            assert response.status_code == 404, (path, response.status_code, response.text[:200])
        assert httpx.get(f"{app.local_url}gradio_api/info", timeout=30).status_code == 200  # the app itself is up
    finally:
        app.close()

    with pytest.raises(StudioError, match="--auth"):
        launch(bundle, bundle, port=free_port(), backend="tf", auth=[("user", "password")], prevent_thread_lock=True,
               progress=messages.append, mcp=True)
