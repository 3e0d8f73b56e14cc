"""The Chat tab in headless Chromium (marked `browser`; skipped with a message when Chromium is missing), on the
session's app (`app_url`): conversations kept in the browser across reloads, several of them, export and
import, settings that persist, the keyboard, and each reply's stats beside it but never in its text. Each test
has a fresh browser context, so an empty localStorage."""

import json
import threading

import pytest
from helpers import SAMPLED, OwnContexts, free_port, ui_settings
from playwright.sync_api import expect

from studio.app_model import AppModel, Limits, decode_options
from studio.ui.chat import REPLY_LABELS
from studio.ui.decoding import settings_name, storage_key

pytestmark = pytest.mark.browser

MESSAGE = "나는 커피를 좋아해?"


@pytest.fixture
def page(module_browser, app_url):
    with OwnContexts(module_browser) as contexts:
        page = contexts.new_page(viewport={"width": 1280, "height": 1000}, accept_downloads=True)
        page.goto(app_url)
        ready(page)
        yield page


def ready(page):
    """Wait for the page's text box and its load-time script (PAGE_SCRIPT: the stats beside the replies)."""
    page.locator("#chat-input textarea").wait_for()
    page.wait_for_function("() => typeof window.studioChatStats === 'function'")


def reload(page):
    page.reload()
    ready(page)


def send(page, text, replies):
    """Type `text`, press Enter and wait until the chat shows `replies` replies with their stats."""
    page.locator("#chat-input textarea").fill(text)
    page.locator("#chat-input textarea").press("Enter")
    wait_for_replies(page, replies)


def wait_for_replies(page, count):
    """Until `count` replies have their stats beside them (a stored reply's or the model's: both end in a time)."""
    page.wait_for_function("""n => [...document.querySelectorAll('#chat-window .bot-row')]
        .filter(row => getComputedStyle(row, '::after').content.includes(' ms')).length === n""",
                           arg=count, timeout=60_000)


def said_where_it_came_from(stats: str) -> bool:
    return "stored reply · match" in stats or "written by the model ·" in stats


def users(page):
    return page.locator("#chat-window [data-testid='user']").all_inner_texts()


def listed(page):
    """The titles in the list of conversations."""
    return page.locator("#chat-conversations label").all_inner_texts()


def stats_beside_replies(page):
    """What is drawn beside each reply (the rows' ::after)."""
    return page.evaluate("""[...document.querySelectorAll('#chat-window .bot-row')]
        .map(row => getComputedStyle(row, '::after').content)""")


def warned(page, text):
    page.locator(".toast-body").filter(has_text=text).first.wait_for(timeout=30_000)


def use_sampling(page):
    page.locator("#chat-decoding").get_by_text("Decoding").click()
    page.locator("#chat-strategy").get_by_label("sample").check()
    page.locator("#chat-seed input").fill(str(SAMPLED["seed"]))
    page.locator("#chat-seed input").press("Tab")


def test_conversations_are_kept_across_reloads_and_switched_between(page):
    send(page, "첫 번째 대화야", 1)
    send(page, "<b>두 번째</b> 메시지", 2)
    drawn = stats_beside_replies(page)
    assert len(drawn) == 2 and drawn[0] != drawn[1] and all(map(said_where_it_came_from, drawn))  # its own
    reload(page)
    wait_for_replies(page, 2)  # restored from the browser, stats included
    assert stats_beside_replies(page) == drawn
    assert users(page) == ["첫 번째 대화야", "<b>두 번째</b> 메시지"] and listed(page) == ["첫 번째 대화야"]

    page.locator("#chat-new").click()
    page.wait_for_function("() => !document.querySelector('#chat-window [data-testid=\"user\"]')")
    send(page, "<b>새</b> 대화", 1)
    page.locator("#chat-conversations").get_by_text("<b>새</b> 대화").wait_for()  # titles show text, not markup
    assert listed(page) == ["<b>새</b> 대화", "첫 번째 대화야"]
    page.locator("#chat-conversations").get_by_text("첫 번째 대화야").click()
    wait_for_replies(page, 2)
    assert users(page) == ["첫 번째 대화야", "<b>두 번째</b> 메시지"]
    reload(page)  # the one chosen last comes back
    wait_for_replies(page, 2)
    assert users(page)[0] == "첫 번째 대화야"

    page.locator("#chat-delete").click()
    page.wait_for_function("() => document.querySelectorAll('#chat-conversations label').length === 1")
    wait_for_replies(page, 1)
    assert users(page) == ["<b>새</b> 대화"] and listed(page) == ["<b>새</b> 대화"]
    reload(page)
    wait_for_replies(page, 1)
    assert listed(page) == ["<b>새</b> 대화"]


