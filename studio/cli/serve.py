"""`studio launch`: the app in the browser, and who may reach it."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from studio.cli.common import BACKENDS, app, console
from studio.errors import StudioError
from studio.variants import DEFAULT_BACKEND


@app.command()
def launch(host: str = typer.Option("127.0.0.1", help="Interface to listen on (loopback by default)"),
           port: int = typer.Option(7860, help="Port"),
           share: bool = typer.Option(False, help="Create a public Gradio link (use --auth with it)"),
           auth: Optional[str] = typer.Option(None, help="user:password required to open the app"),
           auth_file: Optional[Path] = typer.Option(None, help="File with one user:password per line"),
           backend: str = typer.Option(DEFAULT_BACKEND, help=BACKENDS),
           chatbot: Optional[Path] = typer.Option(None, help="Chatbot bundle [default: the shipped one]"),
           translator: Optional[Path] = typer.Option(None, help="Translator bundle [default: the shipped one]"),
           max_input_chars: int = typer.Option(1000, help="Longest accepted input, in characters"),
           concurrency: int = typer.Option(4, help="Requests processed at once"),
           site: Optional[Path] = typer.Option(None, "--site", help="Also serve, at /site/, the offline web page "
                                                                     "`studio web DIR` built in DIR"),
           max_batch: int = typer.Option(16, "--max-batch", min=1, max=64,
                                         help="Decode up to N users' greedy and sampling requests together, each "
                                              "at its own position (continuous batching; 16 measured best); 1 = off"),
           yes_public: bool = typer.Option(False, "--yes-public",
                                           help="Serve --share or a non-loopback --host without a password anyway"),
           mcp: bool = typer.Option(False, "--mcp", help="Also serve `translate` and `chat` as MCP tools at "
                                    "/gradio_api/mcp/ (needs pip install '.\\[mcp]' in a checkout)"),
           api_keys: Optional[Path] = typer.Option(None, "--api-keys", help="Keys of the LibreTranslate API (/translate): "
                                                   "one a line, optionally with its requests per minute (default "
                                                   "60); required from other computers")):
    """Open the web app (Chat, Translate, Compare, Explore; Models, Train, Export) on the shipped models, and a
    LibreTranslate-compatible API (/translate, /languages, /detect, /translate_file) on the same port."""
    from studio.ui.app import launch as launch_app  # deferred: Gradio takes ~3 s to import, the other commands 0

    credentials = []
    if auth:
        credentials.append(tuple(auth.split(":", 1)))
    if auth_file:
        for number, line in enumerate(auth_file.read_text(encoding="utf-8").splitlines(), start=1):
            if line.strip():
                if ":" not in line:
                    raise StudioError(f"{auth_file}:{number}: expected user:password")
                credentials.append(tuple(line.strip().split(":", 1)))
    if any(len(c) != 2 or not c[0] or not c[1] for c in credentials):
        raise StudioError("--auth expects user:password")
    public = share or host not in ("127.0.0.1", "localhost", "::1")
    if public and not credentials:
        where = "through a public Gradio link" if share else f"on {host}, from other machines"
        console.print(f"WARNING: the app would be reachable {where} with no password: anyone could use it.",
                      style="bold red", highlight=False)
        if not yes_public:
            raise StudioError("refusing to serve publicly without a password. Pass --auth user:password (or "
                              "--auth-file FILE), or --yes-public to accept that anyone can use it.")
    launch_app(chatbot, translator, host, port, share, credentials or None, backend, max_input_chars, concurrency,
               progress=lambda message: console.print(message, highlight=False), max_batch=max_batch, mcp=mcp, site=site,
               api_keys=api_keys)
