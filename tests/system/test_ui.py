"""The app served for real on a free loopback port: API endpoints through gradio_client, and the page
in headless Chromium (marked `browser`; skipped with a message when Chromium is not installed)."""


import os
import re
import time

import gradio as gr
import pytest
from helpers import SAMPLED, app_client, chromium, free_port, ui_settings

from studio.replies import find_reply
from studio.ui.app import build_app
from studio.ui.chat import REPLY_LABELS
from studio.app_model import AppModel, InputError, Limits, decode_options

MESSAGE = "나는 커피를 좋아해?"


def expected_reply(service, backend="tf", **settings):
    return list(service.generator(backend).stream(MESSAGE, decode_options(**settings)))[-1][0]


@pytest.fixture(scope="module")
def services(exported):
    """Services on the same exported bundle and limits as the session's app (`app_url`)."""
    limits = Limits(max_input_chars=200)
    return AppModel("chatbot", exported[0], limits), AppModel("translator", exported[0], limits)


def test_service_rejects_bad_input_with_a_plain_message(services):
    chatbot, _ = services
    for bad, expected in (("", "type something"), ("   \n", "type something"), ("가" * 201, "the limit is 200"),
                          (None, "send text")):
        with pytest.raises(InputError, match=expected):
            chatbot.check_text(bad)


def test_missing_bundle_makes_the_model_unavailable_not_the_app(tmp_path):
    service = AppModel("translator", tmp_path / "nowhere", Limits())
    assert not service.available and "not found" in service.unavailable
    with pytest.raises(InputError, match="unavailable"):
        service.generator("tf")


def test_named_endpoints_work_with_only_the_text(app_url, services):
    client = app_client(app_url)
    reply, latency = client.predict("나는 커피를 좋아해?", api_name="/chat")  # a stored reply, by default
    stored = find_reply(services[0].bundle.replies, "나는 커피를 좋아해?")
    assert reply == stored.text and latency.startswith(f"stored reply · match {stored.match:.2f} · answers")
    reply, latency = client.predict("나는 커피를 좋아해?", reply="generate", api_name="/chat")
    assert reply == services[0].generator("tf")("나는 커피를 좋아해?")
    assert latency.startswith("written by the model · tf · first token") and "ms/token" in latency
    translation, _ = client.predict("너는 영화를 봤어?\n그는 책을 샀어?", api_name="/translate")
    assert isinstance(translation, str) and translation.count("\n") == 1
    kept, beside = client.predict("How are you doing today?", api_name="/translate")  # no Korean: kept, and said
    assert kept == "How are you doing today?" and "kept as written, without Korean" in beside
    _, beside = client.predict("How are you doing today, 친구?", api_name="/translate")  # the hint, beside the output
    assert "ms" in beside and "the input looks like English" in beside
    _, beside = client.predict("How are you doing today?", api_name="/chat")  # /chat says so too
    assert "stored reply" in beside and "this chatbot reads Korean" in beside
    _, beside = client.predict("How are you doing today?", reply="generate", api_name="/chat")
    assert "ms/token" in beside and "this chatbot reads Korean" in beside
    with pytest.raises(Exception, match="Unknown reply mode 'ranked'"):
        client.predict("나는 커피를 좋아해?", reply="ranked", api_name="/chat")
    scored = client.predict("너는 영화를 봤어?\n\n그는 책을 샀어?", api_name="/translate_scored")
    assert [row["translation"] == "" for row in scored] == [False, True, False]
    assert all(score <= 0 for row in scored for _, score in row["words"])
    found = client.predict("너는 영화를 봤어?", 3, api_name="/translate_alternatives")
    assert 1 <= len(found) <= 3 and len({t for t, _ in found}) == len(found)
    with pytest.raises(Exception, match="between 1 and 8"):
        client.predict("너는 영화를 봤어?", 99, api_name="/translate_alternatives")
    _, beside = client.predict("너는 커피를 샀어?", glossary="커피\tespresso", api_name="/translate")
    assert "Glossary: 커피 → espresso (" in beside
    with pytest.raises(Exception, match="glossary:1: expected the Korean term and its English"):
        client.predict("너는 커피를 샀어?", glossary="커피 espresso", api_name="/translate")
    beam, _ = client.predict("나는 커피를 좋아해?", "tf-naive", "beam", 3, api_name="/chat")
    assert isinstance(beam, str)
    with pytest.raises(Exception, match="type something"):
        client.predict("   ", api_name="/chat")


