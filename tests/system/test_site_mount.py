"""`studio launch --site DIR`: the offline web page `studio web DIR` built, served beside the app at /site/."""

import urllib.request

import pytest
from helpers import free_port

from studio.errors import StudioError


def test_the_app_serves_a_built_site_and_links_to_it(exported, tmp_path):
    from studio.ui.app import launch

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<title>offline page</title>", encoding="utf-8")
    (site / "site.json").write_text('{"models": []}', encoding="utf-8")
    (site / "runtime.wasm").write_bytes(b"\0asm\1\0\0\0")
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


def test_a_folder_that_is_not_a_site_or_a_password_is_refused(exported, tmp_path):
    from studio.ui.app import launch

    with pytest.raises(StudioError, match="not a site built by `studio web`"):
        launch(exported[0], exported[0], port=free_port(), site=tmp_path, prevent_thread_lock=True)
    (tmp_path / "index.html").write_text("x")
    (tmp_path / "site.json").write_text("{}")
    with pytest.raises(StudioError, match="cannot be combined with --auth"):
        launch(exported[0], exported[0], port=free_port(), site=tmp_path, auth=[("u", "p")], prevent_thread_lock=True)
