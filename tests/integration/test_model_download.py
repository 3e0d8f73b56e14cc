"""`studio import OWNER/NAME`: a Hugging Face model id downloaded into the user cache and imported, tested against
a loopback HTTP server that serves a tiny MarianMT folder (`marian_fixture`) as the Hub does
(`/{id}/resolve/main/{file}`, HTTP ranges); no network. A download cut short leaves no half file and goes on
from where it stopped; an unreachable Hub is an error that says how to import a downloaded folder instead."""

import http.server
import re
import threading

import numpy as np
import pytest
from helpers import free_port
from marian_fixture import POST_NORM, write_huggingface, write_release
from typer.testing import CliRunner

from studio import library
from studio.bundle import load_bundle
from studio.cli import app
from studio.errors import StudioError
from studio.importers import hub
from studio.importers.pretrained import import_pretrained, library_target

MODEL = "Helsinki-NLP/opus-mt-ko-en"


class Hub(http.server.ThreadingHTTPServer):
    """Files by URL path; `cut`: paths whose next response stops halfway (the connection closed); `requests`:
    (path, Range header) of each request."""

    def __init__(self, files: dict[str, bytes]):
        super().__init__(("127.0.0.1", free_port()), HubHandler)
        self.files, self.cut, self.requests = files, set(), []
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


class HubHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        self.server.requests.append((self.path, self.headers.get("Range")))
        body = self.server.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = int(re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "bytes=0-").group(1))
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if self.path in self.server.cut:
            self.server.cut.discard(self.path)
            self.wfile.write(body[start: start + (len(body) - start) // 2])
            self.close_connection = True
            return
        self.wfile.write(body[start:])

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    return write_huggingface(write_release(root / "release", POST_NORM), root / "opus-mt-ko-en", POST_NORM)


@pytest.fixture
def served(folder, monkeypatch, tmp_path):
    """The Hub serving `folder` as MODEL, and a user cache of this test's own."""
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    server = Hub({f"/{MODEL}/resolve/main/{path.name}": path.read_bytes() for path in folder.iterdir()})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_model_id_is_downloaded_into_the_user_cache_and_imported_as_its_folder_is(folder, served, tmp_path,
                                                                                 monkeypatch):
    monkeypatch.setattr(hub, "CHUNK", 4096)  # several chunks: the progress line counts them
    said = []
    import_pretrained(MODEL, tmp_path / "downloaded", hub_url=served.url, progress=said.append)
    import_pretrained(folder, tmp_path / "local", progress=lambda _: None)
    downloaded, local = load_bundle(tmp_path / "downloaded"), load_bundle(tmp_path / "local")
    for name, value in local.weights.items():
        np.testing.assert_array_equal(downloaded.weights[name], value)
    cached = hub.model_folder(MODEL)
    assert cached.is_relative_to(tmp_path / "cache") and not list(cached.glob("*.part"))
    assert {path.name for path in cached.iterdir()} == {path.name for path in folder.iterdir()}
    assert any(re.fullmatch(rf"Downloading {MODEL}: model.safetensors: [\d.]+ of [\d.]+ MB", line) for line in said)
    assert downloaded.config.task.imported_from == f"Hugging Face: {MODEL}"
    served.requests.clear()
    import_pretrained(MODEL, tmp_path / "again", hub_url=served.url, progress=lambda _: None)
    assert not served.requests  # from the cache


def test_a_download_cut_short_leaves_no_half_file_and_goes_on_from_where_it_stopped(folder, served, tmp_path):
    served.cut.add(f"/{MODEL}/resolve/main/model.safetensors")
    with pytest.raises(StudioError, match=rf"model.safetensors stopped at [\d,]+ of [\d,]+ bytes; import {MODEL} "
                                          "again to go on from there"):
        import_pretrained(MODEL, tmp_path / "bundle", hub_url=served.url, progress=lambda _: None)
    cached = hub.model_folder(MODEL)
    assert not (cached / "model.safetensors").exists() and (cached / "model.safetensors.part").is_file()
    assert not (tmp_path / "bundle").exists()
    import_pretrained(MODEL, tmp_path / "bundle", hub_url=served.url, progress=lambda _: None)
    half = (folder / "model.safetensors").stat().st_size // 2
    assert (f"/{MODEL}/resolve/main/model.safetensors", f"bytes={half}-") in served.requests
    assert (cached / "model.safetensors").read_bytes() == (folder / "model.safetensors").read_bytes()


def test_without_the_network_the_error_says_how_to_import_a_downloaded_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    closed = f"127.0.0.1:{free_port()}"
    with pytest.raises(StudioError) as error:
        import_pretrained(MODEL, tmp_path / "bundle", hub_url=f"http://{closed}", progress=lambda _: None)
    message = str(error.value)
    assert message.startswith(f"cannot reach {closed} to download {MODEL} (")
    assert "Without the network, import a folder instead" in message and "studio import FOLDER_OR_ZIP" in message


def test_an_unknown_model_and_one_without_safetensors_are_refused_in_one_sentence(folder, served, tmp_path):
    with pytest.raises(StudioError, match=f"^{served.url} has no model nobody/no-such-model "):
        import_pretrained("nobody/no-such-model", tmp_path / "a", hub_url=served.url, progress=lambda _: None)
    del served.files[f"/{MODEL}/resolve/main/model.safetensors"]
    with pytest.raises(StudioError, match=f"^{MODEL} has no model.safetensors .its weights are only in PyTorch's"):
        import_pretrained(MODEL, tmp_path / "b", hub_url=served.url, progress=lambda _: None)


def test_studio_import_of_a_model_id_adds_it_to_the_library_under_its_name(served, monkeypatch):
    monkeypatch.setattr(hub, "HUB_URL", served.url)
    result = CliRunner().invoke(app, ["import", MODEL])
    assert result.exit_code == 0, result.output
    assert f"Downloading {MODEL} from {served.url}" in result.output
    entry = library.find_model("opus-mt-ko-en")
    assert entry.data == "imported from opus-mt-ko-en" and f"Imported from: `{MODEL}`" in entry.card
    library.delete("opus-mt-ko-en")


def test_an_import_is_named_after_its_folder_zip_or_model_id():
    assert library_target(MODEL).name == "opus-mt-ko-en"
    assert library_target("downloads/opus-2020-01-21.zip").name == "opus-2020-01-21"
    assert library_target("models/opus-mt-ko-en/", "ko-en").name == "ko-en"
