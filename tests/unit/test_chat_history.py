"""The Chat tab's saved conversations (studio/ui/conversations.py): the store kept in the browser, export to
Markdown and JSON, and import with its checks. Plain data: no model, no browser."""

import json

import pytest

from studio.ui import conversations as c
from studio.ui.conversations import ConversationError

STATS = "tf · first token 3.0 ms · 1.50 ms/token · 4 tokens · 9.0 ms total"


def chat(*texts):
    """Messages alternating user, assistant."""
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(texts)]


def store_with(*conversations_messages):
    """A store holding one conversation per list of messages, the first one current."""
    store = c.empty_store()
    for messages in reversed(conversations_messages):
        store = c.recorded(c.with_new(store), messages, STATS)
    return store


def test_titles_are_the_first_message_on_one_line_and_cut():
    assert c.title({"messages": []}) == "New conversation"
    assert c.title({"messages": chat("  영화\n볼래?  ", "응")}) == "영화 볼래?"
    long = c.title({"messages": chat("가" * 100)})
    assert len(long) == c.TITLE_CHARS and long.endswith("…")


def test_new_switch_and_delete():
    store = c.with_new(c.empty_store())
    first = store["current"]
    assert c.with_new(store) == store  # the current conversation is still empty: no second empty one
    store = c.recorded(store, chat("하나", "응"))
    store = c.recorded(c.with_new(store), chat("둘", "응"))
    second = store["current"]
    assert [title for title, _ in c.choices(store)] == ["둘", "하나"]  # newest first
    again = c.recorded(c.with_new(store), chat("하나", "또"))  # a newer conversation with an older one's title
    assert [title for title, _ in c.choices(again)] == ["하나 (2)", "둘", "하나"]
    assert c.current(c.switched(store, first))["messages"][0]["content"] == "하나"
    with pytest.raises(ConversationError, match="not saved any more"):
        c.switched(store, "feedbeef")
    after = c.deleted(store, second)
    assert after["current"] == first and len(after["conversations"]) == 1
    assert c.deleted(store, "feedbeef") == store
    assert c.deleted(after, first) == c.empty_store()


def test_new_refuses_beyond_the_limit(monkeypatch):
    monkeypatch.setattr(c, "MAX_CONVERSATIONS", 2)
    store = store_with(chat("하나"), chat("둘"))
    with pytest.raises(ConversationError, match="2 conversations are saved"):
        c.with_new(store)


def test_recorded_keeps_the_stats_of_unchanged_replies_and_gives_the_new_one_its_own():
    store = c.recorded(c.empty_store(), chat("하나", "일"), "first")  # no conversation yet: one is made
    assert c.reply_stats(c.current(store)) == ["first"]
    store = c.recorded(store, chat("하나", "일", "둘", "이"), "second")  # sent
    assert c.reply_stats(c.current(store)) == ["first", "second"]
    store = c.recorded(store, chat("하나", "일", "둘", "이!"), "retried")  # retried
    assert c.reply_stats(c.current(store)) == ["first", "retried"]
    store = c.recorded(store, chat("하나", "일"))  # undone
    assert c.reply_stats(c.current(store)) == ["first"]
    store = c.recorded(store, chat("하나", "다른"))  # a changed reply loses its stats
    assert c.reply_stats(c.current(store)) == [""] and len(store["conversations"]) == 1
    for bad in (chat("일", "이")[::-1], [{"role": "user", "content": 3}], "text"):
        with pytest.raises(ConversationError):
            c.recorded(store, bad)


