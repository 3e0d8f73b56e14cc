"""The Train and Models tabs in headless Chromium (marked `browser`): a new user uploads a tiny CSV, sees what was
read, trains a tiny model in the background, watches its curve and samples, stops it, resumes it, finds it in
the Models tab, uses it, and chats with it. The app runs here with a data folder of its own (the library and the
jobs), so nothing of another test's or the user's is seen."""

import json
import os
import re
import shutil

import pytest
from helpers import free_port, generated_pairs, own_data_folder, page_at

from studio import library
from studio.bundle import load_bundle
from studio.replies import find_reply
from studio.train import jobs

pytestmark = pytest.mark.browser

MESSAGE = "나는 커피를 좋아해?"
TINY_SHAPE = {"d_model": "32", "encoder layers": "2", "attention heads": "4", "feed-forward size": "64",
              "vocabulary size": "300"}


@pytest.fixture(scope="module")
def app(exported, tmp_path_factory):
    from studio.ui.app import launch

    with own_data_folder(tmp_path_factory.mktemp("studio-data")):
        server = launch(exported[0], exported[0], port=free_port(), backend="tf", prevent_thread_lock=True,
                        progress=lambda _: None)
        yield server.local_url
        server.close()
        running = jobs.running_job()
        if running is not None:
            jobs.stop(running)


@pytest.fixture(scope="module")
def page(app):
    with page_at(app) as page:
        page.get_by_role("tab", name="Train").wait_for()
        yield page


def status(page) -> str:
    return page.locator("#train-status").inner_text()


def choose(page, name: str) -> None:
    """`name` chosen in the Models tab's list, by clicking its option (typed and Enter, it could be typed before
    the list held it)."""
    page.locator("#models-choice input").click()
    page.locator("#models-choice").get_by_role("option", name=name, exact=True).click()
    page.wait_for_function("(name) => document.querySelector('#models-choice input')?.value === name", arg=name)


def answered(page) -> None:
    """Until the Models tab's last event has answered: Gradio's page drops a click on a button whose previous click
    is still being answered (its outputs show a progress overlay until then)."""
    page.wait_for_function("() => [...document.querySelectorAll('#models-details .wrap')]"
                           ".every(wrap => wrap.classList.contains('hide'))")


def wait_for_status(page, pattern: str, timeout_s: float = 240) -> str:
    page.wait_for_function("(pattern) => new RegExp(pattern).test(document.querySelector('#train-status')"
                           "?.innerText ?? '')", arg=pattern, timeout=timeout_s * 1000)
    return status(page)


def test_a_new_user_trains_stops_resumes_and_chats_with_a_model_of_their_own(page, tmp_path):
    data = tmp_path / "faq.csv"
    data.write_text("question,answer\n" + "".join(f"{q},{a}\n" for q, a, _ in generated_pairs(60)), encoding="utf-8")
    page.get_by_role("tab", name="Train").click()
    page.locator("#train-files input[type=file]").set_input_files(str(data))
    page.wait_for_function("document.querySelector('#train-report')?.innerText.includes('Pairs kept')")
    report = page.locator("#train-report").inner_text()
    assert "faq.csv" in report and re.search(r"Pairs kept\s+\d+", report) and "duplicate pair" in report

    page.locator("#train-name textarea, #train-name input").first.fill("web bot")
    page.get_by_label("Epochs (0: the preset's)").fill("12")
    page.get_by_label("Batch size (0: the preset's)").fill("8")
    page.get_by_text("Advanced: the model's shape").click()
    for label, value in TINY_SHAPE.items():
        page.get_by_label(label, exact=True).fill(value)
    page.locator("#train-start").click()
    wait_for_status(page, r"step \d")  # the page follows the job's events
    assert "web bot" in status(page) and "tokens/s" in status(page)

    page.locator("#train-stop").click()
    stopped = wait_for_status(page, r": stopped")
    # in its first minute a stop ends it at once (Resume starts again); later, after a checkpoint
    assert "Resume starts it again" in stopped or "resume continues from the last checkpoint" in stopped
    page.locator("#train-resume").click()
    wait_for_status(page, r": running")
    finished = wait_for_status(page, r": finished", timeout_s=400)
    assert "epoch" in finished
    assert page.locator("#train-samples").inner_text().count(MESSAGE[:2]) >= 0  # the table is drawn
    assert "is in your models" in page.locator("#train-comparison").inner_text()
    for plot, curves in (("#train-loss", 2), ("#train-chrf", 1)):  # every line drawn in colour, on the page that
        page.wait_for_function("([plot, curves]) => {"  # was empty before the run: the dev loss too, though the
                               "const lines = [...document.querySelectorAll(plot + ' .mark-line path')];"  # first
                               "return lines.length >= curves && lines.every(line => line.getAttribute('stroke'))}",
                               arg=[plot, curves])  # frames had none of it

    page.get_by_role("tab", name="Models").click()  # lists the library as it is now
    page.wait_for_function("document.querySelector('#models-table')?.innerText.includes('web bot')")
    choose(page, "web bot")
    page.wait_for_function("document.querySelector('#models-details')?.innerText.includes('yours')")
    metrics = library.models_dir() / "web bot" / "metrics.json"  # as a run whose dev figures show it learned little
    metrics.write_text(json.dumps({**json.loads(metrics.read_text(encoding="utf-8")), "dev_chrf": 3.0}),
                       encoding="utf-8")
    page.locator("#models-use").click()  # asks first, saying why
    page.locator("#models-use", has_text="Use web bot anyway").wait_for()
    answered(page)
    page.locator("#models-use").click()
    page.get_by_text("The chatbot tabs now use web bot").wait_for()
    assert library.chosen_name("chatbot") == "web bot"
    # the chatbot's tabs run it now (this app's translator tabs run the tiny test bundle, not a library model);
    # the table is read once redrawn (under load it can still say "processing")
    page.wait_for_function("document.querySelector('#models-table')?.innerText.includes('▶')")
    cells = [cell.strip() for cell in page.locator("#models-table").inner_text().split("\n") if cell.strip()]
    assert cells.count("▶") == 1 and cells[cells.index("▶") + 1] == "web bot"

    # the chat's default reply: a stored one, from the stored replies the training wrote into the new model
    expected = find_reply(load_bundle(library.models_dir() / "web bot").replies, MESSAGE).text
    page.get_by_role("tab", name="Chat").click()
    page.wait_for_function("document.querySelector('#chat-model')?.innerText.includes('Model: web bot (one of yours)')")
    page.locator("#chat-input textarea").fill(MESSAGE)
    page.locator("#chat-input textarea").press("Enter")
    page.wait_for_function("(text) => document.querySelector('#chat-window')?.innerText.includes(text)",
                           arg=expected, timeout=60_000)


