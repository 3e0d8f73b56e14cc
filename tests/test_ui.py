"""The app served for real on a free loopback port: API endpoints through gradio_client, and the page
in headless Chromium (marked `browser`; skipped with a message when Chromium is not installed)."""

import shutil
import socket

import pytest

from studio.ui.app import build_app
from studio.ui.service import InputError, Limits, ModelService

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def services(tiny_bundle):
    limits = Limits(max_input_chars=200)
    return ModelService("chatbot", tiny_bundle, limits), ModelService("translator", tiny_bundle, limits)


@pytest.fixture(scope="module")
def app_url(services):
    app = build_app(*services, default_backend="tf")
    app.queue(default_concurrency_limit=4)
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    yield f"http://127.0.0.1:{port}/"
    app.close()


def test_service_rejects_bad_input_with_a_plain_message(services):
    chatbot, _ = services
    for bad, expected in (("", "type something"), ("   \n", "type something"), ("가" * 201, "the limit is 200"),
                          (None, "send text")):
        with pytest.raises(InputError, match=expected):
            chatbot.check_text(bad)


def test_missing_bundle_makes_the_model_unavailable_not_the_app(tmp_path):
    service = ModelService("translator", tmp_path / "nowhere", Limits())
    assert not service.available and "not found" in service.unavailable
    with pytest.raises(InputError, match="unavailable"):
        service.generator("tf")


def test_named_endpoints_work_with_only_the_text(app_url, services):
    from gradio_client import Client

    client = Client(app_url, verbose=False)
    reply, latency = client.predict("나는 커피를 좋아해?", api_name="/chat")
    expected = services[0].generator("tf")("나는 커피를 좋아해?")
    assert reply == expected and "ms/token" in latency
    translation, _ = client.predict("너는 영화를 봤어?\n그는 책을 샀어?", api_name="/translate")
    assert isinstance(translation, str) and translation.count("\n") == 1
    beam, _ = client.predict("나는 커피를 좋아해?", "tf-naive", "beam", 3, api_name="/chat")
    assert isinstance(beam, str)
    with pytest.raises(Exception, match="type something"):
        client.predict("   ", api_name="/chat")


def test_explore_draws_every_attention_map_and_the_tutorial_figures(services):
    from studio.ui.app import build_app

    app = build_app(*services, default_backend="tf")
    explore = next(fn.fn for fn in app.fns.values() if getattr(fn.fn, "__name__", "") == "explore")
    summary, encoder, decoder, cross, positional, schedule, config = explore("나는 커피를 좋아해?", "chatbot", 2)
    assert "Parameters:" in summary
    assert len(encoder.axes) == 4 and len(cross.axes) == 4  # one heat-map per head (4 heads)
    assert encoder.axes[0].get_title() == "head 1"
    assert config["model"]["d_model"] == 32
    assert positional.axes and schedule.axes


def test_compare_runs_every_backend_and_reports_agreement(app_url, services):
    from gradio_client import Client

    reference, summary, rows = Client(app_url, verbose=False).predict("나는 커피를 좋아해?", api_name="/compare")
    assert reference == services[0].generator("tf")("나는 커피를 좋아해?")
    table = rows["data"] if isinstance(rows, dict) else rows
    assert [row[0] for row in table] == services[0].backends()  # one row per backend (exports built on demand)
    assert all(row[-1] == "yes" for row in table if row[0] in ("tf", "tf-naive", "tflite", "onnx"))
    assert "backends** give the TF output" in summary


@pytest.mark.browser
def test_chat_and_translate_in_a_real_browser(app_url, tmp_path):
    if not shutil.which("chromium") and not __import__("os").path.exists(CHROMIUM):
        pytest.skip("Debian chromium is not installed (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(app_url)
        page.locator("#chat-input textarea").fill("나는 커피를 좋아해?")
        page.locator("#chat-send").click()
        page.get_by_text("ms/token").first.wait_for(timeout=60_000)
        assert "tf · first token" in page.content()

        # switch the backend and get the same reply again, now from the other runtime
        page.locator("#chat-backend input").click()
        page.get_by_role("option", name="tf-naive").click()
        page.locator("#chat-input textarea").fill("나는 커피를 좋아해?")
        page.locator("#chat-send").click()
        page.get_by_text("tf-naive · first token").wait_for(timeout=60_000)
        bubbles = page.locator("[data-testid='bot']").all_inner_texts()
        replies = [b.split("\n")[0] for b in bubbles if "first token" in b]
        assert len(replies) == 2 and replies[0] == replies[1]

        # an injected <img onerror> is shown as text, never run
        page.evaluate("window.__pwned = false")
        page.locator("#chat-input textarea").fill('<img src=x onerror="window.__pwned=true">')
        page.locator("#chat-send").click()
        page.get_by_text("ms/token").nth(2).wait_for(timeout=60_000)
        assert page.evaluate("window.__pwned") is False
        shown = page.locator("[data-testid='user']").all_inner_texts()[-1]
        assert '<img src=x onerror="window.__pwned=true">' in shown  # shown as the text that was typed

        page.get_by_role("tab", name="Translate").click()
        page.locator("#translate-input textarea").fill("그는 책을 샀어?")
        page.locator("#translate-button").click()
        page.locator("#translate-latency").get_by_text("ms").wait_for(timeout=60_000)

        page.get_by_role("tab", name="Compare").click()
        page.locator("#compare-input textarea").fill("나는 커피를 좋아해?")
        page.locator("#compare-button").click()
        page.locator("#compare-summary").get_by_text("give the TF output").wait_for(timeout=180_000)
        table = page.locator("#compare-table").inner_text()
        for backend in ("tf-naive", "tflite-float16", "tflite-int8", "onnx-int8"):  # one row each
            assert backend in table

        page.get_by_role("tab", name="Explore").click()
        page.locator("#explore-button").click()
        page.locator("#explore-output").get_by_text("Parameters").wait_for(timeout=60_000)
        browser.close()


def test_auth_protects_the_app_and_its_api(services):
    import urllib.error
    import urllib.request

    from gradio_client import Client

    app = build_app(*services, default_backend="tf")
    app.queue()
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
               auth=[("studio", "s3cret")])
    url = f"http://127.0.0.1:{port}/"
    try:
        with pytest.raises(Exception):
            Client(url, verbose=False).predict("나는 커피를 좋아해?", api_name="/chat")
        with pytest.raises(urllib.error.HTTPError, match="401"):
            urllib.request.urlopen(url + "config")  # noqa: S310 - loopback only
        reply, _ = Client(url, auth=("studio", "s3cret"), verbose=False).predict("나는 커피를 좋아해?", api_name="/chat")
        assert isinstance(reply, str)
    finally:
        app.close()