def test_what_the_browser_kept_is_put_back_before_the_controls_can_change_it(module_browser, exported, monkeypatch):
    """On a busy server the page's first drawing of the saved conversations, and of the saved settings, can answer
    late: a message sent before it would be drawn over (the store put back as the page opened), a setting chosen
    before it put back. Until they answer, the controls they would undo cannot be used."""
    from studio.ui import decoding
    from studio.ui.app import launch
    from studio.ui.chat import ChatTab

    opening, restored, drawing = ChatTab.opening, decoding.restored, threading.Event()

    def late(draw):
        def held(*args):
            drawing.wait(60)
            return draw(*args)
        return held

    monkeypatch.setattr(ChatTab, "opening", late(opening))
    monkeypatch.setattr(decoding, "restored", late(restored))
    app = launch(exported[0], exported[0], port=free_port(), backend="tf", prevent_thread_lock=True,
                 progress=lambda _: None)
    try:
        with OwnContexts(module_browser) as contexts:
            page = contexts.new_page()
            page.goto(app.local_url)
            ready(page)
            controls = ["#chat-input textarea", "#chat-send", "#chat-retry", "#chat-undo", "#chat-clear",
                        "#chat-new", "#chat-delete", "#chat-import", "#chat-backend input",
                        "#chat-reply input >> nth=0"]
            assert [page.locator(control).is_disabled() for control in controls] == [True] * len(controls)
            drawing.set()
            for control in controls:  # each drawing enables its own: the two answer in either order
                expect(page.locator(control)).to_be_enabled()
            send(page, MESSAGE, 1)
            reload(page)
            wait_for_replies(page, 1)
            assert users(page) == [MESSAGE] and listed(page) == [MESSAGE]
    finally:
        drawing.set()
        app.close()


def test_export_to_json_and_markdown_then_import_and_bad_files_lose_nothing(page, tmp_path):
    send(page, "내보낼 대화", 1)

    def export(button, suffix):
        with page.expect_download() as download:  # one click downloads
            page.locator(button).click()
        page.locator(f"#chat-export-file a[download$='{suffix}']").wait_for()  # and the link stays as a fallback
        return download.value.suggested_filename, download.value.path().read_text(encoding="utf-8")

    name, markdown = export("#chat-export-md", ".md")
    assert name.endswith(".md") and markdown.startswith("# 내보낼 대화") and said_where_it_came_from(markdown)
    name, text = export("#chat-export-json", ".json")
    exported = json.loads(text)
    assert name.endswith(".json") and exported["messages"][0] == {"role": "user", "content": "내보낼 대화"}
    assert said_where_it_came_from(exported["messages"][1]["stats"])

    def upload(name, data: bytes):
        path = tmp_path / name
        path.write_bytes(data)
        with page.expect_file_chooser() as chooser:
            page.locator("#chat-import").click()
        chooser.value.set_files(str(path))

    upload("chat.json", text.encode())
    page.wait_for_function("() => document.querySelectorAll('#chat-conversations label').length === 2")
    wait_for_replies(page, 1)
    assert users(page) == ["내보낼 대화"] and listed(page) == ["내보낼 대화 (2)", "내보낼 대화"]  # the import is newer

    for name, data, why in (("broken.json", b'{"messages": [', "not valid JSON (line 1"),
                            ("other.json", b'{"messages": [{"role": "system", "content": "x"}]}', "role 'system'"),
                            ("latin1.json", "é".encode("latin-1"), "not UTF-8"),
                            ("huge.json", b" " * 1_500_000, "larger than 1 MB")):
        upload(name, data)
        warned(page, f"Cannot import {name}: ")
        assert why in page.locator(".toast-body").filter(has_text=name).first.inner_text()
    reload(page)
    wait_for_replies(page, 1)
    assert listed(page) == ["내보낼 대화 (2)", "내보낼 대화"]  # nothing lost, nothing added


