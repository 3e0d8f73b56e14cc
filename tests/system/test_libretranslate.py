"""The LibreTranslate-compatible API (`studio.api.libretranslate`): the official Python client against a running
`studio launch`, then each endpoint and each error over plain HTTP, with LibreTranslate's shapes and words."""

import io
import json
import urllib.error
from urllib.parse import urlencode

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from helpers import free_port

from studio.errors import StudioError
from studio.serving import Limits
from studio.app_model import AppModel
from studio.api.libretranslate import KEY_REQUIRED, MAX_TEXTS, ApiKeys, LibreTranslateApi, detect_language, mount
from studio.ui.translate import translate_api

KOREAN = "나는 커피를 좋아해."


@pytest.fixture(scope="module")
def translator(exported):
    return AppModel("translator", exported[0], Limits(max_input_chars=200))


def client(translator, tmp_path=None, **options) -> TestClient:
    app = FastAPI()
    mount(app, LibreTranslateApi(translator, "tflite", downloads=tmp_path, **options))
    return TestClient(app)


@pytest.fixture(scope="module")
def http(translator, tmp_path_factory):
    return client(translator, tmp_path_factory.mktemp("api-files"))


def test_libretranslatepy_translates_detects_and_lists_languages_against_studio_launch(exported):
    from libretranslatepy import LibreTranslateAPI

    from studio.ui.app import launch

    app = launch(exported[0], exported[0], port=free_port(), backend="tflite", prevent_thread_lock=True,
                 progress=lambda _: None)
    try:
        api = LibreTranslateAPI(app.local_url)
        own = translate_api(app.studio_services[1], "tflite")(KOREAN)[0]  # the app's /translate, same defaults
        assert api.translate(KOREAN, "ko", "en") == own
        assert api.translate(KOREAN, "auto", "en") == own
        assert api.detect(KOREAN) == [{"confidence": 100.0, "language": "ko"}]
        assert api.languages() == [{"code": "ko", "name": "Korean", "targets": ["en"]},
                                   {"code": "en", "name": "English", "targets": []}]
        with pytest.raises(urllib.error.HTTPError) as refused:  # the client raises on a non-2xx answer
            api.translate(KOREAN, "ko", "zz")
        assert (refused.value.code, json.loads(refused.value.read())) == (400, {"error": "zz is not supported"})
    finally:
        app.close()


def test_a_list_auto_detection_alternatives_and_html_come_back_in_libretranslates_shapes(http):
    single = http.post("/translate", json={"q": KOREAN, "source": "ko", "target": "en"}).json()
    assert list(single) == ["translatedText"] and single["translatedText"]
    listed = http.post("/translate", json={"q": [KOREAN, "커피"], "source": "auto", "target": "en",
                                           "alternatives": 2}).json()
    assert list(listed) == ["alternatives", "detectedLanguage", "translatedText"]  # sorted, as Flask sends them
    assert listed["translatedText"][0] == single["translatedText"] and len(listed["translatedText"]) == 2
    assert listed["detectedLanguage"] == [{"confidence": 100.0, "language": "ko"}] * 2
    assert len(listed["alternatives"]) == 2 and all(len(a) <= 2 for a in listed["alternatives"])
    assert all(a != t for alts, t in zip(listed["alternatives"], listed["translatedText"]) for a in alts)
    form = http.post("/translate", data={"q": KOREAN, "source": "ko", "target": "en"}).json()  # as the client sends
    assert form == single
    html = http.post("/translate", json={"q": f"<p>{KOREAN}</p>", "source": "ko", "target": "en", "format": "html",
                                         "alternatives": 1}).json()
    assert html["translatedText"].startswith("<p>") and html["alternatives"] == []  # html has none, as there
    kept = http.post("/translate", json={"q": "hello world", "source": "auto", "target": "en"}).json()
    assert kept == {"detectedLanguage": {"confidence": 100.0, "language": "en"}, "translatedText": "hello world"}


