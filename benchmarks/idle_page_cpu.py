"""The browser's CPU while a page sits idle: a blank page, an empty Gradio app and (`--url`) a running Studio, each
open alone in headless Chromium (Debian's, through Playwright) and left untouched after it loaded.

    python benchmarks/idle_page_cpu.py [--seconds 15] [--url http://127.0.0.1:7860/]

Prints, per page, the CPU-seconds per idle second of the browser's processes and how
many requestAnimationFrame callbacks Gradio's status tracker asks for per second (a page drawn once asks for none).
"""

from __future__ import annotations

import argparse
import time

import psutil

CHROMIUM = "/usr/bin/chromium"
# counts the animation frames asked for by Gradio's status tracker module (its loader's spring)
COUNT_FRAMES = """(() => { window.__frames = 0; const ask = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = callback => {
    if ((new Error().stack || '').includes('statustracker')) window.__frames++;
    return ask(callback);
  }; })()"""


def browser_cpu() -> float:
    """CPU-seconds so far of this process's Chromium processes (descendants through Playwright's driver)."""
    total = 0.0
    for process in psutil.Process().children(recursive=True):
        try:
            command, times = " ".join(process.cmdline()), process.cpu_times()
        except psutil.Error:  # gone meanwhile
            continue
        if "chromium" in command or command.startswith("/proc/self/exe"):  # (Chromium's zygote forks)
            total += times.user + times.system
    return total


def idle_cost(browser, url: str, seconds: float) -> tuple[float, float]:
    """(CPU-seconds per second, status tracker frames per second) of `url` idle, after 4 s to settle."""
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    try:
        page = context.new_page()
        page.add_init_script(COUNT_FRAMES)
        page.goto(url)
        time.sleep(4)
        cpu, frames = browser_cpu(), page.evaluate("window.__frames")
        time.sleep(seconds)
        return (browser_cpu() - cpu) / seconds, (page.evaluate("window.__frames") - frames) / seconds
    finally:
        context.close()


def empty_gradio_app():
    import gradio as gr

    with gr.Blocks() as app:
        pass
    app.launch(prevent_thread_lock=True, quiet=True)  # on the first free port from 7860
    return app, app.local_url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--url", help="a running app to measure too (e.g. `studio launch`'s)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    app, gradio_url = empty_gradio_app()
    pages = {"blank page": "data:text/html,<p>idle</p>", "empty gr.Blocks": gradio_url}
    if args.url:
        pages["--url"] = args.url
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            for name, url in pages.items():
                cpu, frames = idle_cost(browser, url, args.seconds)
                print(f"{name:16} {cpu:.3f} CPU-s per idle second, {frames:.0f} status tracker frames per second")
            browser.close()
    finally:
        app.close()


if __name__ == "__main__":
    main()