def saved(page, tab, change):
    """Make `change`, and wait for the tab's settings to be saved (encrypted, they can only be seen to change): the
    save is a request to the server, which a loaded machine may answer after a reload would have started."""
    key = storage_key(settings_name(tab))
    before = page.evaluate("key => localStorage.getItem(key)", key)
    change()
    page.wait_for_function("([key, before]) => localStorage.getItem(key) !== before", arg=[key, before])


def test_settings_survive_a_reload(page):
    page.locator("#chat-backend input").click()
    saved(page, "chat", lambda: page.get_by_role("option", name="tf-naive").click())
    saved(page, "chat", lambda: page.locator("#chat-reply").get_by_label(REPLY_LABELS["generate"]).check())
    page.locator("#chat-decoding").get_by_text("Decoding").click()
    # sampling's settings are disabled unless the strategy samples (the chat's greedy reads no seed)
    assert page.locator("#chat-seed input").is_disabled() and page.locator("#chat-top-p input[type=number]").is_disabled()
    assert page.locator("#chat-seed input").input_value() == ""  # no seed: a new sample each time (not seed 0)
    saved(page, "chat", lambda: page.locator("#chat-strategy").get_by_label("sample").check())
    saved(page, "chat", lambda: (page.locator("#chat-seed input").fill("1"), page.locator("#chat-seed input").press("Tab")))
    assert page.locator("#chat-top-p input[type=number]").is_enabled()
    page.get_by_role("tab", name="Translate").click()
    page.locator("#translate-decoding").get_by_text("Decoding").click()
    saved(page, "translate", lambda: page.locator("#translate-strategy").get_by_label("greedy").check())  # not the default
    reload(page)
    page.locator("#chat-decoding").get_by_text("Decoding").click()
    page.wait_for_function("() => document.querySelector('#chat-seed input')?.value === '1'", timeout=30_000)
    assert page.locator("#chat-backend input").input_value() == "tf-naive"
    assert page.locator("#chat-reply").get_by_label(REPLY_LABELS["generate"]).is_checked()
    assert page.locator("#chat-strategy").get_by_label("sample").is_checked()
    page.wait_for_function("() => document.querySelector('#chat-seed input')?.disabled === false",  # the restored
                           timeout=30_000)  # strategy decides what is enabled
    page.get_by_role("tab", name="Translate").click()
    page.locator("#translate-decoding").get_by_text("Decoding").click()
    assert page.locator("#translate-strategy").get_by_label("greedy").is_checked()
    page.wait_for_function("() => document.querySelector('#translate-temperature input[type=number]')?.disabled === true",
                           timeout=30_000)  # the Translate tab's default was beam search: now greedy, no sampling
    assert page.locator("#translate-length-penalty input[type=number]").is_enabled()  # Alternatives reads it


def test_enter_sends_shift_enter_starts_a_new_line_and_undo_is_saved(page):
    note = page.locator("#chat-note").inner_text()  # a user is told the bot answers each message alone
    assert "answers each message on its own" in note and "reads its first" in note
    box = page.locator("#chat-input textarea")
    box.fill("첫 줄")
    box.press("Shift+Enter")
    box.press_sequentially("둘째 줄")
    assert box.input_value() == "첫 줄\n둘째 줄"
    page.wait_for_timeout(1000)
    assert users(page) == []  # Shift+Enter sent nothing
    box.press("Enter")
    wait_for_replies(page, 1)
    assert users(page) == ["첫 줄\n둘째 줄"] and box.input_value() == ""

    page.locator("#chat-undo").click()  # undone here, and in what is saved
    page.wait_for_function("() => !document.querySelector('#chat-window [data-testid=\"user\"]')")
    reload(page)
    page.locator("#chat-conversations").get_by_text("New conversation").wait_for()
    assert users(page) == []