@pytest.mark.parametrize("body, status, error", [
    ({"source": "ko", "target": "en"}, 400, "Invalid request: missing q parameter"),
    ({"q": KOREAN, "target": "en"}, 400, "Invalid request: missing source parameter"),
    ({"q": KOREAN, "source": "ko"}, 400, "Invalid request: missing target parameter"),
    ({"q": KOREAN, "source": "ko", "target": "zz"}, 400, "zz is not supported"),
    ({"q": KOREAN, "source": "xx", "target": "en"}, 400, "xx is not supported"),
    ({"q": "hi", "source": "en", "target": "ko"}, 400,
     "Korean (ko) is not available as a target language from English (en)"),
    ({"q": KOREAN, "source": "ko", "target": "en", "format": "xml"}, 400, "xml format is not supported"),
    ({"q": "가" * 201, "source": "ko", "target": "en"}, 400, "Invalid request: request (201) exceeds text limit (200)"),
    ({"q": [KOREAN] * (MAX_TEXTS + 1), "source": "ko", "target": "en"}, 400,
     f"Invalid request: request ({MAX_TEXTS + 1}) exceeds text limit ({MAX_TEXTS})"),
    ({"q": KOREAN, "source": "ko", "target": "en", "alternatives": "many"}, 400,
     "Invalid request: alternatives parameter is not a number"),
    ({"q": [KOREAN, 3], "source": "ko", "target": "en"}, 400, "Invalid request: q must be a string or a list of strings"),
    ({"q": [KOREAN, "  "], "source": "ko", "target": "en"}, 400,  # the app's own check: an empty text is refused
     "Invalid request: Please enter Korean text to translate. (text 2 of 2)"),
    ({"q": KOREAN, "source": "ko", "target": "en", "strategy": "sample"}, 400,
     "Invalid request: strategy must be greedy or beam"),
])
def test_each_bad_translate_request_gets_libretranslates_error(http, body, status, error):
    response = http.post("/translate", json=body)
    assert (response.status_code, response.json()) == (status, {"error": error})
    assert response.headers["access-control-allow-origin"] == "*"


def test_a_bad_glossary_a_bad_detect_and_an_oversized_body_get_json_errors(http):
    glossary = http.post("/translate", json={"q": KOREAN, "source": "ko", "target": "en", "glossary": "no pair here"})
    assert glossary.status_code == 400 and "glossary" in glossary.json()["error"]
    numbers = http.post("/detect", json={"q": [1, 2]})
    assert (numbers.status_code, numbers.json()) == (400, {"error": "Invalid request: q must be a string or a "
                                                                    "list of strings"})
    huge = http.post("/translate", content=b"q=" + b"a" * 2_000_000, headers={
        "Content-Type": "application/x-www-form-urlencoded"})
    assert huge.status_code == 413 and "the limit is" in huge.json()["error"]  # refused before it is read
    overflow = http.post("/translate", content=b'{"q": "x", "source": "ko", "target": "en", "alternatives": 1e400}',
                         headers={"Content-Type": "application/json"})
    assert overflow.json() == {"error": "Invalid request: alternatives parameter is not a number"}


def test_malformed_json_detect_settings_spec_and_health(http):
    bad = http.post("/translate", content=b"{not json", headers={"Content-Type": "application/json"})
    assert (bad.status_code, bad.json()) == (400, {"error": "Invalid JSON format"})
    assert http.post("/detect", data={}).json() == {"error": "Invalid request: missing q parameter"}
    assert http.post("/detect", data={"q": "Hello there, 친구"}).json()[0]["language"] == "en"
    assert http.get("/languages", params={"api_key": "x"}).status_code == 200  # libretranslatepy sends a body
    assert http.post("/languages").status_code == 405
    settings = http.get("/frontend/settings").json()
    assert settings["charLimit"] == 200 and settings["keyRequired"] is False and settings["apiKeys"] is False
    assert settings["language"] == {"source": {"code": "ko", "name": "Korean"}, "target": {"code": "en",
                                                                                        "name": "English"}}
    spec = http.get("/spec").json()
    assert spec["swagger"] == "2.0" and {"/translate", "/detect", "/languages", "/translate_file"} <= set(spec["paths"])
    assert http.get("/health").json() == {"status": "ok"}


