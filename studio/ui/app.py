"""Transformer Studio in the browser: a Chat tab (the Korean chatbot) and a Translate tab (KO→EN), each
with a backend selector, decoding controls and the latency of every reply, plus Compare and Explore tabs.
Named API endpoints `/chat` and `/translate` take the text as their first parameter and return the output
text first; `/translate_file` and `/compare` are the file translator and the Compare tab; `/health` runs no model."""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

import gradio as gr
from starlette.staticfiles import StaticFiles

from studio.api.libretranslate import NO_KEYS_ON_A_PUBLIC_SERVER, ApiKeys, LibreTranslateApi
from studio.api.libretranslate import mount as mount_libretranslate
from studio.app_model import AppModel, Limits
from studio.errors import StudioError
from studio.ui.chat import ChatTab, chat_api
from studio.ui.common import follow_examples, notify, show_in_use
from studio.ui.compare import compare_api, compare_tab
from studio.ui.decoding import remember_settings
from studio.ui.explore import explore_tab
from studio.ui.export import ExportTab
from studio.ui.models import ModelsTab
from studio.ui.sessions import keep_sessions_lean, lighten_queue
from studio.ui.train import TrainTab
from studio.ui.translate import TranslateTab, alternatives_api, confidence_api, remember_glossary, translate_api
from studio.variants import DEFAULT_BACKEND

SITE_PATH = "/site"  # where `studio launch --site DIR` serves the page `studio web DIR` built


def build_app(chatbot: AppModel, translator: AppModel, default_backend: str = DEFAULT_BACKEND,
              site: bool = False, tools_off: str | None = None) -> gr.Blocks:
    """`tools_off`: why the Models, Train and Export tabs are off (a public server without a password: a visitor
    must not start jobs on this machine or download its models), or None."""
    services = {"chatbot": chatbot, "translator": translator}
    # Gradio's own copies of uploads and downloads are deleted after an hour
    with gr.Blocks(title="Transformer Studio", delete_cache=(600, 3600), analytics_enabled=False) as app:
        gr.Markdown("# Transformer Studio\nA Korean chatbot and a Korean→English translator — Transformers trained "
                    "from scratch, decoding with a key/value cache on TensorFlow, TFLite or ONNX."
                    + (f" The same models also run [in your browser, offline]({SITE_PATH}/) (LiteRT.js)." if site
                       else ""), elem_id="studio-header")
        with gr.Tab("Chat") as chat_tab:
            show_in_use(chatbot, app, chat_tab, "chat-model")
            chat = ChatTab(chatbot, default_backend, app)
        with gr.Tab("Translate") as translate_tab:
            show_in_use(translator, app, translate_tab, "translate-model")
            translate = TranslateTab(translator, default_backend)
        # the Models tab may serve another model with another capacity, and other inputs to try
        follow_examples(chatbot, app, chat_tab, chat.examples)
        follow_examples(translator, app, translate_tab, translate.examples)
        chat.decoding.follow_capacity(app, chat_tab, lambda: chatbot.capacity)
        translate.decoding.follow_capacity(app, translate_tab, lambda: translator.capacity)
        with gr.Tab("Compare"):
            compare_tab(services)
        with gr.Tab("Explore"):
            explore_tab(services)
        tools = {"Models": lambda: ModelsTab(services), "Train": lambda: TrainTab(services), "Export": ExportTab}
        for name, build in tools.items():
            with gr.Tab(name) as tab:
                if tools_off:
                    gr.Markdown(f"The {name} tab is off: {tools_off}", elem_id=f"{name.lower()}-off")
                    continue
                built = build()
            # the library changes while the page is open (a training finishes, a model is renamed): a tab
            # lists the models anew each time it is shown
            tab.select(built.shown, built.shown_from, built.listing, show_progress="hidden", api_visibility="private")
        # outside the tabs: a browser state in a tab not yet shown is not read when the page loads
        remember_settings(app, "translate", translate.backend, translate.decoding)
        remember_glossary(app, translate.glossary_text)
        gr.api(health_api(services), api_name="health")
        gr.api(compare_api(services), api_name="compare")
        gr.api(chat_api(chatbot, default_backend), api_name="chat")
        gr.api(translate_api(translator, default_backend), api_name="translate")
        gr.api(confidence_api(translator, default_backend), api_name="translate_scored")
        gr.api(alternatives_api(translator, default_backend), api_name="translate_alternatives")
    return app


def health_api(services: dict):
    """The `/health` endpoint: a request that runs no model, through the same queue as the others."""

    def health() -> str:
        """Whether the server answers, and which models it serves.

        Returns:
            One line per model: "chatbot: available" (and, when requests are batched, per backend how many
            and the mean rows per decode step), or "unavailable" with the reason's first line.
        """
        return "\n".join(f"{task}: available" + "".join(f"; {line}" for line in service.batching())
                         if service.available else f"{task}: unavailable ({service.unavailable.splitlines()[0]})"
                         for task, service in services.items())

    return health


