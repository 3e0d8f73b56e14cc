"""`studio web`'s checks before it builds anything (Node/npm present, a graph with static shapes), and what
site.json tells the page of each model."""

import pytest

from studio.errors import StudioError


def web_package(folder, monkeypatch) -> None:
    """`folder` as the web package: its package.json and lock, no node_modules yet."""
    import exporters.web as web

    (folder / "package.json").write_text("{}")
    (folder / "package-lock.json").write_text("{}")
    monkeypatch.setattr(web, "WEB_DIR", folder)


def test_a_missing_npm_is_named_with_how_to_install_it(tmp_path, monkeypatch):
    import exporters.web as web

    web_package(tmp_path, monkeypatch)
    monkeypatch.setattr(web.shutil, "which", lambda name: None)
    with pytest.raises(StudioError, match=r"needs Node.js 20\+ and npm.*apt-get install nodejs npm"):
        web.ensure_web_packages(progress=lambda message: None)


def test_two_processes_wanting_the_web_packages_install_them_once(tmp_path, monkeypatch):
    """Parallel `studio web` runs (or test workers) on a fresh checkout: one `npm ci`, the other waits for it
    and finds node_modules current (two at once failed with ENOTEMPTY)."""
    import threading
    import time

    import exporters.web as web

    web_package(tmp_path, monkeypatch)
    runs, running = [], []

    def npm_ci(home, progress):
        running.append(1)
        runs.append(len(running))  # how many ran at once
        time.sleep(0.3)
        (tmp_path / "node_modules").mkdir()
        (tmp_path / "node_modules" / ".package-lock.json").write_text("{}")
        running.pop()

    monkeypatch.setattr(web, "_npm_ci", npm_ci)
    threads = [threading.Thread(target=web.ensure_web_packages, args=(lambda message: None,)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert runs == [1]


def test_the_page_only_takes_a_graph_with_static_shapes(tmp_path):
    from exporters.web import build_site

    with pytest.raises(StudioError, match="static shapes; choose one of tflite-b1, tflite-b1-float16, tflite-b1-int8"):
        build_site([tmp_path], tmp_path / "site", variant="tflite-float16", progress=lambda message: None)


def test_site_json_gives_each_model_its_tasks_default_decoding_in_the_pages_option_names():
    from exporters.web import page_decoding
    from studio.tasks import CHATBOT, TRANSLATOR

    translator = TRANSLATOR.default_decoding
    sampling = {"temperature": translator["temperature"], "topK": translator["top_k"], "topP": translator["top_p"]}
    assert page_decoding("translator") == {"strategy": translator["strategy"], "beamSize": translator["beam_size"],
                                           "lengthPenalty": translator["length_penalty"], **sampling}
    assert page_decoding("chatbot") == {"strategy": "greedy", **sampling} and CHATBOT.default_decoding["strategy"] == "greedy"


def test_a_web_package_without_npm_is_refused_before_any_export(tmp_path, monkeypatch):
    import exporters.web as web
    from exporters.package import check_package

    web_package(tmp_path, monkeypatch)
    monkeypatch.setattr(web.shutil, "which", lambda name: None)
    with pytest.raises(StudioError, match=r"needs Node.js 20\+ and npm"):
        check_package("web", None, tmp_path / "page.zip")
    assert check_package("python", None, tmp_path / "python.zip")  # other targets need no npm
    monkeypatch.setattr(web, "WEB_DIR", tmp_path / "gone")
    with pytest.raises(StudioError, match="the web package is missing from this installation"):
        check_package("web", None, tmp_path / "page.zip")


def test_a_float_graph_too_large_for_browsers_is_warned_of_and_int8_named(tmp_path):
    from exporters.web import LARGE_FLOAT_GRAPH, _warn_if_too_large

    said = []
    sizes = {"model.b1.float16.tflite": LARGE_FLOAT_GRAPH + 1, "model.b1.int8.tflite": 2 * LARGE_FLOAT_GRAPH,
             "model.b1.tflite": LARGE_FLOAT_GRAPH}
    for name, size in sizes.items():
        with open(tmp_path / name, "wb") as file:
            file.truncate(size)  # sparse: no disk written
        _warn_if_too_large(tmp_path / name, said.append)
    assert len(said) == 1 and said[0].startswith("Warning: model.b1.float16.tflite is 64 MiB")
    assert "--variant tflite-b1-int8" in said[0]