def test_a_file_is_translated_to_a_download_url_and_bad_files_and_names_are_refused(http):
    sent = http.post("/translate_file", data={"source": "ko", "target": "en"},
                     files={"file": ("notes.txt", io.BytesIO(f"{KOREAN}\n커피\n".encode()), "text/plain")})
    assert sent.status_code == 200, sent.text
    url = sent.json()["translatedFileUrl"]
    assert url.startswith("http://testserver/download_file/") and url.endswith(".notes.en.txt")
    download = http.get(url.replace("http://testserver", ""))
    assert download.status_code == 200 and len(download.text.splitlines()) == 2
    assert 'filename="notes.en.txt"' in download.headers["content-disposition"]
    wrong = http.post("/translate_file", data={"source": "ko", "target": "en"},
                      files={"file": ("slides.pptx", io.BytesIO(b"PK"), "application/octet-stream")})
    assert wrong.json() == {"error": "Invalid request: file format not supported"}
    assert http.post("/translate_file", data={"source": "ko", "target": "en"}).json() == {
        "error": "Invalid request: missing file parameter"}
    broken = http.post("/translate_file", data={"source": "ko", "target": "en"},
                       files={"file": ("bad.docx", io.BytesIO(b"not a zip"), "application/octet-stream")})
    assert broken.status_code == 400 and "bad.docx" in broken.json()["error"]
    assert http.get("/download_file/..%2F..%2Fetc%2Fpasswd").status_code in (400, 404)
    assert http.get("/download_file/nothing.txt").json() == {"error": "Invalid filename"}


def test_keys_are_required_from_other_computers_checked_and_limited(translator, tmp_path):
    keys_file = tmp_path / "keys.txt"
    keys_file.write_text("# team keys\nalpha 2\nbeta\n", encoding="utf-8")
    keys = ApiKeys.read(keys_file)
    assert keys.per_minute == {"alpha": 2, "beta": 60}
    public = client(translator, tmp_path, keys=keys, public=True)
    body = {"q": KOREAN, "source": "ko", "target": "en"}
    assert public.post("/translate", json=body).json() == {"error": KEY_REQUIRED}
    assert public.get("/frontend/settings").json()["keyRequired"] is True
    refused = public.post("/translate", json={**body, "api_key": "gamma"})
    assert (refused.status_code, refused.json()) == (403, {"error": "Invalid API key"})
    assert [public.post("/translate", json={**body, "api_key": "alpha"}).status_code for _ in range(2)] == [200, 200]
    slow = public.post("/translate", data={**body, "api_key": "alpha"})
    assert (slow.status_code, slow.json()) == (429, {"error": "Slowdown: 2 per 1 minute"})
    assert public.post("/translate", json={**body, "api_key": "beta"}).status_code == 200  # each key its own limit
    no_keys = client(translator, tmp_path, public=True)  # a public server without keys refuses every request
    assert no_keys.post("/detect", data={"q": KOREAN}).json() == {"error": KEY_REQUIRED}
    local = client(translator, tmp_path, keys=ApiKeys.read(keys_file))  # on this computer a key is optional
    assert local.post("/translate", json=body).status_code == 200


@pytest.mark.parametrize("content, error", [("", "no key in it"), ("alpha 0\n", "line 1: expected a key"),
                                            ("alpha 5 extra\n", "line 1: expected a key")])
def test_a_bad_keys_file_is_refused_with_the_line(tmp_path, content, error):
    path = tmp_path / "keys.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(StudioError, match=error):
        ApiKeys.read(path)
    with pytest.raises(StudioError, match="cannot read it"):
        ApiKeys.read(tmp_path / "missing.txt")


def test_detection_reads_the_script():
    assert detect_language("오늘 날씨가 좋다")[0] == {"confidence": 100.0, "language": "ko"}
    assert [d["language"] for d in detect_language("Seoul 서울 is big")] == ["en", "ko"]
    assert detect_language("123 !!!") == [{"confidence": 0.0, "language": "en"}]
    # an imported model's pair: Latin letters are its language written in them
    assert detect_language("Guten Morgen", ("de", "en"))[0] == {"confidence": 100.0, "language": "de"}
    assert detect_language("Good morning", ("en", "de"))[0]["language"] == "en"
    assert [d["language"] for d in detect_language("Seoul 서울 is big", ("ja", "en"))] == ["en", "ko"]