def test_chat_history_holds_only_the_messages_and_the_latency_shows_beside_it(services):
    from studio.ui.chat import chat_reply, retry_reply, shown, typed, undo

    chatbot = services[0]
    expected = expected_reply(chatbot, **SAMPLED)
    assert expected
    steps = list(chat_reply(chatbot, MESSAGE, [], "tf", SAMPLED, "generate"))
    history, _, latency = steps[-1]
    assert history == [{"role": "user", "content": MESSAGE}, {"role": "assistant", "content": shown(expected)}]
    assert latency.startswith("written by the model · tf · first token") and "ms/token" in latency
    # the box is emptied when the message is taken, and never again: what is typed meanwhile stays
    assert steps[0][1] == "" and all(box == gr.skip() for _, box, _ in steps[1:])

    # the browser sends the history back in Gradio's own shape; Retry asks the same message again
    window = gr.Chatbot()
    returned = window.preprocess(window.postprocess(history))
    retried, _, latency = list(retry_reply(chatbot, returned, "tf-naive", SAMPLED, "generate"))[-1]
    assert [typed(m["content"]) for m in retried] == [MESSAGE, expected]
    assert latency.startswith("written by the model · tf-naive")
    assert undo(returned) == ([], "")

    # markup is stored escaped (the chat window renders HTML) and retried as it was typed
    markup = "<img src=http://127.0.0.1:9/x.png> & <script>"
    history, _, _ = list(chat_reply(chatbot, markup, [], "tf", SAMPLED))[-1]
    assert history[0]["content"] == "&lt;img src=http://127.0.0.1:9/x.png&gt; &amp; &lt;script&gt;"
    retried, _, _ = list(retry_reply(chatbot, window.preprocess(window.postprocess(history)), "tf", SAMPLED))[-1]
    assert retried[0]["content"] == history[0]["content"]

    with pytest.warns(UserWarning, match="type something"):
        assert list(chat_reply(chatbot, "  ", history, "tf", SAMPLED))[-1][:2] == (history, "  ")


def test_a_chat_message_is_saved_when_taken_so_a_reply_cut_short_keeps_it(services):
    from studio.ui import conversations
    from studio.ui.chat import ChatTab

    with gr.Blocks() as app:
        tab = ChatTab(services[0], "tf", app)
    settings = [SAMPLED.get(name, control.value) for name, control in tab.decoding.components.items()]
    store_of = lambda step: step[4]  # noqa: E731 (outputs: window, box, latency, stats, store, picker)
    messages = lambda store: [m["content"] for m in conversations.current(store)["messages"]]  # noqa: E731

    reply = tab.send(conversations.empty_store(), MESSAGE, "tf", "generate", *settings)
    taken = store_of(next(reply))
    assert messages(taken) == [MESSAGE, "…"]  # saved before a word of the reply is written
    reply.close()  # New conversation, Undo or a switch cancels the reply here
    # the next message reads the saved conversation (the window may still show the cut reply)
    done = [step for step in tab.send(taken, "두 번째", "tf", "retrieve", *settings) if step[4] != gr.skip()]
    assert messages(store_of(done[-1]))[:3] == [MESSAGE, "…", "두 번째"] and len(messages(store_of(done[-1]))) == 4
    assert len(store_of(done[-1])["conversations"]) == 1  # the same conversation, not a second one


