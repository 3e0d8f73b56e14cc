"""`studio import OWNER/NAME [--revision REV]`: a Hugging Face model id downloaded into the user cache and imported,
tested against a loopback HTTP server that serves a tiny MarianMT folder (`marian_fixture`) as the Hub does
(`/{id}/resolve/{revision}/{file}`, HTTP ranges); no network. A download cut short leaves no half file and goes on
from where it stopped; each revision has a cache folder of its own; weights in shards come as their index and each
shard; an unreachable Hub is an error that says how to import a downloaded folder instead."""

import http.server
import re
import threading
import urllib.parse

import numpy as np
import pytest
from helpers import free_port
from marian_fixture import POST_NORM, write_huggingface, write_release, write_shards
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


def hub_files(folder, revision="main") -> dict[str, bytes]:
    """The files of `folder` by their URL path on the Hub, as MODEL's at `revision`."""
    return {f"/{MODEL}/resolve/{urllib.parse.quote(revision, safe='')}/{path.name}": path.read_bytes()
            for path in folder.iterdir()}


@pytest.fixture
def served(folder, monkeypatch, tmp_path):
    """The Hub serving `folder` as MODEL, and a user cache of this test's own."""
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    server = Hub(hub_files(folder))
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


def test_a_revision_is_downloaded_into_a_cache_folder_of_its_own_and_imported_from_it(folder, served, tmp_path,
                                                                                   monkeypatch):
    other = write_huggingface(write_release(tmp_path / "release", POST_NORM, seed=7), tmp_path / "pr", POST_NORM)
    served.files.update(hub_files(other, "refs/pr/1"))
    monkeypatch.setattr(hub, "HUB_URL", served.url)
    import_pretrained(MODEL, tmp_path / "main", progress=lambda _: None)
    served.requests.clear()
    result = CliRunner().invoke(app, ["import", MODEL, "--revision", "refs/pr/1", "--out", str(tmp_path / "at-pr")])
    assert result.exit_code == 0, result.output
    assert f"Downloading {MODEL} at revision refs/pr/1 from {served.url}" in result.output
    assert served.requests and all(path.startswith(f"/{MODEL}/resolve/refs%2Fpr%2F1/") for path, _ in served.requests)
    cached = hub.model_folder(MODEL, "refs/pr/1")
    assert cached.name == "Helsinki-NLP--opus-mt-ko-en@refs%2Fpr%2F1" and cached != hub.model_folder(MODEL)
    for path in other.iterdir():
        assert (cached / path.name).read_bytes() == path.read_bytes(), path.name
    main, at_pr = load_bundle(tmp_path / "main"), load_bundle(tmp_path / "at-pr")
    assert any(not np.array_equal(at_pr.weights[name], value) for name, value in main.weights.items())
    assert at_pr.config.task.imported_from == f"Hugging Face: {MODEL}@refs/pr/1"
    with pytest.raises(StudioError, match="a revision is for a Hugging Face model id"):
        import_pretrained(folder, tmp_path / "folder", revision="v1.0", progress=lambda _: None)


@pytest.mark.parametrize("revision", ["../main", "main/..", "v 1", "", "/main", "v1//x", "main.lock", "a..b"])
def test_a_revision_that_names_no_branch_tag_or_commit_is_refused_before_any_download(tmp_path, monkeypatch,
                                                                                     revision):
    monkeypatch.setenv("STUDIO_CACHE_DIR", str(tmp_path / "cache"))
    closed = f"http://127.0.0.1:{free_port()}"  # a download tried would be refused as "cannot reach"
    with pytest.raises(StudioError, match=f"^{re.escape(repr(revision))} is not a revision of a Hugging Face model"):
        import_pretrained(MODEL, tmp_path / "bundle", hub_url=closed, revision=revision, progress=lambda _: None)
    assert not (tmp_path / "cache").exists()


def test_weights_in_shards_come_as_their_index_then_each_shard_a_cut_one_going_on(folder, served, tmp_path):
    sharded = write_shards(folder, tmp_path / "sharded")
    del served.files[f"/{MODEL}/resolve/main/model.safetensors"]
    served.files.update(hub_files(sharded))
    second = f"/{MODEL}/resolve/main/model-00002-of-00002.safetensors"
    served.cut.add(second)
    with pytest.raises(StudioError, match=r"model-00002-of-00002.safetensors stopped at [\d,]+ of [\d,]+ bytes"):
        import_pretrained(MODEL, tmp_path / "bundle", hub_url=served.url, progress=lambda _: None)
    cached = hub.model_folder(MODEL)
    assert (cached / "model-00001-of-00002.safetensors").is_file()
    assert (cached / "model-00002-of-00002.safetensors.part").is_file()
    import_pretrained(MODEL, tmp_path / "bundle", hub_url=served.url, progress=lambda _: None)
    half = (sharded / "model-00002-of-00002.safetensors").stat().st_size // 2
    assert (second, f"bytes={half}-") in served.requests
    assert {path.name for path in cached.iterdir()} == {path.name for path in sharded.iterdir()}
    import_pretrained(folder, tmp_path / "single", progress=lambda _: None)
    downloaded, single = load_bundle(tmp_path / "bundle"), load_bundle(tmp_path / "single")
    for name, value in single.weights.items():
        np.testing.assert_array_equal(downloaded.weights[name], value, err_msg=name)