def test_the_store_from_the_browser_is_checked_not_trusted():
    for junk in (None, "x", 3, [], {}, {"conversations": "x"}):
        assert c.checked_store(junk) == c.empty_store()
    good = store_with(chat("하나", "일"), chat("둘", "이"))
    kept = good["conversations"]
    damaged = {"current": "nothing", "conversations": [
        "junk", {"messages": [{"role": "system", "content": "x"}]}, kept[0], kept[0], kept[1], {"id": "zz"}]}
    checked = c.checked_store(damaged)
    assert [conversation["id"] for conversation in checked["conversations"]] == [kept[0]["id"], kept[1]["id"]]
    assert checked["current"] == kept[0]["id"]  # an unknown current one falls back to the first
    assert c.checked_store(good) == good


def test_json_export_imports_as_a_new_conversation_and_nothing_is_replaced():
    store = c.recorded(c.empty_store(), chat("<b>안녕</b> & 너", "반가워\n요"), STATS)
    conversation = c.current(store)
    exported = c.to_json(conversation)
    assert json.loads(exported)["format"] == c.FORMAT and json.loads(exported)["title"] == "<b>안녕</b> & 너"
    parsed = c.parse_export(exported.encode(), "chat.json")
    assert parsed["messages"] == conversation["messages"]  # text as typed, stats included
    twice = c.with_imported(c.with_imported(store, parsed), parsed)
    assert len(twice["conversations"]) == 3 and len({x["id"] for x in twice["conversations"]}) == 3
    assert twice["conversations"][-1] == conversation and twice["current"] == twice["conversations"][0]["id"]
    # a bare list of messages, as other chat apps export them, is read too; BOMs are allowed
    assert c.parse_export(b"\xef\xbb\xbf" + json.dumps(chat("하나")).encode(), "x.json")["messages"] == chat("하나")


def test_markdown_export_shows_each_message_under_its_speaker_with_the_reply_stats():
    conversation = c.current(c.recorded(c.empty_store(), chat("영화 볼래?", "좋아요."), STATS + "\n\n⚠ a hint"))
    text = c.to_markdown(conversation)
    assert text.startswith("# 영화 볼래?\n")
    assert "**You:**\n\n영화 볼래?\n\n**Bot:**\n\n좋아요.\n\n*" + STATS + " · ⚠ a hint*\n" in text
    assert c.export_name(conversation, "md").startswith("chat-") and c.export_name(conversation, "md").endswith(".md")
    assert "/" not in c.export_name({"created": "../../x", "id": "ab"}, "json")


@pytest.mark.parametrize("data, expected", [
    (b"\xff\xfe{}", "not UTF-8 text"),
    (b'{"messages": [', "not valid JSON (line 1, column 15"),
    (b"[" * 100_000, "not JSON this app can read"),
    (b'{"n": ' + b"9" * 5000 + b"}", "not JSON this app can read"),
    (b'"just text"', 'expected a JSON object with a "messages" list'),
    (b'{"title": "x"}', 'no "messages" list'),
    (b'{"format": "other-app", "messages": []}', "its format is 'other-app'"),
    (b'{"messages": []}', "it has no messages"),
    (b'{"messages": [{"role": "system", "content": "x"}]}', "message 1 has the role 'system' where 'user'"),
    (b'{"messages": [{"role": "user", "content": "x"}, {"role": "user", "content": "y"}]}',
     "message 2 has the role 'user' where 'assistant'"),
    (b'{"messages": [{"role": "user", "content": ["x"]}]}', 'message 1 has no text "content"'),
    (b'{"messages": ["x"]}', "message 1 is not an object"),
    (json.dumps({"messages": chat("가" * (c.MAX_CHARS + 1))}).encode(), "message 1 is 20,001 characters long"),
    (json.dumps({"messages": chat(*["가"] * (c.MAX_MESSAGES + 1))}).encode(), "1,001 messages; the limit is 1,000"),
    (b" " * (c.MAX_IMPORT_BYTES + 1), "larger than 1 MB"),
])
def test_a_bad_import_says_what_is_wrong_with_which_file(data, expected):
    with pytest.raises(ConversationError) as error:
        c.parse_export(data, "chat.json")
    assert str(error.value).startswith("Cannot import chat.json: ") and expected in str(error.value)