def test_decoding_settings_reach_handlers_by_name_and_the_file_endpoint_keeps_its_parameters(services):
    import inspect

    assert set(ui_settings()) == set(inspect.signature(decode_options).parameters)  # every control, by its keyword
    app = build_app(*services, default_backend="tf")
    translate_file = next(fn for fn in app.fns.values() if fn.api_name == "translate_file")
    # the API's parameters, as before: `file`, `backend`, then the decoding settings in one declared order
    info = app.get_api_info()["named_endpoints"]["/translate_file"]["parameters"]
    assert [p["parameter_name"] for p in info] == ["file", "backend", "strategy", "beam_size", "length_penalty",
                                                   "temperature", "top_k", "top_p", "seed", "max_new_tokens",
                                                   "no_repeat_ngram", "glossary", "protect"]  # named, not param_2...
    assert [c.elem_id or c.label for c in translate_file.inputs] == [
        "translate-file", "translate-backend", "translate-strategy",
        "translate-beam-size", "translate-length-penalty", "translate-temperature", "translate-top-k",
        "translate-top-p", "translate-seed", "translate-max-new-tokens", "translate-no-repeat-ngram",
        "translate-glossary", "translate-protect"]  # added last: earlier clients' calls still work


def test_the_translate_tab_applies_a_typed_and_an_uploaded_glossary(services, tmp_path):
    from studio.ui.translate import load_glossary_file, requested_protection, translate_text

    upload = tmp_path / "terms.tsv"
    upload.write_text("영화\tthe film\n커피\tcoffee\n", encoding="utf-8")
    glossary = load_glossary_file(str(upload), "커피\tespresso\n")  # the file's entries join the box's
    assert sorted(glossary.splitlines()) == ["영화 = the film", "커피 = coffee"]  # as one would type them
    protector = requested_protection(glossary.replace("coffee", "espresso"), True)
    output, _, _, protection = translate_text(services[1], "너는 커피를 샀어? 그는 영화를 봤어?", "tf",
                                              ui_settings(), protector=protector)
    assert "Xq" not in output  # every placeholder replaced, even when the tiny model garbles them
    for term, english in (("커피", "espresso"), ("영화", "the film")):
        assert f"{term} → {english} (applied)" in protection or f"{term} → {english} (not applied" in protection
        assert (english in output) == (f"{term} → {english} (applied)" in protection)
    upload.write_bytes(b"\xff\xfe garbage")
    with pytest.raises(InputError, match="terms.tsv:1: not valid UTF-8"):
        load_glossary_file(str(upload), "")
    with pytest.raises(gr.Error, match="glossary:2: expected"):
        requested_protection("커피\tespresso\n영화 film", True)
    assert requested_protection("", False) is None  # nothing to protect: the plain path
    with pytest.warns(UserWarning, match="kept as written"):
        output, summary, _, _ = translate_text(services[1], "The president met the press.", "tf", ui_settings())
    assert output == "The president met the press." and summary.startswith("tf · nothing translated (no Korean) · ")


def test_a_translated_document_says_how_many_sentences_took_how_long(services, tmp_path):
    from studio.ui.translate import translate_file

    upload = tmp_path / "뉴스.txt"
    upload.write_text("너는 커피를 샀어? 그는 영화를 봤어?\n\n나는 학교에 간다.\n", encoding="utf-8")
    path, _, _, done = translate_file(services[1], tmp_path, str(upload), "tf", ui_settings())
    assert path.endswith("뉴스.en.txt")  # sentences as the progress bar counts them: pieces that fit
    assert re.fullmatch(r"뉴스\.en\.txt: \d sentences translated in [\d.]+ s \(tf\)\.", done)


