"""Screenshots of each tab for the README: start `studio launch --port 7862`, then run
`python docs/take_screenshots.py http://127.0.0.1:7862/` (needs Debian chromium and a CJK font,
e.g. `apt-get install chromium fonts-noto-cjk`). The web page (`studio web site/`, served on port 8000):
`python docs/take_screenshots.py --web http://127.0.0.1:8000/`. The Models, Train and Export tabs, on an app whose
library holds a trained model and whose Train tab shows its run (e.g. after the ChatbotData demo of
docs/train-and-export.md): `python docs/take_screenshots.py --tools http://127.0.0.1:7862/ MODEL`."""

import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).parent / "screenshots"


def main(url: str) -> None:
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        page.goto(url)
        if page.get_by_text("is unavailable").count():
            raise SystemExit("a model is unavailable in this app: fix it before taking the README screenshots")
        for count, text in enumerate(("영화 볼래?", "넌 누구야?", "지칠때 어떡하면 좋을까?"), start=1):
            page.locator("#chat-input textarea").fill(text)
            page.locator("#chat-send").click()
            # the latency beside the chat is replaced when a reply ends; wait for this reply's bubble and timing
            page.locator("[data-testid='bot']").nth(count - 1).wait_for(timeout=60_000)
            page.wait_for_function("""n => document.querySelectorAll("[data-testid='bot']").length >= n &&
                document.querySelector('#chat-latency').innerText.includes('ms/token') &&
                !document.querySelector('#chat-send').disabled""", arg=count, timeout=60_000)
            time.sleep(0.5)
        page.screenshot(path=str(OUT / "chat.png"), full_page=True)
        page.get_by_role("tab", name="Translate").click()
        page.locator("#translate-input textarea").fill("시민들은 도시 속에 산다.\n커피는 필요 없다.")
        page.locator("#translate-button").click()
        page.locator("#translate-latency").get_by_text("ms total").wait_for(timeout=60_000)
        time.sleep(1)
        page.screenshot(path=str(OUT / "translate.png"), full_page=True)
        page.get_by_role("tab", name="Compare").click()
        page.locator("#compare-button").click()
        page.locator("#compare-summary").get_by_text("give the TF output").wait_for(timeout=300_000)
        time.sleep(1)
        page.screenshot(path=str(OUT / "compare.png"), full_page=True)
        page.get_by_role("tab", name="Explore").click()
        page.locator("#explore-button").click()
        page.locator("#explore-output").get_by_text("Parameters").wait_for(timeout=60_000)
        time.sleep(2)
        page.screenshot(path=str(OUT / "explore.png"), full_page=True)
        browser.close()


def web(url: str) -> None:
    """The static page: a translation, then the chatbot tab with two replies."""
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1000, "height": 760})
        page.goto(url)

        def ask(tab: str, text: str, answers: int) -> None:
            page.get_by_role("tab", name=tab).click()
            panel = page.locator("section.panel:not([hidden])")
            panel.locator("button[type=submit]:not([disabled])").wait_for(timeout=120_000)
            panel.locator("textarea").fill(text)
            panel.locator("button[type=submit]").click()
            page.wait_for_function("""n => { const p = document.querySelector('section.panel:not([hidden])');
                return p.querySelector('button[type=submit]').textContent !== 'Stop' &&
                       p.querySelectorAll('.transcript li').length >= n; }""", arg=answers, timeout=120_000)

        ask("Chatbot (Korean)", "영화 볼래?", 2)
        ask("Chatbot (Korean)", "지칠때 어떡하면 좋을까?", 4)
        ask("Korean → English", "시민들은 도시 속에 산다.", 2)
        time.sleep(0.5)
        page.screenshot(path=str(OUT / "web.png"), full_page=True)
        browser.close()


def tools(url: str, model: str) -> None:
    """Models (with `model`'s card), Train (its run's curves and samples) and Export (the translator packaged for
    Python, with its parity and speed, then every graph of the target compared)."""
    OUT.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        page.goto(url)
        page.get_by_role("tab", name="Models").click()
        page.locator("#models-choice input").fill(model)
        page.keyboard.press("Enter")
        page.wait_for_function("m => document.querySelector('#models-details')?.innerText.includes(m)", arg=model)
        time.sleep(1)
        page.screenshot(path=str(OUT / "models.png"), full_page=True)
        page.get_by_role("tab", name="Train").click()
        page.wait_for_function("document.querySelector('#train-status')?.innerText.includes('step')",
                               timeout=30_000)
        time.sleep(3)
        page.screenshot(path=str(OUT / "train.png"), full_page=True)
        page.get_by_role("tab", name="Export").click()
        page.locator("#export-model input").fill("translator")
        page.keyboard.press("Enter")
        page.locator("#export-go").click()
        page.wait_for_function("document.querySelector('#export-result')?.innerText.includes('Measured here')",
                               timeout=600_000)
        page.locator("#export-compare").click()  # every graph of the target, exported and timed side by side
        page.wait_for_function("document.querySelector('#export-progress')?.innerText.includes('graphs measured')",
                               timeout=1_200_000)
        time.sleep(1)
        page.screenshot(path=str(OUT / "export.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--tools"]:
        tools(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["--web"]:
        web(sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:8000/")
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:7862/")