def test_form_bodies_are_read_as_utf8_raw_or_escaped_and_a_repeated_q_is_a_list(http):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    by_json = http.post("/translate", json={"q": KOREAN, "source": "ko", "target": "en"}).json()
    raw = http.post("/translate", content=f"q={KOREAN}&source=ko&target=en".encode(), headers=form)  # curl -d q=…
    assert raw.json() == by_json
    assert http.post("/detect", content=f"q={KOREAN}".encode(), headers=form).json()[0]["language"] == "ko"
    listed = http.post("/translate", content=urlencode([("q", KOREAN), ("q", "커피"), ("source", "ko"),
                                                       ("target", "en")]).encode(), headers=form).json()
    assert listed["translatedText"][0] == by_json["translatedText"] and len(listed["translatedText"]) == 2
    broken = http.post("/translate", content=b"q=\xff\xfe&source=ko&target=en", headers=form)
    assert (broken.status_code, broken.json()) == (400, {"error": "Invalid request: the form is not UTF-8 text"})


def test_a_doubled_slash_wrong_methods_and_suggestions_get_libretranslates_answers(http):
    base = "http://testserver"  # a client given "http://host:port/" asks for "//languages"
    assert http.get(f"{base}//languages").json() == http.get("/languages").json()
    doubled = http.post(f"{base}//translate", json={"q": KOREAN, "source": "ko", "target": "en"})
    assert doubled.status_code == 200 and doubled.json()["translatedText"]
    wrong = http.get("/translate")
    assert (wrong.status_code, wrong.json()) == (405, {"error": "The method is not allowed for the requested URL."})
    missing = http.get(f"{base}//nothing")
    assert (missing.status_code, list(missing.json())) == (404, ["error"])
    suggest = http.post("/suggest", json={"q": KOREAN, "s": "I like coffee.", "source": "ko", "target": "en"})
    assert (suggest.status_code, suggest.json()) == (403, {"error": "Suggestions are disabled on this server."})
    preflight = http.options("/translate", headers={"Origin": "moz-extension://x",
                                                    "Access-Control-Request-Method": "POST"})
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == "*"


def test_the_api_lists_and_accepts_the_served_models_own_language_pair(translator, tmp_path, monkeypatch):
    from studio.tasks import TRANSLATOR

    task = translator.bundle.config.task  # as an imported English-German model's config says
    monkeypatch.setattr(task, "task", TRANSLATOR.name)
    monkeypatch.setattr(task, "source_lang", "en")
    monkeypatch.setattr(task, "target_lang", "de")
    api = client(translator, tmp_path)
    assert api.get("/languages").json() == [{"code": "en", "name": "English", "targets": ["de"]},
                                            {"code": "de", "name": "German", "targets": []}]
    settings = api.get("/frontend/settings").json()["language"]
    assert settings == {"source": {"code": "en", "name": "English"}, "target": {"code": "de", "name": "German"}}
    assert api.post("/translate", json={"q": "Hello.", "source": "en", "target": "de"}).status_code == 200
    refused = api.post("/translate", json={"q": KOREAN, "source": "ko", "target": "en"})
    assert (refused.status_code, refused.json()) == (400, {"error": "ko is not supported"})
    backwards = api.post("/translate", json={"q": "Hallo.", "source": "de", "target": "en"})
    assert backwards.json() == {"error": "English (en) is not available as a target language from German (de)"}
    monkeypatch.setattr(task, "source_lang", "de")  # a German-English model: Latin letters are German to /detect
    monkeypatch.setattr(task, "target_lang", "en")
    assert api.post("/detect", json={"q": "Guten Morgen"}).json() == [{"confidence": 100.0, "language": "de"}]
    auto = api.post("/translate", json={"q": "Guten Morgen.", "source": "auto", "target": "en"}).json()
    assert auto["detectedLanguage"] == {"confidence": 100.0, "language": "de"}