def test_explore_draws_every_attention_map_and_the_tutorial_figures(services):
    from studio.ui.explore import explore as handler

    app = build_app(*services, default_backend="tf")
    shown = next(fn.fn for fn in app.fns.values() if getattr(getattr(fn.fn, "__wrapped__", None), "func", None) is handler)
    explore = shown.__wrapped__
    summary, encoder, decoder, cross, positional, schedule, config, layer = explore("나는 커피를 좋아해?", "chatbot", 2)
    assert "Parameters:" in summary
    heads = [axis.get_title() for axis in encoder.axes if axis.get_title()]
    assert heads == ["head 1", "head 2", "head 3", "head 4"]  # one heat-map per head (4 heads)
    assert len(cross.axes) == 5 and cross.axes[-1].get_ylabel() == "attention weight"  # and the colour scale
    assert config["model"]["d_model"] == 32 and layer == 2
    assert config["model"]["num_decoder_layers"] == services[0].bundle.config.model.decoder_depth > 0  # as built
    assert positional.axes and schedule.axes
    with pytest.warns(UserWarning, match="has layers 1 to 2, so layer 2 is shown"):  # a toast in the page
        summary, encoder, *_, layer = explore("나는 커피를 좋아해?", "chatbot", 99)
    assert encoder.get_suptitle() == "Encoder self-attention, layer 2" and layer == 2  # the field says so too
    assert summary.startswith("⚠ *Layer 99 was asked: the chatbot has layers 1 to 2")  # and the page, lasting
    with pytest.warns(UserWarning, match="Please type something first"):  # a notice, no error badge on each plot
        assert shown("", "chatbot", 1) == ("", None, None, None, None, None, None, gr.skip())


def test_compare_runs_every_backend_and_reports_agreement(app_url, services):
    reference, summary, rows = app_client(app_url).predict("나는 커피를 좋아해?", api_name="/compare")
    assert reference == services[0].generator("tf")("나는 커피를 좋아해?")
    table = rows["data"] if isinstance(rows, dict) else rows
    assert [row[0] for row in table] == services[0].backends()  # one row per backend (exports built on demand)
    assert all(row[-1] == "yes" for row in table if row[0] in ("tf", "tf-naive", "tflite", "onnx"))
    assert "backends** give the TF output" in summary


