"""`studio launch --site DIR`: the offline web page `studio web DIR` built, served beside the app at /site/."""

import urllib.request

import pytest
from helpers import free_port

from studio.errors import StudioError


def built_site(folder):
    """The files that make a folder a site `studio web` built (for the app, not a browser)."""
    folder.mkdir()
    (folder / "index.html").write_text("<title>offline page</title>", encoding="utf-8")
    (folder / "site.json").write_text('{"models": []}', encoding="utf-8")
    (folder / "runtime.wasm").write_bytes(b"\0asm\1\0\0\0")
    return folder


def test_the_app_serves_a_built_site_and_links_to_it(exported, tmp_path):
    from studio.ui.app import launch

    site = built_site(tmp_path / "site")
    app = launch(exported[0], exported[0], port=free_port(), backend="tf", site=site, prevent_thread_lock=True,
                 progress=lambda _: None)
    try:
        base = app.local_url.rstrip("/")
        assert b"offline page" in urllib.request.urlopen(f"{base}/site/", timeout=30).read()
        wasm = urllib.request.urlopen(f"{base}/site/runtime.wasm", timeout=30)
        assert wasm.headers["content-type"] == "application/wasm"  # browsers compile WASM only with this type
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/site/../../etc/passwd", timeout=30)
        config = urllib.request.urlopen(f"{base}/config", timeout=30).read().decode("utf-8")
        assert "in your browser, offline](/site/)" in config  # the header's link
    finally:
        app.close()


def test_the_site_is_served_before_the_command_line_app_waits(exported, tmp_path, monkeypatch):
    """`studio launch` blocks until Ctrl-C: the page must be mounted before that (it once was mounted after)."""
    import gradio as gr

    from studio.ui.app import launch

    served = []
    monkeypatch.setattr(gr.Blocks, "block_thread", lambda app: served.append(
        urllib.request.urlopen(f"{app.local_url.rstrip('/')}/site/", timeout=30).status))
    app = launch(exported[0], exported[0], port=free_port(), backend="tf", site=built_site(tmp_path / "site"),
                 progress=lambda _: None)  # without prevent_thread_lock, as the command line launches it
    try:
        assert served == [200]
    finally:
        app.close()


def test_a_folder_that_is_not_a_site_or_a_password_is_refused(exported, tmp_path):
    from studio.ui.app import launch

    with pytest.raises(StudioError, match="not a site built by `studio web`"):
        launch(exported[0], exported[0], port=free_port(), site=tmp_path, prevent_thread_lock=True)
    (tmp_path / "index.html").write_text("x")
    (tmp_path / "site.json").write_text("{}")
    with pytest.raises(StudioError, match="cannot be combined with --auth"):
        launch(exported[0], exported[0], port=free_port(), site=tmp_path, auth=[("u", "p")], prevent_thread_lock=True)
