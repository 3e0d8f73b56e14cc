"""A LibreTranslate-compatible REST API on the app's own port, so the programs that already speak it (subtitle
editors, e-book readers, browser extensions, `libretranslatepy`, the `libretranslate` npm client) can use this
translator offline by its URL. Routes, parameters, answers and errors follow LibreTranslate 1.9 (`/translate`,
`/languages`, `/detect`, `/translate_file` and `/download_file/…`, `/frontend/settings`, `/spec`, `/health`);
errors are `{"error": "…"}` with 400/403/429/500, as there.

The translations are the app's: the same `translate` function and default decoding, term protection on, a
`glossary` field and a `strategy` field (greedy or beam, the default) as extensions, and the batching scheduler shared with the app's users (the handlers run in
FastAPI's thread pool, outside Gradio's queue). The app's limits hold (characters per text, upload size); a list
`q` holds at most `MAX_TEXTS`. API keys (`studio launch --api-keys FILE`: one key a line, optionally followed by
its requests per minute) are optional on this computer and required when the server is reachable from others;
past a key's limit the answer is 429."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from limits import RateLimitItemPerMinute, storage, strategies

from studio.app_model import AppModel, InputError, decode_options, offer_download
from studio.errors import DataError, StudioError
from studio.files import session_folder
from studio.formats import FORMATS, output_name
from studio.tasks import TRANSLATOR, language_name, language_pair
from studio.text.protect import Glossary, Protector, protector_for
from studio.text.script import script_of
from studio.translation import n_best, translate, translate_document

log = logging.getLogger(__name__)

VERSION = "1.9.6"  # the LibreTranslate API this follows
# the languages (named in studio.tasks.LANGUAGE_NAMES, as LibreTranslate names them) written in the Latin script:
# /detect tells scripts apart, and names Latin letters as the served translator's language written in them (an
# imported de→en model's "de"), else English
LATIN_SCRIPT = frozenset({"cs", "da", "de", "en", "es", "fi", "fr", "hu", "id", "it", "nl", "pl", "pt", "sv", "tr",
                          "vi"})


def language(code: str) -> dict:
    return {"code": code, "name": language_name(code)}


MAX_TEXTS = 50  # texts in one request's `q` list
DEFAULT_PER_MINUTE = 60  # requests per minute of a key listed without a number
MAX_ALTERNATIVES = 8
KEY_REQUIRED = "Please contact the server operator to get an API key"
NO_KEYS_ON_A_PUBLIC_SERVER = ("this server is reachable from other computers: its LibreTranslate API needs API keys "
                              "(studio launch --api-keys FILE)")
DOWNLOAD_HOURS = 1
FORM_SLACK = 64 * 1024  # a multipart body's bytes besides its file


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class ApiKeys:
    """Keys and their requests per minute (a moving window, as LibreTranslate's Flask-Limiter)."""
    per_minute: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        self._limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())

    @classmethod
    def read(cls, path) -> "ApiKeys":
        """`path`: one key a line, optionally followed by its requests per minute; `#` starts a comment."""
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise StudioError(f"--api-keys {path}: cannot read it ({getattr(error, 'strerror', None) or error})") from None
        keys = {}
        for number, line in enumerate(lines, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) > 2 or (len(words) == 2 and not (words[1].isdigit() and int(words[1]) > 0)):
                raise StudioError(f"--api-keys {path}, line {number}: expected a key and optionally its requests "
                                  f"per minute (a whole number above 0), got {line.strip()[:60]!r}")
            keys[words[0]] = int(words[1]) if len(words) == 2 else DEFAULT_PER_MINUTE
        if not keys:
            raise StudioError(f"--api-keys {path}: no key in it")
        return cls(keys)

    def admit(self, key: str, cost: int = 1) -> None:
        """Count `cost` requests against `key`'s limit (LibreTranslate counts each text of a list)."""
        if key not in self.per_minute:
            raise ApiError(403, "Invalid API key")
        limit = RateLimitItemPerMinute(self.per_minute[key])
        if cost > 0 and not self._limiter.hit(limit, key, cost=cost):
            raise ApiError(429, f"Slowdown: {limit}")