@pytest.mark.browser
def test_chat_and_translate_in_a_real_browser(app_url, services, tmp_path):
    expected = expected_reply(services[0], **ui_settings(**SAMPLED))
    assert expected
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(app_url)
        page.locator("#chat-reply").get_by_label("the model writes it").check()
        page.locator("#chat-decoding").get_by_text("Decoding").click()
        page.locator("#chat-strategy").get_by_label("sample").check()
        page.locator("#chat-seed input").fill(str(SAMPLED["seed"]))
        page.locator("#chat-input textarea").fill(MESSAGE)
        page.locator("#chat-send").click()
        latency = page.locator("#chat-latency")
        latency.get_by_text("written by the model · tf · first token").wait_for(timeout=60_000)
        assert "ms/token" in latency.inner_text()
        bots = page.locator("[data-testid='bot']")
        # the reply alone (as the page renders it: runs of spaces collapse), its latency beside the chat
        assert bots.all_inner_texts() == [" ".join(expected.split())]

        # the copy button copies the reply, nothing else
        page.evaluate("navigator.clipboard.writeText = async text => { window.__copied = text }")
        bots.last.hover()
        page.get_by_role("button", name="Copy message").last.click()
        assert page.evaluate("window.__copied") == expected

        # switch the backend and get the same reply again, now from the other runtime
        page.locator("#chat-backend input").click()
        page.get_by_role("option", name="tf-naive").click()
        page.locator("#chat-input textarea").fill(MESSAGE)
        page.locator("#chat-send").click()
        latency.get_by_text("tf-naive · first token").wait_for(timeout=60_000)
        assert bots.all_inner_texts() == [" ".join(expected.split())] * 2

        # a stored reply, as the Replies setting asks: with where it came from beside it
        page.locator("#chat-reply").get_by_label(REPLY_LABELS["retrieve"]).check()
        page.locator("#chat-input textarea").fill(MESSAGE)
        page.locator("#chat-send").click()
        latency.get_by_text("stored reply · match").wait_for(timeout=60_000)
        assert bots.all_inner_texts()[-1] == " ".join(find_reply(services[0].bundle.replies, MESSAGE).text.split())
        page.locator("#chat-reply").get_by_label(REPLY_LABELS["generate"]).check()

        # an injected <img onerror> or <script> is shown as text, never run, and fetches nothing
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.evaluate("window.__pwned = false")
        typed = ('<img src=http://127.0.0.1:9/pwned.png onerror="window.__pwned=true">'
                 "<script>window.__pwned=true</script>")
        page.locator("#chat-backend input").click()
        page.get_by_role("option", name="tf", exact=True).click()
        page.locator("#chat-input textarea").fill(typed)
        page.locator("#chat-send").click()
        latency.get_by_text("tf · first token").wait_for(timeout=60_000)
        assert page.evaluate("window.__pwned") is False and not [url for url in requests if "pwned" in url]
        shown = page.locator("[data-testid='user']").all_inner_texts()[-1]
        assert typed in shown  # shown as the text that was typed
        assert bots.count() == 4 and not any("ms/token" in bubble for bubble in bots.all_inner_texts())

        page.get_by_role("tab", name="Translate").click()
        page.locator("#translate-input textarea").fill("그는 책을 샀어?")
        page.locator("#translate-button").click()
        page.locator("#translate-latency").get_by_text("ms/token").wait_for(timeout=60_000)
        output = page.locator("#translate-output textarea").input_value()
        marked = page.locator("#translate-confidence")  # every output word, marked by the model's confidence
        page.wait_for_function("id => document.querySelector(id)?.innerText.includes('doubtful')",
                               arg="#translate-confidence", timeout=30_000)  # the legend
        assert "".join(output.split()) in "".join(marked.inner_text().split())  # the same words, spacing aside

        # a paste over the limit is not cut short in the box: the server says why it is refused, the text stays
        pasted = "그는 책을 샀어? " * 25
        page.locator("#translate-input textarea").fill(pasted)
        page.locator("#translate-button").click()
        page.locator(".toast-body").filter(has_text="the limit is 200").first.wait_for(timeout=30_000)
        assert page.locator("#translate-input textarea").input_value() == pasted

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


def test_auth_protects_the_app_and_its_api(services):
    import urllib.error
    import urllib.request

    app = build_app(*services, default_backend="tf")
    app.queue()
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
               auth=[("studio", "s3cret")])
    url = f"http://127.0.0.1:{port}/"
    try:
        with pytest.raises(Exception):
            app_client(url).predict("나는 커피를 좋아해?", api_name="/chat")
        with pytest.raises(urllib.error.HTTPError, match="401"):
            urllib.request.urlopen(url + "config")  # noqa: S310 - loopback only
        reply, _ = app_client(url, auth=("studio", "s3cret")).predict("나는 커피를 좋아해?", api_name="/chat")
        assert isinstance(reply, str)
    finally:
        app.close()


def test_downloads_get_their_own_folder_and_old_ones_are_removed(tmp_path):
    from studio.app_model import offer_download

    first = offer_download(tmp_path / "out", "notes.en.txt", "안녕 hello")
    second = offer_download(tmp_path / "out", "notes.en.txt", b"bytes")
    assert first.name == second.name == "notes.en.txt" and first.parent != second.parent
    assert first.read_text(encoding="utf-8") == "안녕 hello" and second.read_bytes() == b"bytes"
    old = time.time() - 7200
    os.utime(first.parent, (old, old))
    third = offer_download(tmp_path / "out", "chat.md", "x", max_age_s=3600)
    assert not first.parent.exists() and second.exists() and third.exists()


