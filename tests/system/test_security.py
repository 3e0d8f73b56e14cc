"""Who can reach the app, what it accepts, and what it reads: loopback by default, explicit consent to
serve publicly without a password, no file outside Gradio's uploads can be read or deleted through the API."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from typer.testing import CliRunner

from studio.cli import app as cli
from studio.errors import StudioError


@pytest.fixture
def launched(monkeypatch):
    """Record what `studio launch` would serve instead of serving it."""
    calls = []
    monkeypatch.setattr("studio.ui.app.launch", lambda *args, **kwargs: calls.append(args))
    return calls


@pytest.mark.parametrize("args", [["--share"], ["--host", "0.0.0.0"], ["--host", "192.168.1.5"]])
def test_public_serving_without_a_password_needs_explicit_consent(launched, args):
    result = CliRunner().invoke(cli, ["launch", *args])
    assert isinstance(result.exception, StudioError) and "--yes-public" in str(result.exception)
    assert "WARNING" in result.output and not launched
    consented = CliRunner().invoke(cli, ["launch", *args, "--yes-public"])
    assert consented.exit_code == 0 and len(launched) == 1


def test_public_serving_with_a_password_needs_no_consent_and_loopback_is_the_default(launched, tmp_path):
    assert CliRunner().invoke(cli, ["launch", "--host", "0.0.0.0", "--auth", "ann:secret"]).exit_code == 0
    users = tmp_path / "users.txt"
    users.write_text("ann:secret\nbob:hunter2\n", encoding="utf-8")
    assert CliRunner().invoke(cli, ["launch", "--share", "--auth-file", str(users)]).exit_code == 0
    assert CliRunner().invoke(cli, ["launch"]).exit_code == 0
    host, share, credentials = launched[0][2], launched[1][4], launched[1][5]
    assert host == "0.0.0.0" and share and credentials == [("ann", "secret"), ("bob", "hunter2")]
    assert launched[2][2] == "127.0.0.1"  # loopback unless told otherwise
    users.write_text("no colon here\n", encoding="utf-8")
    bad = CliRunner().invoke(cli, ["launch", "--auth-file", str(users)])
    assert isinstance(bad.exception, StudioError) and "users.txt:1" in str(bad.exception)


def _status(url: str) -> int:
    try:
        return urllib.request.urlopen(url, timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.parametrize("path", ["/etc/passwd", "../../../../etc/passwd", "..%2F..%2F..%2F..%2Fetc%2Fpasswd",
                                  "%2Fetc%2Fpasswd", "/proc/self/environ"])
def test_no_file_outside_the_app_can_be_downloaded(app_url, path):
    assert _status(f"{app_url.rstrip('/')}/gradio_api/file={path}") in (403, 404)


def test_the_file_translator_reads_and_deletes_only_gradio_uploads(app_url, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("커피는 필요 없다.\n", encoding="utf-8")
    info = json.load(urllib.request.urlopen(f"{app_url.rstrip('/')}/gradio_api/info", timeout=30))
    settings = [p["parameter_default"] for p in info["named_endpoints"]["/translate_file"]["parameters"][1:]]
    for target in (str(secret), f"{tmp_path}/../{tmp_path.name}/secret.txt", "/etc/passwd"):
        body = {"data": [{"path": target, "meta": {"_type": "gradio.FileData"}}, *settings]}
        request = urllib.request.Request(f"{app_url.rstrip('/')}/gradio_api/call/translate_file", json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            event = json.load(urllib.request.urlopen(request, timeout=30))["event_id"]
            stream = urllib.request.urlopen(f"{app_url.rstrip('/')}/gradio_api/call/translate_file/{event}", timeout=60).read()
        except urllib.error.HTTPError as error:
            stream = error.read()
        assert b"event: complete" not in stream and b"event: error" in stream, (target, stream)  # refused
    assert secret.read_text(encoding="utf-8") == "커피는 필요 없다.\n"  # and not deleted
