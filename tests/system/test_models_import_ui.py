"""The Models tab's import, in headless Chromium (marked `browser`): a user uploads a tiny Marian release zip, or
types the path of a Hugging Face MarianMT folder, watches the progress, and finds the model in the library, marked
imported, with its licence and published scores; what cannot be imported is a message on the page, never a
traceback. The app serves the shipped models, with a data folder of its own (the library)."""

import zipfile

import pytest
from helpers import free_port, own_data_folder, page_at
from marian_fixture import POST_NORM, PRE_NORM, write_huggingface, write_release

from studio import library
from studio.tasks import TRANSLATOR

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from studio.ui.app import launch

    with own_data_folder(tmp_path_factory.mktemp("studio-data")):
        server = launch(port=free_port(), backend="tf", prevent_thread_lock=True, progress=lambda _: None)
        yield server.local_url
        server.close()


@pytest.fixture(scope="module")
def page(app):
    with page_at(app) as page:
        page.get_by_role("tab", name="Models").click()
        page.get_by_text("Import a pretrained translator").click()
        page.locator("#models-import").wait_for()
        yield page


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """(a release zip, a Hugging Face folder, a Hugging Face folder of a pre-norm model)."""
    root = tmp_path_factory.mktemp("releases")
    release = write_release(root / "opus-2020-01-01", POST_NORM)
    archive = root / "opus-2020-01-01.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in release.iterdir():
            zipped.write(path, path.name)
    pre_norm = write_release(root / "pre-norm", PRE_NORM)
    return (archive, write_huggingface(release, root / "hf-opus-mt-ko-en", POST_NORM),
            write_huggingface(pre_norm, root / "hf-pre-norm", PRE_NORM))


def status(page) -> str:
    return page.locator("#models-import-status").inner_text()


def watch_status(page) -> None:
    """Keep every text the status line shows from now on (window.statuses)."""
    page.evaluate("""() => {
        window.statuses = [];
        const line = document.querySelector('#models-import-status');
        new MutationObserver(() => window.statuses.push(line.innerText)).observe(
            line, {childList: true, subtree: true, characterData: true});
    }""")


def wait_for_status(page, text: str) -> str:
    page.wait_for_function("(text) => document.querySelector('#models-import-status')?.innerText.includes(text)",
                           arg=text, timeout=120_000)
    return status(page)


def test_an_uploaded_release_zip_is_imported_with_progress_and_listed_marked_imported(page, releases):
    watch_status(page)
    page.locator("#models-import-file input[type=file]").set_input_files(str(releases[0]))
    page.locator("#models-import-name textarea, #models-import-name input").first.fill("tiny opus")
    page.locator("#models-import").click()
    wait_for_status(page, "Imported tiny opus")
    shown = page.evaluate("window.statuses")
    assert any("Importing opus-2020-01-01.zip: Reading opus-2020-01-01.zip" in text for text in shown), shown
    page.wait_for_function("document.querySelector('#models-table')?.innerText.includes('tiny opus')")
    assert "imported from opus-2020-01-01.zip" in page.locator("#models-table").inner_text()
    details = page.locator("#models-details").inner_text()  # the new model is the one chosen
    assert "tiny opus — translator, imported" in details and "licence: Creative Commons Attribution 4.0" in details
    assert "Tatoeba-test.ko.en (published), as published: chrF 34.50, BLEU 12.30" in details
    assert library.find_model("tiny opus").task == TRANSLATOR.name


def test_a_typed_hugging_face_folder_is_imported_under_its_folders_name(page, releases):
    page.locator("#models-import-source textarea, #models-import-source input").first.fill(str(releases[1]))
    page.locator("#models-import-name textarea, #models-import-name input").first.fill("")
    page.locator("#models-import").click()
    wait_for_status(page, "Imported hf-opus-mt-ko-en")
    page.wait_for_function("document.querySelector('#models-details')?.innerText.includes('licence: cc-by-4.0')")
    assert "Hugging Face MarianMT folder" in page.locator("#models-details").inner_text()


@pytest.mark.parametrize("typed,message", [
    ("", "Upload a release zip, or type a folder, zip or model id."),
    ("/no/such/folder", "/no/such/folder: no such folder or zip"),
    ("PRE_NORM", "hf-pre-norm cannot be imported: its config.json sets normalize_before"),
    ("PRE_NORM@v1.0", "is a folder or zip here, and a revision is for a Hugging Face model id (OWNER/NAME) only"),
    ("Helsinki-NLP/opus-mt-ko-en@a b", "'a b' is not a revision of a Hugging Face model"),
], ids=["nothing", "missing", "refused", "revision of a folder", "bad revision"])
def test_what_cannot_be_imported_is_a_message_on_the_page_never_a_traceback(page, releases, typed, message):
    listed = page.locator("#models-table").inner_text()
    typed, _, revision = typed.partition("@")
    typed = str(releases[2]) if typed == "PRE_NORM" else typed
    page.locator("#models-import-source textarea, #models-import-source input").first.fill(typed)
    page.locator("#models-import-revision textarea, #models-import-revision input").first.fill(revision)
    page.locator("#models-import").click()
    said = wait_for_status(page, message)
    assert said.startswith("⚠") and "Traceback" not in page.content()
    page.get_by_text(message).first.wait_for()  # and a notice
    assert page.locator("#models-table").inner_text() == listed