class LibreTranslateApi:
    """The endpoints' logic over the app's translator; `router()` gives the FastAPI routes."""

    def __init__(self, translator: AppModel, backend: str, keys: ApiKeys | None = None, public: bool = False,
                 downloads: Path | None = None):
        """`public`: keys are required (a server reachable from other computers, or one with a password: the API
        must not open what the password closes)."""
        self.translator, self.backend = translator, backend
        self.keys, self.keys_required = keys, public
        self.downloads = downloads or session_folder("studio-api-files-")
        # the API's own threads: requests waiting for their turn in a batch never hold the threads that
        # serve the app's page
        self.limiter = anyio.CapacityLimiter(max(8, 2 * translator.max_batch))

    # ---- access and parameters -------------------------------------------------------------------------
    def check_access(self, api_key: str | None, cost: int = 1) -> None:
        if api_key and self.keys is not None:
            self.keys.admit(str(api_key), cost)
        elif self.keys_required:
            raise ApiError(400, KEY_REQUIRED)

    def charge(self, api_key: str | None, cost: int) -> None:
        """Count more work against a key already admitted (a file's segments, alternatives)."""
        if api_key and self.keys is not None and cost > 0:
            self.keys.admit(str(api_key), cost)

    def pair(self) -> tuple[str, str]:
        """The served translator's languages (its config's; an imported model's are its own), source first."""
        bundle = self.translator.bundle
        pair = language_pair(bundle.config.task if bundle is not None else None)
        return pair.source, pair.target

    def check_pair(self, source: str, target: str) -> None:
        source, target = str(source).lower(), str(target).lower()
        served, wanted = self.pair(), self.pair()[1]
        if source != "auto" and source not in served:
            raise ApiError(400, f"{source} is not supported")
        if target not in served:
            raise ApiError(400, f"{target} is not supported")
        if source not in ("auto", served[0]) or target != wanted:
            raise ApiError(400, f"{language(target)['name']} ({target}) is not available as a target language from "
                                f"{language(source)['name'] if source != 'auto' else source} ({source})")

    def check_texts(self, texts: list) -> None:
        """The app's own input checks (`AppModel.check_text`: empty, too long, nothing readable), in LibreTranslate's
        words where it has some, for each text; the first one refused is the request's 400."""
        if len(texts) > MAX_TEXTS:
            raise ApiError(400, f"Invalid request: request ({len(texts)}) exceeds text limit ({MAX_TEXTS})")
        limit = self.translator.limits.max_input_chars
        for number, text in enumerate(texts, start=1):
            if not isinstance(text, str):
                raise ApiError(400, "Invalid request: q must be a string or a list of strings")
            if len(text) > limit:
                raise ApiError(400, f"Invalid request: request ({len(text)}) exceeds text limit ({limit})")
            try:
                self.translator.check_text(text)
            except InputError as error:
                where = f" (text {number} of {len(texts)})" if len(texts) > 1 else ""
                raise ApiError(400, f"Invalid request: {error}{where}") from None

    def generator(self):
        if not self.translator.available:
            raise ApiError(500, f"the translator is unavailable: {self.translator.unavailable}")
        try:
            return self.translator.generator(self.backend)
        except StudioError as error:
            raise ApiError(500, str(error)) from None

    # ---- endpoints ---------------------------------------------------------------------------------------
    def translate(self, params: dict) -> dict:
        q, source, target = params.get("q"), params.get("source"), params.get("target")
        for name, value in (("q", q), ("source", source), ("target", target)):
            if not value:
                raise ApiError(400, f"Invalid request: missing {name} parameter")
        texts = q if isinstance(q, list) else [q]
        self.check_access(params.get("api_key"), cost=len(texts))
        try:
            wanted = max(0, int(params.get("alternatives") or 0))
        except (TypeError, ValueError, OverflowError):
            raise ApiError(400, "Invalid request: alternatives parameter is not a number") from None
        if wanted > MAX_ALTERNATIVES:
            raise ApiError(400, f"Invalid request: alternatives parameter must be <= {MAX_ALTERNATIVES}")
        self.check_texts(texts)
        text_format = params.get("format") or "text"
        if text_format not in ("text", "html"):
            raise ApiError(400, f"{text_format} format is not supported")
        self.check_pair(source, target)
        strategy = params.get("strategy") or TRANSLATOR.default_decoding["strategy"]
        if strategy not in ("greedy", "beam"):
            raise ApiError(400, "Invalid request: strategy must be greedy or beam")
        options = decode_options(**{**TRANSLATOR.default_decoding, "strategy": strategy})
        protector = protection(params.get("glossary"))
        self.charge(params.get("api_key"), len(texts) * wanted)  # each alternative is a beam search's n-best
        translated = [self.translate_text(text, text_format, protector, options) for text in texts]
        answer = {}
        if wanted:
            found = [self.alternatives(text, translation, wanted, protector) if text_format == "text" else []
                     for text, translation in zip(texts, translated)]
            answer["alternatives"] = found if isinstance(q, list) else found[0]
        if str(source).lower() == "auto":
            detected = detect_language(" ".join(texts), self.pair())[0]  # one for all texts, as LibreTranslate does
            answer["detectedLanguage"] = [detected] * len(texts) if isinstance(q, list) else detected
        answer["translatedText"] = translated if isinstance(q, list) else translated[0]
        return answer

    def translate_text(self, text: str, text_format: str, protector: Protector | None, options) -> str:
        generator = self.generator()
        if text_format == "html":
            try:
                document = self.translator.document("q.html", text.encode("utf-8"))
            except DataError as error:
                raise ApiError(400, str(error)) from None
            result = translate_document(generator, document, options, protector=protector)
            told(result.warnings)
            return result.document.decode("utf-8")
        translation = translate(generator, text.split("\n"), options, protector=protector, timed=True)
        told(translation.warnings)
        return translation.text

    def alternatives(self, text: str, translation: str, wanted: int, protector) -> list[str]:
        """Up to `wanted` other translations: beam search's n-best, the main translation and repeats left out."""
        if "\n" in text.strip():
            return []  # n-best takes one input: several lines have no alternatives, as html has none
        found = n_best(self.generator(), text, wanted + 1, protector=protector).choices
        others = []
        for choice, _ in found:
            if choice and choice != translation and choice not in others:
                others.append(choice)
        return others[:wanted]

    def detect(self, params: dict) -> list[dict]:
        q = params.get("q")
        if not q:
            raise ApiError(400, "Invalid request: missing q parameter")
        texts = q if isinstance(q, list) else [q]
        self.check_access(params.get("api_key"), cost=len(texts))
        self.check_texts(texts)
        return detect_language(" ".join(texts), self.pair())

    def translate_file(self, name: str, data: bytes, params: dict, base_url: str) -> dict:
        self.check_access(params.get("api_key"))
        for key in ("source", "target"):
            if not params.get(key):
                raise ApiError(400, f"Invalid request: missing {key} parameter")
        if not name:
            raise ApiError(400, "Invalid request: empty file")
        if Path(name).suffix.lower() not in FORMATS:  # LibreTranslate's words for it
            raise ApiError(400, "Invalid request: file format not supported")
        self.check_pair(params["source"], params["target"])
        try:
            document = self.translator.document(name, data)
        except DataError as error:
            raise ApiError(400, f"Invalid request: {error}") from None
        self.charge(params.get("api_key"), len(document.segments) - 1)  # one request a segment
        result = translate_document(self.generator(), document, decode_options(**TRANSLATOR.default_decoding),
                                    protector=protection(""))
        told(result.warnings)
        stored = offer_download(self.downloads, safe_name(output_name(name)), result.document,
                                max_age_s=DOWNLOAD_HOURS * 3600)
        # LibreTranslate's shape of the address, "<unique>.<file name>": here the download's folder and name
        return {"translatedFileUrl": f"{base_url.rstrip('/')}/download_file/{stored.parent.name}.{stored.name}"}

    def download(self, filename: str) -> Path:
        folder, _, name = filename.partition(".")
        path = self.downloads / folder / name
        if not (folder and name) or any(c in filename for c in "/\\") or name.startswith(".") or not path.is_file():
            raise ApiError(400, "Invalid filename")
        return path

    def settings(self) -> dict:
        return {"apiKeys": self.keys is not None, "charLimit": self.translator.limits.max_input_chars,
                "filesTranslation": True, "frontendTimeout": 500, "keyRequired": self.keys_required,
                "language": {"source": language(self.pair()[0]), "target": language(self.pair()[1])},
                "suggestions": False, "supportedFilesFormat": sorted(FORMATS)}

    def languages(self) -> list[dict]:
        source, target = self.pair()
        return [{**language(source), "targets": [target]}, {**language(target), "targets": []}]

    # ---- routes ------------------------------------------------------------------------------------------
    def router(self) -> APIRouter:
        """The routes. A POST's parameters are read here; the work runs in FastAPI's thread pool (a request
        waiting for its turn in the scheduler's batch holds a thread, not the event loop)."""
        router = APIRouter()

        texts_limit = MAX_TEXTS * self.translator.limits.max_input_chars * 4 + FORM_SLACK  # UTF-8, JSON escapes
        file_limit = self.translator.limits.max_file_bytes + FORM_SLACK

        @router.post("/translate")
        async def translate_route(request: Request):
            return await respond(request, self.translate, self.limiter, texts_limit)

        @router.post("/detect")
        async def detect_route(request: Request):
            return await respond(request, self.detect, self.limiter, texts_limit)

        @router.post("/translate_file")
        async def translate_file_route(request: Request):
            async def upload(params: dict) -> dict:
                file = params.get("file")
                if not hasattr(file, "filename"):
                    raise ApiError(400, "Invalid request: missing file parameter")
                data = await file.read(self.translator.limits.max_file_bytes + 1)
                return {**params, "file": (file.filename or "", data)}

            return await respond(request, lambda params: self.translate_file(
                *params["file"], params, str(request.base_url)), self.limiter, file_limit, prepare=upload)

        @router.get("/languages")
        def languages_route():
            return answer(self.languages)

        @router.get("/frontend/settings")
        def settings_route():
            return answer(self.settings)

        @router.get("/spec")
        def spec_route():
            return answer(spec)

        @router.get("/health")
        def health_route():
            return answer(lambda: {"status": "ok"})

        @router.get("/download_file/{filename}")
        def download_route(filename: str):
            try:
                path = self.download(filename)
            except ApiError as error:
                return error_response(error)
            return FileResponse(path, filename=path.name, headers=CORS)

        @router.post("/suggest")
        def suggest_route():
            return error_response(ApiError(403, "Suggestions are disabled on this server."))

        return with_api_shapes(router)


HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def with_api_shapes(router: APIRouter) -> APIRouter:
    """`router` with each route also under a doubled slash (a client given the server's URL with a trailing slash
    asks for `//languages`), a preflight (OPTIONS) answered for browsers, any other method answered 405 and any
    other doubled-slash path 404, in LibreTranslate's `{"error": ...}` shape."""
    for route in list(router.routes):
        for path in (route.path, "/" + route.path):
            if path != route.path:
                router.add_api_route(path, route.endpoint, methods=list(route.methods), include_in_schema=False)
            router.add_api_route(path, preflight, methods=["OPTIONS"], include_in_schema=False)
            others = [m for m in HTTP_METHODS if m not in route.methods]
            router.add_api_route(path, not_allowed, methods=others, include_in_schema=False)
    router.add_api_route("//{path:path}", not_found, methods=list(HTTP_METHODS), include_in_schema=False)
    return router


def preflight():
    return Response(status_code=200, headers={**CORS, "Access-Control-Max-Age": str(20 * 24 * 3600)})


def not_allowed():
    return error_response(ApiError(405, "The method is not allowed for the requested URL."))


def not_found():
    return error_response(ApiError(404, "The requested URL was not found on the server."))


async def respond(request: Request, work, limiter, body_limit: int, prepare=None) -> JSONResponse:
    try:
        params = await read_params(request, body_limit)
        if prepare is not None:
            params = await prepare(params)
    except ApiError as error:
        return error_response(error)
    return await anyio.to_thread.run_sync(answer, lambda: work(params), limiter=limiter)


CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Authorization, Content-Type",
        "Access-Control-Allow-Methods": "GET, POST"}


def answer(work) -> JSONResponse:
    """`work()`'s JSON with 200, or its ApiError as LibreTranslate words it; anything else is a 500 with its
    reason (logged), never a traceback."""
    try:
        return JSONResponse(work(), headers=CORS)
    except ApiError as error:
        return error_response(error)
    except (StudioError, OSError) as error:
        return error_response(ApiError(500, str(error)))
    except Exception as error:  # noqa: BLE001 - a client gets LibreTranslate's JSON 500, the log the traceback
        log.exception("the LibreTranslate API failed")
        return error_response(ApiError(500, f"the translation failed ({type(error).__name__})"))


def protection(glossary) -> Protector | None:
    """The Translate tab's protection (names, numbers, URLs) with the request's glossary; a bad line is a 400."""
    try:
        return protector_for(Glossary.parse(str(glossary or ""), "glossary"), True)
    except DataError as error:
        raise ApiError(400, str(error)) from None


def told(warnings) -> None:
    """What the Translate tab shows beside a translation (a loop retried, a line kept as written), logged: a
    LibreTranslate answer has no place for it."""
    for warning in dict.fromkeys(warnings or []):
        log.info("translation warning: %s", warning)


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse({"error": error.message}, status_code=error.status, headers=CORS)


