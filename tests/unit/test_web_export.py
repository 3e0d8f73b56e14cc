"""`studio web`'s checks before it builds anything (Node/npm present, a graph with static shapes), and what
site.json tells the page of each model."""

import pytest

from studio.errors import StudioError


def test_a_missing_npm_is_named_with_how_to_install_it(tmp_path, monkeypatch):
    import exporters.web as web

    (tmp_path / "package.json").write_text("{}")
    (tmp_path / "package-lock.json").write_text("{}")
    monkeypatch.setattr(web, "WEB_DIR", tmp_path)
    monkeypatch.setattr(web.shutil, "which", lambda name: None)
    with pytest.raises(StudioError, match=r"needs Node.js 20\+ and npm.*apt-get install nodejs npm"):
        web.ensure_web_packages(progress=lambda message: None)


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
