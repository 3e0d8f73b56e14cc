"""The `studio` command: one module per group of commands (`text`: chat and translate; `models`: train, ensemble,
export, web, data; `library`: models; `measure`: eval and bench; `serve`: launch), all on the Typer app of
`common`."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TensorFlow's C++ start-up chatter out of the CLI

# each module registers its commands, in the order `studio --help` lists them
from studio.cli import text  # noqa: E402,F401
from studio.cli import models  # noqa: E402,F401
from studio.cli import library  # noqa: E402,F401
from studio.cli import measure  # noqa: E402,F401
from studio.cli import serve  # noqa: E402,F401
from studio.cli.common import app, console, decode_options  # noqa: E402,F401 (the app; tests use decode_options)
from studio.errors import StudioError  # noqa: E402
from studio.quiet_tf import import_tensorflow_quietly  # noqa: E402

# these import TensorFlow only when the chosen backend needs it (`studio.serving`) or an export is converted
# (`exporters.ensure_exported`): on an exported backend a command answers in about a second instead of ten, and the
# app's page and first replies come ~4 s sooner on 2 cores (TensorFlow's import) with ~0.6 GB less memory
TENSORFLOW_ON_DEMAND = {"chat", "translate", "eval", "launch"}


def main():
    """The `studio` entry point: a StudioError is one red line on stderr (exit 1), never a traceback."""
    args = sys.argv[1:]
    command = next((arg for arg in args if not arg.startswith("-")), None)
    if command and not {"--help", "-h"} & set(args) and command not in TENSORFLOW_ON_DEMAND:
        import_tensorflow_quietly()
    try:
        app()
    except StudioError as error:
        console.print(f"error: {error}", style="red", highlight=False, markup=False)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