def launch(chatbot_bundle=None, translator_bundle=None, host: str = "127.0.0.1", port: int = 7860,
           share: bool = False, auth=None, backend: str = DEFAULT_BACKEND, max_input_chars: int = 1000,
           concurrency: int = 4, progress=print, prevent_thread_lock: bool = False, mcp: bool = False,
           max_batch: int = 16, site=None, api_keys=None):
    """Serve the app and the LibreTranslate-compatible API (`studio.api.libretranslate`; `api_keys`: its keys
    file); with `mcp`, also Gradio's MCP server (streamable HTTP at /gradio_api/mcp/, SSE at
    /gradio_api/mcp/sse) with two tools, `translate` and `chat` (the `/translate` and `/chat` endpoints)."""
    if site is not None:
        site = _checked_site(site, auth)
    if mcp:
        if importlib.util.find_spec("mcp") is None:
            raise StudioError("--mcp needs the MCP server package: pip install '.[mcp]' in a checkout, "
                              "or 'transformer-studio[mcp]'")
        if auth:  # its tools would be listed to anyone, and every call would fail for want of the password
            raise StudioError("--mcp cannot be combined with --auth/--auth-file: Gradio's MCP server does not "
                              "pass the app's password on to the app")
    keys = ApiKeys.read(api_keys) if api_keys else None  # a bad file is refused before anything starts
    limits = Limits(max_input_chars)
    services = [AppModel("chatbot", chatbot_bundle, limits, progress, max_batch, notify=notify),
                AppModel("translator", translator_bundle, limits, progress, max_batch, notify=notify)]
    for service in services:
        if not service.available:
            progress(f"warning: the {service.task} is unavailable: {service.unavailable.splitlines()[0]}")
    if backend != "tf":  # serve at once; the default backend is exported (first launch) and warmed up meanwhile
        threading.Thread(target=_prepare, args=([s for s in services if s.available], backend, progress),
                         name="prepare-default-backend", daemon=True).start()
    public = share or host not in ("127.0.0.1", "localhost", "::1")
    tools_off = ("this server is reachable beyond this computer without a password (start it with --auth to use "
                 "them)") if public and not auth else None
    app = build_app(*services, default_backend=backend, site=site is not None, tools_off=tools_off)
    app.studio_services = services  # for tests and benchmarks that look inside (e.g. the schedulers' counts)
    # a batch can only gather the requests the queue lets through at once
    app.queue(default_concurrency_limit=max(concurrency, max_batch))
    lighten_queue(app)
    keep_sessions_lean(app)
    # never blocks here: the site and the MCP tools are set up on the running server, then the thread waits
    app.launch(server_name=host, server_port=port, share=share, auth=auth, show_error=False,
               max_file_size=limits.max_file_bytes, prevent_thread_lock=True, quiet=True,
               mcp_server=mcp,  # explicit: GRADIO_MCP_SERVER=true in the environment does not turn it on
               # Gradio would keep every call's inputs and outputs in the browser (and offer to send them to a
               # Hugging Face bucket): a leak on a shared computer, a way out of an offline app. The chats the
               # user keeps are the Chat tab's own history. No traffic page either (`lighten_queue`).
               run_history=False, enable_monitoring=False)
    progress(f"Running on {app.local_url}")
    # keys are required from other computers, and wherever a password guards the app (behind a proxy, a
    # tunnel): LibreTranslate clients cannot log in, and the API must not open what the password closes
    guarded = public or bool(auth)
    mount_libretranslate(app.app, LibreTranslateApi(services[1], backend, keys, public=guarded))
    progress(f"LibreTranslate API: {app.local_url.rstrip('/')}/translate"
             + (f" (warning: {NO_KEYS_ON_A_PUBLIC_SERVER}; until then it refuses every request)"
                if guarded and keys is None else ""))
    if share and not app.share_url:  # (Gradio prints the link it made)
        progress("warning: no public link could be created (is the internet reachable?); serving locally only")
    if site is not None:
        app.app.mount(SITE_PATH, StaticFiles(directory=site, html=True), name="site")
        progress(f"Web page (the models run in the visitor's browser): {app.local_url.rstrip('/')}{SITE_PATH}/")
    if mcp:
        server = app.mcp_server_obj
        if server is None:  # Gradio reports a failed MCP start and serves on without it; we do not
            app.close()
            raise StudioError(f"the MCP server did not start: {app.mcp_error}")
        # Gradio makes a tool of every named endpoint; only these two are tools here (set right after the
        # server starts, and read by Gradio at each tools/list and tools/call)
        server.tool_to_endpoint = {tool: endpoint for tool, endpoint in server.tool_to_endpoint.items()
                                   if endpoint in ("/translate", "/chat")}
        postprocess = server.postprocess_output_data

        def as_texts(data: list, root_url: str) -> list:  # a gr.api function's (output, latency) is one value,
            if len(data) == 1 and isinstance(data[0], (list, tuple)):  # which Gradio would send as one "['…', '…']"
                data = list(data[0])  # text: send the output and the latency summary as two texts instead
            return postprocess(data, root_url)

        server.postprocess_output_data = as_texts
        url = f"{(app.share_url or app.local_url).rstrip('/')}/gradio_api/mcp/"
        progress(f"MCP server (streamable HTTP): {url} — tools: {', '.join(server.tool_to_endpoint)}")
    if not prevent_thread_lock:
        app.block_thread()
    return app  # with prevent_thread_lock: still serving, at app.local_url


def _checked_site(site, auth):
    """The folder of a site `studio web` built, refused with a reason otherwise."""
    site = Path(site)
    if not (site / "index.html").is_file() or not (site / "site.json").is_file():
        raise StudioError(f"--site {site}: not a site built by `studio web` (no index.html and site.json); "
                          f"build one with `studio web {site}`")
    if auth:  # the page and its models would be served to anyone: static files bypass the app's password
        raise StudioError("--site cannot be combined with --auth/--auth-file: the static page and its models "
                          "would be served without the password")
    return site


def _prepare(services, backend: str, progress) -> None:
    """Build (first launch) and warm up `backend` for each service, one after the other: a request that
    comes meanwhile waits for its own model only, and the TF backend answers at once."""
    for service in services:
        try:
            service.generator(backend)
            progress(f"{service.task}: {backend} ready")
        except Exception as error:  # noqa: BLE001 - keep serving; the backend's own requests report the error
            progress(f"warning: could not prepare {backend} for the {service.task} ({error}); tf still works")
