"""The exported models outside Python (the `web/` package): the Node tests (`node --test`: normalization,
SentencePiece ids, ONNX and LiteRT.js greedy and beam ids and step-0 logits against the export's golden data,
every hostile input's normalization) and the static site in headless Chromium (LiteRT.js decodes every golden
sentence to the golden ids, greedy and beam; a tab loads its model when first shown; the translator's tab translates,
says why it sends nothing, and stops a long text at once; the chatbot's tab answers with a stored reply, saying so,
and with the model's when asked; after a reload offline a tab loaded before works again). Skipped with a message when
Node.js or Chromium is missing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from helpers import OwnContexts, built_once
from hostile import INPUTS

NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js 20+ and npm (the web/ package)")


@pytest.fixture(scope="module")
def web_dir():
    from exporters.web import WEB_DIR, ensure_web_packages

    ensure_web_packages(progress=lambda message: None)
    return WEB_DIR


@pytest.fixture(scope="module")
def site(web_dir, exported, tmp_path_factory):
    """(a copy of the exported tiny bundle, its static site served on loopback, the site's URL). Building
    the site exports the batch-1 graph the page runs (float16) and rewrites golden/ with its ids; the fp32
    batch-1 graph is exported first, for the Node tests of LiteRT.js on fp32."""
    from exporters import ensure_exported
    from exporters.web import build_site
    from studio.bundle import load_bundle

    def build(web):  # once per test run: a second worker serves the first one's site
        shutil.copytree(exported[0], web / "chat")
        ensure_exported(load_bundle(web / "chat"), ["tflite-b1"], progress=lambda message: None)
        build_site([web / "chat"], web / "site", progress=lambda message: None)

    web = built_once(tmp_path_factory, "web", build)
    bundle_dir, folder = web / "chat", web / "site"
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield bundle_dir, folder, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


def test_node_tests_reproduce_the_golden_data_and_pythons_normalization(web_dir, site, tmp_path):
    import importlib.util

    from exporters.golden import normalization_cases

    spec = importlib.util.spec_from_file_location("replies_fixture", web_dir / "scripts" / "replies-fixture.py")
    replies = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(replies)
    replies._mobile().portable_copy()  # the shipped chatbot's stored replies, which test/retrieval.test.mjs reads

    bundle_dir, folder, _ = site
    cases = tmp_path / "hostile-normalization.json"
    # ASCII JSON: lone surrogates travel as \\udxxx escapes, which JavaScript's JSON.parse reads back as they were
    cases.write_text(json.dumps(normalization_cases([text for _, text in INPUTS])), encoding="ascii")
    tflite = json.loads((folder / "site.json").read_text(encoding="utf-8"))["models"][0]["tflite"]
    env = {**os.environ, "GOLDEN_DIR": str(bundle_dir / "exports"), "BUNDLE_DIR": str(bundle_dir),
           "NORMALIZATION_CASES": str(cases), "LITERT_TFLITE": f"{tflite},model.b1.tflite"}
    result = subprocess.run([NODE, "--test", "test/"], cwd=web_dir, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    assert "# fail 0" in result.stdout and "# skipped 0" in result.stdout, result.stdout[-2000:]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_the_site_is_self_contained(site):
    _, folder, _ = site
    manifest = json.loads((folder / "site.json").read_text(encoding="utf-8"))
    assert [m["name"] for m in manifest["models"]] == ["chatbot"]
    text = "".join(p.read_text(encoding="utf-8", errors="ignore") for p in folder.rglob("*")
                   if p.suffix in (".html", ".js", ".mjs", ".json", ".css"))
    assert "cdn." not in text and "unpkg.com" not in text and "jsdelivr" not in text


@pytest.mark.browser
def test_the_page_decodes_every_golden_sentence_with_litert_js_in_chromium(module_browser, site):
    bundle_dir, folder, url = site
    entry = json.loads((folder / "site.json").read_text(encoding="utf-8"))["models"][0]
    golden = json.loads((bundle_dir / "exports" / "golden" / "golden.json").read_text(encoding="utf-8"))
    expected = [s["greedy_ids_by_file"][entry["tflite"]] for s in golden["sentences"]]
    # beam search (no b1 graph runs it in Python): the standard graph of the same quantization
    expected_beam = [s["beam_ids_by_file"]["model.float16.tflite"] for s in golden["sentences"]]
    assert entry["tflite"] == "model.b1.float16.tflite"
    with OwnContexts(module_browser) as browser:
        page = browser.new_page()
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(url + f"index.html?golden=chatbot&beam={len(expected_beam)}")
        page.wait_for_function("document.querySelector('#golden-result')?.dataset.done === 'true'",
                               timeout=120_000)
        result = json.loads(page.locator("#golden-result").inner_text())
    assert result["ids"] == expected
    assert result["beamIds"] == expected_beam
    assert all(r.startswith(url) for r in requests), [r for r in requests if not r.startswith(url)]


@pytest.mark.browser
def test_a_translator_tab_translates_line_by_line_and_sentence_by_sentence(module_browser, site):
    """The tiny bundle's config, served as a translator's: a paragraph's sentences are decoded one by one (as
    many pieces as Python's plan_lines makes of it), a blank line is kept (the tiny model's words are noise), and no
    number is written that the source lacks (figures.js, as Python's translator decodes)."""
    from studio.bundle import load_bundle
    from studio.text.facts import source_numbers
    from studio.translation import plan_lines
    from studio.text.preprocess import Preprocessor

    bundle_dir, _, url = site
    text = "나는 커피를 좋아해. 너는 영화를 봤어?\n\n2018년 9월 30일 오늘 날씨는 어때?"
    bundle = load_bundle(bundle_dir)
    pieces = sum(map(len, plan_lines(Preprocessor(bundle.config, bundle.tokenizers), text.split("\n"))))
    config = json.loads((bundle_dir / "config.json").read_text(encoding="utf-8"))
    config["task"].update(task="translator", target_lang="en")  # the tiny chatbot as a Korean→English translator
    with OwnContexts(module_browser) as browser:
        page = browser.new_page(service_workers="block")  # page.route() does not see what sw.js fetches
        page.route("**/config.json", lambda route: route.fulfill(json=config))
        page.goto(url + "index.html")
        button = page.locator(".panel:not([hidden]) button[type=submit]")
        page.wait_for_function("b => b.textContent === 'Translate' && !b.disabled", arg=button.element_handle(),
                               timeout=120_000)
        page.locator(".panel:not([hidden]) textarea[name=text]").fill(text)
        button.click()
        stats = page.locator(".panel:not([hidden]) .transcript .stats")
        page.wait_for_function("s => s.textContent.includes('sentences')", arg=stats.element_handle(), timeout=120_000)
        output = page.locator(".panel:not([hidden]) .transcript .output").inner_text()
        assert f"{pieces} sentences" in stats.inner_text() and button.inner_text() == "Translate"
    assert len(output.split("\n")) == 3 and output.split("\n")[1] == ""
    assert source_numbers(output) <= {"2018", "9", "30"}


@pytest.mark.browser
def test_a_chatbot_tab_answers_with_a_stored_reply_saying_so_and_with_the_models_when_asked(module_browser, site):
    from studio.bundle import load_bundle
    from studio.replies import FROM_THE_MODEL, NONE_STORED, find_reply

    bundle_dir, _, url = site
    index = load_bundle(bundle_dir).replies
    message = index.questions[0] + " ㅋㅋ"
    found = find_reply(index, message)
    with OwnContexts(module_browser) as browser:
        page = browser.new_page(service_workers="block")
        page.goto(url + "index.html")
        button = page.locator(".panel:not([hidden]) button[type=submit]")
        page.wait_for_function("b => !b.disabled", arg=button.element_handle(), timeout=120_000)
        assert page.locator(".panel:not([hidden]) select[name=replies]").is_visible()

        def send(text: str) -> tuple[str, str, list[str]]:
            page.locator(".panel:not([hidden]) textarea[name=text]").fill(text)
            button.click()
            stats = page.locator(".panel:not([hidden]) .transcript .stats").last
            page.wait_for_function("s => s.textContent !== ''", arg=stats.element_handle(), timeout=120_000)
            warnings = page.locator(".panel:not([hidden]) .transcript .warning").all_inner_texts()
            output = page.locator(".panel:not([hidden]) .transcript .output").last
            return output.inner_text(), stats.inner_text(), warnings

        text, stats, _ = send(message)
        assert text == found.text
        assert stats.startswith(f"stored reply · match {found.match:.2f} · answers “{found.question}”")
        text, stats, warnings = send("🎉 xyz")  # no n-gram in common: the model's, saying why
        assert stats.startswith(f"{FROM_THE_MODEL} · first token") and NONE_STORED in warnings
        page.locator(".panel:not([hidden]) select[name=replies]").select_option("generate")
        text, stats, _ = send(message)
        assert stats.startswith(f"{FROM_THE_MODEL} · first token")


@pytest.mark.browser
def test_a_translator_tab_takes_a_glossary_and_refuses_a_malformed_one(module_browser, site):
    """The translator's tab: its length penalty starts at the task's default (site.json's `decoding`); a malformed
    glossary line is named below the box and nothing is translated; once fixed, its entry is reported as given (the
    tiny model's words are noise: whether it kept the placeholder is its own affair), automatic protection off."""
    from exporters.web import page_decoding

    bundle_dir, folder, url = site
    manifest = json.loads((folder / "site.json").read_text(encoding="utf-8"))
    assert manifest["models"][0]["decoding"] == page_decoding("chatbot")
    manifest["models"][0]["decoding"] = page_decoding("translator")
    config = json.loads((bundle_dir / "config.json").read_text(encoding="utf-8"))
    config["task"].update(task="translator", target_lang="en")  # the tiny chatbot as a Korean→English translator
    with OwnContexts(module_browser) as browser:
        page = browser.new_page(service_workers="block")  # page.route() does not see what sw.js fetches
        page.route("**/site.json", lambda route: route.fulfill(json=manifest))
        page.route("**/config.json", lambda route: route.fulfill(json=config))
        page.goto(url + "index.html")
        panel = page.locator(".panel:not([hidden])")
        button = panel.locator("button[type=submit]")
        page.wait_for_function("b => b.textContent === 'Translate' && !b.disabled", arg=button.element_handle(),
                               timeout=120_000)
        assert panel.locator("input[name=lengthPenalty]").input_value() == "1.8"
        panel.get_by_text("Glossary and protected terms").click()
        assert panel.locator("input[name=protect]").is_checked()
        panel.locator("textarea[name=text]").fill("너는 커피를 샀어?")
        panel.locator("textarea[name=glossary]").fill("# terms\n커피 espresso")  # a space, not a tab
        button.click()
        error = panel.locator(".glossary-error")
        error.wait_for(state="visible", timeout=10_000)
        assert error.inner_text() == ("glossary:2: expected the Korean term and its English separated by a tab, = or "
                                      "→, got '커피 espresso'")
        assert panel.locator(".transcript li").count() == 0
        assert panel.locator("textarea[name=text]").input_value() == "너는 커피를 샀어?"

        panel.locator("textarea[name=glossary]").fill("# terms\n커피 = espresso")  # as typed: no tab
        panel.locator("input[name=protect]").uncheck()
        button.click()
        stats = panel.locator(".transcript .stats")
        page.wait_for_function("s => s.textContent !== ''", arg=stats.element_handle(), timeout=120_000)
        assert error.is_hidden()
        assert "Glossary: 커피 → espresso (" in panel.locator(".transcript .warning").all_inner_texts()[-1]


@pytest.mark.browser
def test_a_tab_fetches_its_model_only_when_first_shown(module_browser, site):
    """A second tab (the same files served under another folder): nothing of it is fetched until it is opened;
    opening it loads it and names it in the address, so a link can open it first."""
    _, folder, url = site
    manifest = json.loads((folder / "site.json").read_text(encoding="utf-8"))
    manifest["models"].append({**manifest["models"][0], "name": "second", "title": "Second", "dir": "second/"})

    def from_first(route):
        route.fulfill(path=str(folder / "chatbot" / route.request.url.split("/second/", 1)[1]))

    with OwnContexts(module_browser) as browser:
        page = browser.new_page(service_workers="block")  # page.route() does not see what sw.js fetches
        requests = []
        page.on("request", lambda request: requests.append(request.url))
        page.route("**/site.json", lambda route: route.fulfill(json=manifest))
        page.route("**/second/**", from_first)
        page.goto(url + "index.html")
        ready = "name => document.querySelector(`.panel[data-name=${name}] button[type=submit]`)?.disabled === false"
        page.wait_for_function(ready, arg="chatbot", timeout=120_000)
        assert page.locator(".panel:not([hidden]) .status").inner_text().startswith("Ready.")
        assert not [r for r in requests if "/second/" in r]
        page.get_by_role("tab", name="Second").click()
        page.wait_for_function(ready, arg="second", timeout=120_000)
        assert url + "second/" + manifest["models"][1]["tflite"] in requests
        assert page.evaluate("location.hash") == "#second"


@pytest.mark.browser
def test_a_translator_tab_says_why_it_sends_nothing_and_stops_a_long_text(module_browser, site):
    """What the translator's tab says instead of sending (whitespace; an out-of-range input of the chosen strategy,
    while a hidden one blocks nothing); a text without Korean kept; a long URL wraps at phone width; and Stop, clicked
    while a long text is translated, is handled at once (the page yields between steps): the stats say where it
    stopped."""
    bundle_dir, _, url = site
    config = json.loads((bundle_dir / "config.json").read_text(encoding="utf-8"))
    config["task"].update(task="translator", target_lang="en")  # the tiny chatbot as a Korean→English translator
    with OwnContexts(module_browser) as browser:
        page = browser.new_page(viewport={"width": 390, "height": 844}, service_workers="block")  # as above
        page.route("**/config.json", lambda route: route.fulfill(json=config))
        page.goto(url + "index.html")
        panel = page.locator(".panel:not([hidden])")
        button, text = panel.locator("button[type=submit]"), panel.locator("textarea[name=text]")
        notice = panel.locator(".notice")
        page.wait_for_function("b => b.textContent === 'Translate' && !b.disabled", arg=button.element_handle(),
                               timeout=120_000)
        assert "Korean" in text.get_attribute("placeholder")
        text.fill("  \n ")
        button.click()
        assert notice.inner_text() == "Please enter Korean text to translate."
        panel.locator("select[name=strategy]").select_option("beam")
        panel.locator("input[name=lengthPenalty]").fill("2.5")
        text.fill("너는 커피를 샀어?")
        button.click()
        assert notice.inner_text() == "length penalty must be a number from 0 to 2 (it is 2.5)."
        assert panel.locator(".transcript li").count() == 0
        panel.locator("select[name=strategy]").select_option("greedy")  # the 2.5 is hidden now, and unused
        stats = panel.locator(".transcript .stats")

        def translate(words):
            count = stats.count()
            text.fill(words)
            button.click()
            page.wait_for_function("([b, count]) => b.textContent === 'Translate' && "
                                   "document.querySelectorAll('.panel:not([hidden]) .stats').length > count",
                                   arg=[button.element_handle(), count], timeout=120_000)
            return stats.last.inner_text()

        url_text = "너는 커피를 샀어? 자세한 내용은 https://news.seoul.go.kr/traffic/archives/123456789012345 참고"
        assert "tokens" in translate(url_text)
        assert notice.is_hidden()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert translate("Only English here.") == "nothing translated: the text has no Korean"

        text.fill("\n".join(["나는 커피를 좋아해. 너는 영화를 봤어?"] * 400))
        button.click()
        page.wait_for_function("() => !/^…?$/.test([...document.querySelectorAll('.panel:not([hidden]) .output')]"
                               ".pop().textContent)", timeout=60_000)
        button.click(timeout=10_000)  # Stop: in view while the output grows, and taken between decode steps
        page.wait_for_function("b => b.textContent === 'Translate'", arg=button.element_handle(), timeout=10_000)
        assert "stopped after" in stats.last.inner_text()


@pytest.mark.browser
def test_a_reload_offline_finds_the_page_and_the_models_loaded_before(module_browser, site, tmp_path):
    """sw.js keeps what the page fetched: served under a sub-path (as `studio launch --site` serves it at /site/),
    the page loads its first tab's model, then the server stops and the browser goes offline (nothing can come from
    the network); after a reload the tab loads and answers again, and a second tab, never opened, says plainly that
    it cannot load offline."""
    _, folder, _ = site
    manifest = json.loads((folder / "site.json").read_text(encoding="utf-8"))
    manifest["models"].append({**manifest["models"][0], "name": "second", "title": "Second", "dir": "second/"})
    served = tmp_path / "root" / "site"
    served.mkdir(parents=True)
    for path in folder.iterdir():
        if path.name != "site.json":
            (served / path.name).symlink_to(path)
    (served / "second").symlink_to(folder / "chatbot")
    (served / "site.json").write_text(json.dumps(manifest), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(served.parent)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/site/"
    ready = "() => document.querySelector('.panel[data-name=chatbot] button[type=submit]')?.disabled === false"
    try:
        with OwnContexts(module_browser) as browser:
            context = browser.new_context()
            page = context.new_page()
            page.goto(url)
            page.wait_for_function(ready, timeout=120_000)
            status = page.locator(".panel:not([hidden]) .status")
            assert "works offline, also after a reload" in status.inner_text()
            tflite = url + "chatbot/" + manifest["models"][0]["tflite"]
            page.wait_for_function("async u => !!(await caches.match(u))", arg=tflite, timeout=30_000)  # written
            server.shutdown()
            server.server_close()
            context.set_offline(True)
            page.reload()
            page.wait_for_function(ready, timeout=120_000)
            assert status.inner_text().startswith("Ready.")
            panel = page.locator(".panel:not([hidden])")
            panel.locator("textarea[name=text]").fill("안녕")
            panel.locator("button[type=submit]").click()
            stats = panel.locator(".transcript .stats")
            page.wait_for_function("s => s.textContent !== ''", arg=stats.element_handle(), timeout=120_000)
            assert "tokens" in stats.inner_text()
            assert not panel.locator(".transcript .output").inner_text().startswith("Error")

            page.get_by_role("tab", name="Second").click()
            second = page.locator(".panel[data-name=second] .status")
            page.wait_for_function("s => s.textContent.includes('cannot be loaded')", arg=second.element_handle(),
                                   timeout=30_000)
            # "offline" where the browser says so (navigator.onLine): Playwright's offline leaves it true here
            assert re.fullmatch(r"Second cannot be loaded (offline|now: the server cannot be reached), and its model "
                                r"has not been downloaded in this browser yet\. Connect to the network and open this "
                                r"tab again\.", second.inner_text()), second.inner_text()
    finally:
        server.shutdown()
        server.server_close()