def test_the_store_stays_within_the_browser_storage_budget(monkeypatch):
    store = c.recorded(c.empty_store(), chat("하나", "일"))
    monkeypatch.setattr(c, "STORE_BUDGET_BYTES", 2_000)
    big = c.parse_export(json.dumps({"messages": chat("가" * 1000, "나")}).encode(), "big.json")
    with pytest.raises(ConversationError, match="Export and delete old conversations first"):
        c.with_imported(store, big)
    with pytest.raises(ConversationError, match="not saved"):
        c.recorded(store, chat("하나", "일", "가" * 1000, "나"))
    monkeypatch.setattr(c, "MAX_CONVERSATIONS", 1)
    with pytest.raises(ConversationError, match="delete one first"):
        c.with_imported(store, c.parse_export(c.to_json(c.current(store)).encode(), "x.json"))


def test_the_chat_window_shows_saved_text_escaped_and_saves_it_as_typed():
    from studio.ui.chat import as_shown, as_typed

    conversation = c.current(c.recorded(c.empty_store(), chat("<img src=x onerror=alert(1)>", "a & b"), STATS))
    shown = as_shown(conversation)
    assert shown == chat("&lt;img src=x onerror=alert(1)&gt;", "a &amp; b")  # no stats in the messages
    assert as_typed(shown) == chat("<img src=x onerror=alert(1)>", "a & b")


def test_saved_settings_are_restored_by_name_and_values_that_no_longer_fit_are_left_out():
    import gradio as gr

    from studio.ui.decoding import USED_BY, DecodingControls, remember_settings

    with gr.Blocks() as app:
        backend = gr.Dropdown(["tf", "onnx"], value="tf")
        decoding = DecodingControls("probe")
        remember_settings(app, "probe", backend, decoding)
    handlers = {fn.name: fn.fn for fn in app.fns.values()}
    names = ["backend", *decoding.components]
    saved = handlers["save"]("onnx", *[control.value for control in decoding.listed()])
    assert list(saved) == names and saved["backend"] == "onnx"  # by name

    def restored(values) -> dict:
        updates = dict(zip(names, handlers["restore"](values)))
        return ({name: update["value"] for name, update in updates.items() if "value" in update},
                {name for name, update in updates.items() if update["interactive"]})

    not_sampling = set(names) - set(USED_BY)  # what beam search and greedy read
    values, enabled = restored(saved | {"strategy": "beam", "seed": "7"})
    assert values["backend"] == "onnx" and values["strategy"] == "beam" and values["seed"] == "7"
    # every control enabled but what the restored strategy ignores (beam search reads no seed)
    assert enabled == not_sampling
    tampered = {"backend": "evil", "strategy": "sample; rm", "beam_size": 1e9, "top_p": float("nan"), "seed": 0,
                "temperature": True, "top_k": 5}
    # (seed 0: what the seed's old number box saved, and sent, when left empty)
    assert restored(tampered) == ({"top_k": 5}, not_sampling)
    assert restored("not a dict") == ({}, not_sampling)


def test_the_settings_are_disabled_until_the_saved_ones_are_put_back():
    import gradio as gr

    from studio.ui.decoding import DecodingControls, remember_settings

    with gr.Blocks() as app:
        backend = gr.Dropdown(["tf", "onnx"], value="tf", interactive=False)  # a model that is unavailable
        decoding = DecodingControls("probe", defaults={"strategy": "sample"})
        remember_settings(app, "probe", backend, decoding)
    config = app.get_config_file()
    assert {component["props"].get("interactive") for component in config["components"]
            if component["id"] in {control._id for control in [backend, *decoding.listed()]}} == {False}
    handlers = {fn.name: fn.fn for fn in app.fns.values()}
    updates = handlers["restore"]({})
    assert [update["interactive"] for update in updates] == [False] + [True] * len(decoding.components)