async def read_params(request: Request, limit: int) -> dict:
    """The request's parameters as LibreTranslate reads them: a JSON object's, else the query string's and the
    form's (urlencoded, read as UTF-8 whether raw or percent-encoded, or multipart with one file); a repeated `q`
    is a list of texts, any other repeated field its last value. A body over `limit` bytes is refused (413) before
    it is read."""
    declared = request.headers.get("content-length")
    if declared is None or not declared.isdigit():
        raise ApiError(411, "Invalid request: a Content-Length header is required")
    if int(declared) > limit:
        raise ApiError(413, f"Invalid request: the request is {int(declared):,} bytes; the limit is {limit:,}")
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "application/json":
        try:
            params = json.loads(await request.body() or b"{}")
        except ValueError:
            raise ApiError(400, "Invalid JSON format") from None
        if not isinstance(params, dict):
            raise ApiError(400, "Invalid JSON format")
        return params
    if content_type == "application/x-www-form-urlencoded":
        fields = form_fields(await request.body())
    else:
        try:
            form = await request.form(max_files=1, max_fields=MAX_FIELDS, max_part_size=limit)
        except Exception as error:  # noqa: BLE001 - Starlette's MultiPartException, a malformed body
            raise ApiError(400, f"Invalid request: {error}") from None
        fields = form.multi_items()
    return gathered(list(request.query_params.multi_items()) + list(fields))


MAX_FIELDS = MAX_TEXTS + 32  # a form's fields: a list `q` of MAX_TEXTS and the other parameters


def form_fields(body: bytes) -> list[tuple[str, str]]:
    """An urlencoded body's fields as UTF-8, as LibreTranslate's server reads them (Starlette would read raw bytes
    as Latin-1 and make mojibake of a client's unescaped Korean)."""
    try:
        return parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, encoding="utf-8",
                         errors="strict", max_num_fields=MAX_FIELDS)
    except UnicodeDecodeError:
        raise ApiError(400, "Invalid request: the form is not UTF-8 text") from None
    except ValueError:
        raise ApiError(400, f"Invalid request: more than {MAX_FIELDS} fields") from None


def gathered(fields: list[tuple]) -> dict:
    """{name: value}: the texts of a repeated `q` as a list (`q=a&q=b`, as clients send a list in a form), any other
    field's last value."""
    params, texts = {}, [value for name, value in fields if name == "q"]
    for name, value in fields:
        params[name] = value
    if len(texts) > 1:
        params["q"] = texts
    return params