def test_stats_are_beside_each_reply_never_in_the_copied_or_retried_text(page, services):
    expected = list(services.generator("tf").stream(MESSAGE, decode_options(**ui_settings(**SAMPLED))))[-1][0]
    assert expected
    page.locator("#chat-reply").get_by_label(REPLY_LABELS["generate"]).check()
    use_sampling(page)
    send(page, MESSAGE, 1)
    bots = page.locator("#chat-window [data-testid='bot']")
    assert bots.all_inner_texts() == [" ".join(expected.split())]
    beside = stats_beside_replies(page)
    assert len(beside) == 1 and "tf · first token" in beside[0] and "ms/token" in beside[0]
    assert "ms/token" in page.locator("#chat-latency").inner_text()  # the last reply's, as before

    page.evaluate("navigator.clipboard.writeText = async text => { window.__copied = text }")
    bots.last.hover()
    page.get_by_role("button", name="Copy message").last.click()
    assert page.evaluate("window.__copied") == expected
    page.get_by_role("button", name="Copy conversation").click()
    assert "ms/token" not in page.evaluate("window.__copied") and expected in page.evaluate("window.__copied")

    # Alt+R (the line under the buttons says so) asks the same message again, in place of its reply
    assert "Alt+R" in page.locator("#chat-keys").inner_text()
    sent = []
    page.on("request", lambda request: sent.append(request.post_data_json) if "queue/join" in request.url else None)
    first = beside[0]
    page.locator("#chat-input textarea").focus()
    with page.expect_request(lambda request: "queue/join" in request.url):
        page.keyboard.press("Alt+R")
    # the retried reply's stats come last (its timings differ from the first reply's), after its text; waiting
    # for the latency line instead passed on the first reply's state when the retry started late
    page.wait_for_function("""first => { const drawn = [...document.querySelectorAll('#chat-window .bot-row')]
        .map(row => getComputedStyle(row, '::after').content);
        return drawn.length === 1 && drawn[0].includes('ms/token') && drawn[0] !== first }""", arg=first,
                           timeout=60_000)
    assert users(page) == [MESSAGE] and bots.all_inner_texts() == [" ".join(expected.split())]
    # the retry read the saved conversation, not the chat window (a cut reply may still draw there): no window sent
    windows = [value for request in sent for value in request["data"]
               if isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0]]
    assert sent and not windows


@pytest.fixture(scope="module")
def services(exported):
    return AppModel("chatbot", exported[0], Limits(max_input_chars=200))


def test_a_number_typed_into_a_slider_box_is_kept_while_typed_and_put_in_range_when_left(page):
    page.locator("#chat-decoding").get_by_text("Decoding").click()
    page.locator("#chat-strategy").get_by_label("sample").check()
    top_p = page.locator("#chat-top-p input[type=number]")
    top_p.click()
    top_p.press("Control+a")
    top_p.press_sequentially("0.35", delay=50)  # "0" alone is under the minimum: not clamped while typing
    assert top_p.input_value() == "0.35"
    saved(page, "chat", lambda: top_p.press("Tab"))  # saved once left
    most = page.locator("#chat-max-new-tokens input[type=number]")
    most.fill("999")
    # left: put in range (Gradio refused 999 in the server, and the box went on showing it), and saved so
    saved(page, "chat", lambda: most.press("Tab"))
    page.wait_for_function("() => document.querySelector('#chat-max-new-tokens input[type=number]')?.value === '64'")
    reload(page)  # what was kept is what was shown
    page.locator("#chat-decoding").get_by_text("Decoding").click()
    page.wait_for_function("() => document.querySelector('#chat-max-new-tokens input[type=number]')?.value === '64'")
    assert page.locator("#chat-top-p input[type=number]").input_value() == "0.35"
