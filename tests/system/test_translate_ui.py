"""The Translate tab in headless Chromium: a glossary applied, an alternative picked, a subtitle file
translated, and a long document cancelled half-way that still comes back with what was done."""

import re
import urllib.request

import pytest
from helpers import OwnContexts

from studio.ui.decoding import storage_key
from studio.ui.translate import GLOSSARY_STATE

SUBTITLES = ("1\n00:00:01,000 --> 00:00:02,500\n나는 커피를\n좋아해?\n\n"
             "2\n00:00:03,000 --> 00:00:04,000\n너는 영화를 봤어?\n")


@pytest.fixture
def page(app_url, module_browser):
    """The app on the Translate tab, in a context of this test's own."""
    with OwnContexts(module_browser) as contexts:
        page = contexts.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(app_url)
        page.get_by_role("tab", name="Translate").click()
        yield page


def downloaded(page, app_url, name: str) -> bytes:
    link = page.locator(f"#translate-file-output a[download='{name}']").first
    link.wait_for(timeout=120_000)
    href = link.get_attribute("href")
    return urllib.request.urlopen(href if href.startswith("http") else app_url.rstrip("/") + href, timeout=30).read()


@pytest.mark.browser
def test_glossary_and_alternatives(page, tmp_path):
    page.locator("#translate-input textarea").fill("너는 커피를 샀어?")
    page.get_by_text("Glossary and protected terms").click()
    page.locator("#translate-glossary textarea").fill("커피 = coffee")  # typed: a text box cannot type a tab
    terms = tmp_path / "terms.tsv"
    terms.write_text("커피\tespresso\n", encoding="utf-8")  # an uploaded file's entries join the box's
    page.locator("#translate-glossary-file input[type=file]").set_input_files(str(terms))
    page.wait_for_function("() => document.querySelector('#translate-glossary textarea')?.value === '커피 = espresso'",
                           timeout=30_000)
    page.locator("#translate-button").click()
    report = page.locator("#translate-glossary-report")
    report.get_by_text("Glossary: 커피 → espresso (").wait_for(timeout=60_000)
    output = page.locator("#translate-output textarea").input_value()
    assert "Xq" not in output
    assert ("espresso" in output) == ("(applied)" in report.inner_text())

    page.locator("#translate-alternatives-button").click()
    choices = page.locator("#translate-alternatives label")
    choices.first.wait_for(timeout=60_000)
    texts = choices.all_inner_texts()
    assert 1 <= len(texts) <= 4 and len(set(texts)) == len(texts)
    choices.last.click()
    page.wait_for_function("want => document.querySelector('#translate-output textarea')?.value === want",
                           arg=texts[-1].strip(), timeout=30_000)

    # a bad glossary line: a notice naming it, and no earlier result left beside it
    page.locator("#translate-glossary textarea").fill("커피 = espresso\nbad line without equals")
    page.locator("#translate-button").click()
    page.get_by_text("glossary:2: expected the Korean term").first.wait_for(timeout=30_000)
    page.wait_for_function("() => document.querySelector('#translate-output textarea')?.value === ''", timeout=30_000)
    assert "Glossary:" not in report.inner_text()

    # the box's text is kept in the browser as it stands, also when it is cleared
    stored = f"() => localStorage.getItem('{storage_key(GLOSSARY_STATE)}')"
    for typed in ("커피 = espresso\n영화 = the film", ""):
        before = page.evaluate(stored)
        page.locator("#translate-glossary textarea").fill(typed)
        page.wait_for_function(f"before => ({stored})() !== before", arg=before)  # written (a new IV each time)
        page.reload()
        page.get_by_role("tab", name="Translate").click()
        page.get_by_text("Glossary and protected terms").click()
        page.wait_for_function("want => document.querySelector('#translate-glossary textarea')?.value === want",
                               arg=typed, timeout=30_000)


@pytest.mark.browser
def test_a_subtitle_file_and_a_cancelled_long_document(page, app_url, tmp_path):
    import srt

    page.get_by_text("Translate a document").click()
    movie = tmp_path / "movie.srt"
    movie.write_text(SUBTITLES, encoding="utf-8")
    page.locator("#translate-file input[type=file]").set_input_files(str(movie))
    page.locator("#translate-file-button").click()
    cues = list(srt.parse(downloaded(page, app_url, "movie.en.srt").decode("utf-8")))
    assert [(c.index, str(c.start), str(c.end)) for c in cues] == [(1, "0:00:01", "0:00:02.500000"),
                                                                  (2, "0:00:03", "0:00:04")]

    long = tmp_path / "long.txt"  # ~150 batches of 32 pieces, none repeated: long enough to cancel half-way
    sources = [f"나는 커피를 {n}번 좋아해? 너는 영화를 {n}번 봤어?" for n in range(2400)]
    long.write_text("".join(f"{line}\n" for line in sources), encoding="utf-8")
    # the upload was read and deleted: it is no longer offered (its link would fail); a new one clears the old result
    page.locator("#translate-file button[aria-label='Clear']").wait_for(state="detached", timeout=30_000)
    page.locator("#translate-file input[type=file]").set_input_files(str(long))
    page.wait_for_function("() => !document.querySelector('#translate-file-output a[download]')", timeout=30_000)
    page.locator("#translate-file-button").click()
    progress = page.get_by_text(re.compile(r" / [\d,]+ sentences")).first
    progress.wait_for(timeout=120_000)
    total = int(re.search(r" / ([\d,]+) sentences", progress.inner_text()).group(1).replace(",", ""))
    page.locator("#translate-file-cancel").click()
    notice = page.get_by_text("Stopped after")
    notice.first.wait_for(timeout=60_000)
    done = int(notice.first.inner_text().split("Stopped after ")[1].split(" of")[0].replace(",", ""))
    assert total >= 4800 and 0 < done < total
    lines = downloaded(page, app_url, "long.en.txt").decode("utf-8").split("\n")
    assert len(lines) == 2400 + 1  # every line kept (the file ends with a newline)
    assert lines[-2] == sources[-1]  # not reached: left as it was
    assert lines[0] != sources[0]  # done: translated