def detect_language(text: str, served: tuple[str, str] = ("ko", "en")) -> list[dict]:
    """[{"confidence", "language"}] by the share of Hangul and Latin letters (the app's script check), the most
    likely first; no letters at all: English at 0, as LibreTranslate answers. Latin letters are the `served` pair's
    language written in them, its source first (an imported de→en model: "de"), else English."""
    latin = next((code for code in served if code in LATIN_SCRIPT), "en")
    scripts = [script_of(character) for character in text]
    letters = sum(1 for s in scripts if s)
    found = [{"confidence": round(100.0 * scripts.count(script) / letters, 1), "language": code}
             for code, script in (("ko", "HANGUL"), (latin, "LATIN")) if letters and scripts.count(script)]
    return sorted(found, key=lambda d: -d["confidence"]) or [{"confidence": 0.0, "language": "en"}]


def safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(name).name)[-120:] or "file"


def mount(app, api: LibreTranslateApi) -> None:
    """Add the routes to the app's FastAPI app (beside Gradio's, which live under /gradio_api and /)."""
    app.include_router(api.router())


def _spec() -> dict:
    """The Swagger 2.0 description LibreTranslate serves at /spec, for this server's routes."""
    text = {"type": "string"}

    def parameter(name: str, description: str, required: bool = True, kind: str = "string",
                  where: str = "formData") -> dict:
        return {"in": where, "name": name, "required": required, "type": kind, "description": description}

    key = parameter("api_key", "API key", required=False)
    error = {"description": "error", "schema": {"$ref": "#/definitions/error-response"}}
    errors = {"400": {"description": "Invalid request", **error}, "403": {"description": "Banned", **error},
              "429": {"description": "Slow down", **error}, "500": {"description": "Translation error", **error}}
    post = lambda summary, params, ok: {"post": {"summary": summary, "parameters": params,  # noqa: E731
                                                 "responses": {"200": ok, **errors}, "tags": ["translate"]}}
    get = lambda summary, ok: {"get": {"summary": summary, "responses": {"200": ok},  # noqa: E731
                                       "tags": ["misc"]}}
    ref = lambda name, array=False: {"description": name, "schema": (  # noqa: E731
        {"type": "array", "items": {"$ref": f"#/definitions/{name}"}} if array else {"$ref": f"#/definitions/{name}"})}
    return {
        "swagger": "2.0", "basePath": "/",
        "info": {"version": VERSION, "title": "LibreTranslate",
                 "description": "Transformer Studio's Korean→English translator behind LibreTranslate's API."},
        "paths": {
            "/translate": post("Translate text", [
                parameter("q", "Text(s) to translate (a list in JSON)"),
                parameter("source", "Source language code (ko), or auto"),
                parameter("target", "Target language code (en)"),
                parameter("format", "text or html", required=False),
                parameter("alternatives", "Number of alternative translations", required=False, kind="integer"),
                parameter("glossary", "Terms kept as given, one 'korean = english' a line (an extension)",
                          required=False),
                parameter("strategy", "greedy or beam (the default; an extension)", required=False), key],
                ref("translate")),
            "/translate_file": post("Translate file", [
                parameter("file", "File to translate", kind="file"), parameter("source", "ko or auto"),
                parameter("target", "en"), key], ref("translate-file")),
            "/detect": post("Detect the language of a single text", [parameter("q", "Text to detect"), key],
                            ref("detections", array=True)),
            "/languages": get("Retrieve list of supported languages", ref("languages", array=True)),
            "/frontend/settings": get("Retrieve frontend specific settings", ref("frontend-settings")),
            "/health": get("Health check", {"description": "ok"}),
        },
        "definitions": {
            "translate": {"type": "object", "properties": {"translatedText": text, "detectedLanguage": {
                "type": "object"}, "alternatives": {"type": "array", "items": text}}},
            "translate-file": {"type": "object", "properties": {"translatedFileUrl": text}},
            "detections": {"type": "object", "properties": {"confidence": {"type": "number"}, "language": text}},
            "languages": {"type": "object", "properties": {"code": text, "name": text,
                                                           "targets": {"type": "array", "items": text}}},
            "frontend-settings": {"type": "object"},
            "error-response": {"type": "object", "properties": {"error": text}},
        },
    }


SPEC = _spec()


def spec() -> dict:
    return SPEC