def test_the_library_refuses_to_delete_the_model_in_use_from_the_page(page):
    page.get_by_role("tab", name="Models").click()
    choose(page, "web bot")
    page.locator("#models-delete").click()
    page.get_by_text("choose another chatbot model first").wait_for()
    assert "web bot" in [e.name for e in library.list_models()]


def test_a_model_is_deleted_on_the_second_click_only(page, monkeypatch):
    import time

    from studio.ui import models

    def slow_details(name, details=models.details):  # the choice's answer lands after the quick click on Delete
        time.sleep(0.5)
        return details(name)

    monkeypatch.setattr(models, "details", slow_details)
    shutil.copytree(library.models_dir() / "web bot", library.models_dir() / "spare bot")
    page.get_by_role("tab", name="Chat").click()
    page.get_by_role("tab", name="Models").click()  # lists the library anew
    choose(page, "spare bot")
    page.locator("#models-delete").click()
    page.get_by_role("button", name="Delete spare bot? Click again").wait_for()
    page.wait_for_function("document.querySelector('#models-details')?.innerText.includes('spare bot')")
    # the choice answered after the click, and kept its question
    assert page.locator("#models-delete").inner_text() == "Delete spare bot? Click again"
    assert "spare bot" in [e.name for e in library.list_models()]
    page.locator("#models-refresh").click()  # anything else done meanwhile takes the question back
    page.get_by_role("button", name="Delete", exact=True).wait_for()
    page.locator("#models-delete").click()
    page.locator("#models-delete").get_by_text("Click again").wait_for()
    answered(page)  # as a person reads the question: a click while its event is still answered is dropped
    page.locator("#models-delete").click()
    page.get_by_text("Deleted spare bot.").wait_for()
    assert "spare bot" not in [e.name for e in library.list_models()]


def test_unclear_columns_are_chosen_on_the_page_and_read_at_once(app, page, tmp_path):
    """A CSV whose header does not say which columns hold the pairs: the message names the user's file (not the
    server's copy of it) and its columns, and choosing the two in the lists reads the file again. On a page of its
    own: the module's page holds the first test's upload, and the columns chosen apply to every file uploaded."""
    data = tmp_path / "export.csv"
    data.write_text("id,first,second,score\n" + "".join(f"{n},{q},{a},1\n" for n, (q, a, _) in
                                                        enumerate(generated_pairs(30))), encoding="utf-8")
    own = page.context.new_page()
    own.goto(app)
    own.get_by_role("tab", name="Train").click()
    own.locator("#train-files input[type=file]").set_input_files(str(data))
    own.wait_for_function("(t => t.includes('choose the question') && !t.includes('processing'))"
                          "(document.querySelector('#train-report')?.innerText ?? '')")
    report = own.locator("#train-report").inner_text()
    assert report.startswith("export.csv:1: can't tell which columns") and "'first', 'second'" in report
    for chooser, column in (("#train-question", "first"), ("#train-answer", "second")):
        own.locator(f"{chooser} input").click()
        own.locator(chooser).get_by_role("option", name=column, exact=True).click()
    own.wait_for_function("document.querySelector('#train-report')?.innerText.includes('Pairs kept')")
    report = own.locator("#train-report").inner_text()
    assert "column 'first' and column 'second' used as question and answer" in report
    own.close()


