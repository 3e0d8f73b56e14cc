"""Private and offline by default: the page makes no request beyond this computer while every tab is used, and
Gradio's run history (every call's inputs and outputs, kept in the browser) is off."""

import urllib.error
import urllib.parse
import urllib.request

import pytest
from helpers import chromium, free_port

pytestmark = pytest.mark.browser

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
TABS = ["Chat", "Translate", "Compare", "Explore", "Models", "Train", "Export"]


@pytest.fixture(scope="module")
def app(exported):
    from studio.ui.app import launch

    server = launch(exported[0], exported[0], port=free_port(), backend="tf", prevent_thread_lock=True,
                    progress=lambda _: None)
    yield server
    server.close()


def test_every_tab_is_used_without_a_request_beyond_this_computer_and_no_run_is_kept(app):
    outside: list[str] = []

    def record(request):
        url = urllib.parse.urlsplit(request.url)
        if url.scheme not in ("data", "blob") and url.hostname not in LOCAL_HOSTS:
            outside.append(request.url)

    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        context.on("request", record)  # every page, worker and frame of the context
        page = context.new_page()
        page.goto(app.local_url)
        page.locator("#chat-input textarea").fill("나는 커피를 좋아해?")
        page.locator("#chat-send").click()
        page.locator("#chat-latency").get_by_text("stored reply").wait_for(timeout=60_000)
        page.locator("#chat-reply").get_by_label("the model writes it").check()
        page.locator("#chat-input textarea").fill("나는 커피를 좋아해?")
        page.locator("#chat-send").click()
        page.locator("#chat-latency").get_by_text("first token").wait_for(timeout=60_000)
        page.get_by_role("tab", name="Translate").click()
        page.locator("#translate-input textarea").fill("그는 책을 샀어?")
        page.locator("#translate-button").click()
        page.locator("#translate-latency").get_by_text("tf").wait_for(timeout=60_000)
        for tab in TABS[2:]:
            page.get_by_role("tab", name=tab).click()
            page.wait_for_timeout(500)
        page.get_by_role("tab", name="Chat").click()
        page.wait_for_timeout(1000)  # (never "network idle": the Train tab polls its job)
        kept = page.evaluate("Object.keys(localStorage).filter(key => key.startsWith('gradio:run-history'))")
        context.close()
    assert outside == []
    assert kept == []  # Gradio records runs in localStorage under gradio:run-history:<app>


def test_the_run_history_page_is_off(app):
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{app.local_url.rstrip('/')}/gradio_api/runs", timeout=30)
    assert missing.value.code == 404
    config = urllib.request.urlopen(f"{app.local_url.rstrip('/')}/config", timeout=30).read().decode("utf-8")
    assert '"run_history":false' in config.replace(" ", "")
