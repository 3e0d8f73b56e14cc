"""The app with one broken bundle still serves the other model and says which file is broken."""

import urllib.request

import pytest
from helpers import app_client, damage, free_port


def test_the_app_serves_the_other_model_and_names_the_broken_file(tiny_bundle, bundle_copy):
    from studio.ui.app import launch

    damage(bundle_copy / "weights.npz", "truncate")
    app = launch(bundle_copy, tiny_bundle, port=free_port(), backend="tf", prevent_thread_lock=True,
                 progress=lambda _: None)
    try:
        client = app_client(app.local_url)
        with pytest.raises(Exception, match=r"chatbot is unavailable: .*weights.npz"):
            client.predict("나는 커피를 좋아해?", api_name="/chat")
        translation, _ = client.predict("나는 커피를 좋아해?", api_name="/translate")
        assert isinstance(translation, str)
        page = urllib.request.urlopen(app.local_url, timeout=30).read().decode()
        assert "The chatbot is unavailable" in page and "weights.npz" in page
    finally:
        app.close()