def test_the_new_model_is_exported_from_the_page_and_its_zip_runs_as_its_readme_says(page, tmp_path):
    """From the Export tab: the zip's manifest sha256s hold, its .tflite gives the golden ids in Python LiteRT,
    and its example.py runs as written and prints what the project's own backend decodes."""
    import hashlib
    import json
    import subprocess
    import sys
    import zipfile

    from studio.runtimes.tflite_runtime import TFLiteRuntime

    page.get_by_role("tab", name="Export").click()  # lists the library as it is now, the model trained last chosen
    page.wait_for_function("document.querySelector('#export-model input')?.value === 'web bot'")
    page.locator("#export-go").click()
    page.wait_for_function("document.querySelector('#export-go').disabled")  # one export at a time, its choices kept
    assert page.locator("#export-target input").first.is_disabled() and page.locator("#export-compare").is_disabled()
    page.wait_for_function("document.querySelector('#export-result')?.innerText.includes('Measured here')",
                           timeout=300_000)
    page.wait_for_function("!document.querySelector('#export-go').disabled")
    result = page.locator("#export-result").inner_text()
    assert "greedy outputs identical on 100%" in result and "ms/token" in result
    with page.expect_download() as download:
        page.locator("#export-download a").first.click()
    zip_path = tmp_path / "package.zip"
    download.value.save_as(zip_path)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(tmp_path / "unzipped")
    folder = next((tmp_path / "unzipped").iterdir())
    assert folder.name == "web-bot"  # the model's name, without spaces
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    for name, entry in manifest["files"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == entry["sha256"], name
    golden = json.loads((folder / manifest["golden"]).read_text(encoding="utf-8"))
    bundle_config = json.loads((library.models_dir() / "web bot" / "config.json").read_text(encoding="utf-8"))
    from studio.config import BundleConfig
    from studio.generate import DecodeSpec, TokenByToken, decode

    model_config = BundleConfig.from_dict(bundle_config).model
    runtime = TFLiteRuntime(folder / manifest["package"]["model"], model_config, threads=1)
    model_file = manifest["package"]["model"].split("/")[-1]
    for sentence in golden["sentences"]:
        ids = decode(runtime, [sentence["source_ids"]], DecodeSpec.for_model(model_config), TokenByToken())[0]
        assert ids == sentence["greedy_ids_by_file"][model_file]
    run = subprocess.run([sys.executable, "example.py", MESSAGE], cwd=folder, capture_output=True, text=True,
                         timeout=120, env={"PATH": os.environ.get("PATH", "")})
    assert run.returncode == 0, run.stderr
    source_ids = load_bundle(library.models_dir() / "web bot").preprocessor.encode(MESSAGE)[0]
    expected = decode(runtime, [source_ids], DecodeSpec.for_model(model_config), TokenByToken())[0]
    assert f"source ids: {source_ids}" in run.stdout and f"output ids: {expected}" in run.stdout  # plain greedy

    page.get_by_role("tab", name="Models").click()  # the tab lists the library anew when shown again: the same
    page.get_by_role("tab", name="Export").click()  # model stays chosen, and its zip stays on offer
    page.wait_for_timeout(1500)
    assert page.locator("#export-download a").count() == 1
    assert "Measured here" in page.locator("#export-result").inner_text()
    page.get_by_label("Android (Kotlin library)").check()  # another target: the Python zip is no longer offered
    page.wait_for_function("!document.querySelector('#export-result')?.innerText.trim()")
    assert page.locator("#export-download a").count() == 0


def test_the_tools_are_off_on_a_public_server_without_a_password(exported):
    """`launch` on a non-loopback host (or --share) without --auth builds the Models, Train and Export tabs as a
    notice only: a visitor can neither start a job nor download a model."""
    from studio.ui.app import build_app
    from studio.app_model import AppModel, Limits

    services = [AppModel(task, exported[0], Limits()) for task in ("chatbot", "translator")]
    public = build_app(*services, tools_off="this server is reachable beyond this computer without a password")
    ids = {block.elem_id for block in public.blocks.values() if getattr(block, "elem_id", None)}
    assert {"models-off", "train-off", "export-off"} <= ids
    assert not ids & {"train-start", "train-files", "models-delete", "export-go", "export-download"}
    private = build_app(*services)
    assert {"train-start", "models-delete", "export-go"} <= {b.elem_id for b in private.blocks.values()
                                                           if getattr(b, "elem_id", None)}