def test_an_upload_over_its_limit_or_gone_is_refused_by_name(services, tmp_path):
    from studio.ui.common import read_upload
    from studio.ui.translate import translate_file

    upload = tmp_path / "terms.tsv"
    upload.write_bytes(b"x" * 2**20)
    assert read_upload(str(upload), 2**20, "a glossary") == ("terms.tsv", b"x" * 2**20)
    upload.write_bytes(b"x" * (2**20 + 1))
    with pytest.raises(InputError, match=r"^terms.tsv: larger than 1 MB, the most a glossary may be\.$"):
        read_upload(str(upload), 2**20, "a glossary")  # a megabyte as the page counts it
    with pytest.raises(InputError, match="gone.txt: the upload could not be read"):
        read_upload(str(tmp_path / "gone.txt"), 1_000_000)
    with pytest.raises(InputError, match=r"terms.pdf: cannot read this type of file as a glossary; choose \.tsv"):
        read_upload(str(upload.with_name("terms.pdf")), 1_000_000, "a glossary", suffixes=(".tsv",))
    big = tmp_path / "big.txt"
    big.write_bytes("가\n".encode() * (services[1].limits.max_file_bytes // 4 + 1))
    with pytest.raises(gr.Error, match="big.txt: larger than .* the most a document may be"):
        translate_file(services[1], tmp_path, str(big), "tf", ui_settings())


def test_a_cancel_while_the_document_waits_for_a_worker_is_kept(services):
    """Translate file makes its job's stop flag at the click, before the job is queued: a Cancel pressed while
    jobs wait cancels those of its session (they do nothing when their turn comes and delete their upload), a
    later click starts afresh, other sessions and API calls (no click) are not touched."""
    import tempfile
    from pathlib import Path
    from types import SimpleNamespace

    from gradio.utils import get_upload_folder

    from studio.ui.translate import TranslateTab

    with gr.Blocks():
        tab = TranslateTab(services[1], "tf")
    settings = list(ui_settings().values())
    me, other = SimpleNamespace(session_hash="me"), SimpleNamespace(session_hash="other")

    def upload():  # where Gradio keeps uploads: a job deletes its upload, translated or not
        folder = Path(tempfile.mkdtemp(dir=get_upload_folder()))
        (folder / "notes.txt").write_text("나는 커피를 좋아해.\n", encoding="utf-8")
        return str(folder / "notes.txt")

    def job(session, file):
        return tab.translate_upload(session, None, file, "tf", *settings, "", True)

    tab.expect_upload(me), tab.expect_upload(other), tab.expect_upload(me)  # three clicks, all waiting
    tab.cancel_upload(me)
    first, second, third = upload(), upload(), upload()
    assert job(me, first) is None and job(me, second) is None  # both of my waiting jobs were cancelled
    assert not Path(first).exists() and not Path(second).exists()
    assert job(other, third).endswith("notes.en.txt")
    tab.expect_upload(me)  # a click after the Cancel is not cancelled by it
    assert job(me, upload()).endswith("notes.en.txt")
    assert job(SimpleNamespace(session_hash="api"), upload()).endswith("notes.en.txt")  # no click before it
    tab.expect_upload(me)
    bad_glossary = upload()
    with pytest.raises(gr.Error, match="glossary:1"):
        tab.translate_upload(me, None, bad_glossary, "tf", *settings, "커피 coffee", True)
    assert not Path(bad_glossary).exists()  # refused before it was read: deleted all the same
    assert len(tab.jobs) == 0


def test_the_translate_tab_decodes_by_the_products_defaults(services):
    """The task's default decoding (beam search for the translator), and Max new tokens at what the model can
    write: a lower default would cut long translations short (7% of the news dev sentences need over 64 tokens)."""
    from studio.tasks import TRANSLATOR
    from studio.ui.translate import TranslateTab

    with gr.Blocks():
        tab = TranslateTab(services[1], "tf")
    values = {name: component.value for name, component in tab.decoding.components.items()}
    assert {name: values[name] for name in TRANSLATOR.default_decoding} == TRANSLATOR.default_decoding
    slider = tab.decoding.components["max_new_tokens"]
    assert slider.value == services[1].bundle.config.model.max_target_len <= slider.maximum
