"""Screenshots of each tab for the README: start `studio launch --port 7862`, then run
`python docs/take_screenshots.py http://127.0.0.1:7862/` (needs Debian chromium and a CJK font,
e.g. `apt-get install chromium fonts-noto-cjk`)."""

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
        page.locator("#translate-latency").get_by_text("ms").wait_for(timeout=60_000)
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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:7862/")
