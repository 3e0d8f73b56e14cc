"""What every tab shares: the model handle (`studio.app_model.AppModel`, with its input checks and decoding settings,
imported here for the tabs), user errors and notices, Gradio's uploads."""

from __future__ import annotations

import functools
import html
import warnings
from pathlib import Path

import gradio as gr
from gradio.utils import get_upload_folder

from studio.app_model import AppModel, InputError


def show_in_use(service: AppModel, app: gr.Blocks, tab: gr.Tab, elem_id: str) -> None:
    """A line saying which model `service` uses, written when the page loads and each time `tab` is shown."""
    line = gr.Markdown(service.in_use(), elem_id=elem_id)
    for event in (app.load, tab.select):
        event(service.in_use, None, line, queue=False, show_progress="hidden", api_visibility="private")


def follow_examples(service: AppModel, app: gr.Blocks, tab: gr.Tab, examples: gr.Examples) -> None:
    """`examples` rewritten for the model `service` uses when the page loads and each time `tab` is shown."""
    def shown():
        return gr.Dataset(samples=[[example] for example in service.examples()])

    for event in (app.load, tab.select):
        event(shown, None, examples.dataset, queue=False, show_progress="hidden", api_visibility="private")


def user_error(message) -> Exception:
    """An error for the page and the API. Gradio renders a notice's message as HTML, and messages quote what
    users sent (file names, glossary lines, backends): escaped, they show as text and fetch nothing."""
    return gr.Error(html.escape(str(message), quote=False), print_exception=False)


def as_notice(handler, cleared):
    """`handler` for a page's event, its user error (`user_error`) shown as a notice and its outputs set to
    `cleared`, rather than as an error badge on each output beside an earlier result. Only for events that are no
    API endpoint: an API client must get the error."""
    @functools.wraps(handler)
    def noticed(*args, **kwargs):
        try:
            return handler(*args, **kwargs)
        except gr.Error as error:
            gr.Warning(error.message)  # escaped by user_error
            return cleared

    return noticed


def warn(message) -> None:
    gr.Warning(html.escape(str(message), quote=False))


def inform(message) -> None:
    gr.Info(html.escape(str(message), quote=False))


def notify(message: str) -> None:
    """A toast in the browser when called from a request; nothing otherwise (e.g. at start-up)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inform(message)


def upload_of(file) -> tuple[Path, str]:
    """(where Gradio keeps an upload, the name the user's file had): `file` is a path or a Gradio file."""
    path = Path(file if isinstance(file, str) else getattr(file, "path", None) or file.name)
    return path, getattr(file, "orig_name", None) or path.name


def read_upload(file, max_bytes: int, kind: str = "a file", suffixes=None) -> tuple[str, bytes]:
    """(an upload's own name, its bytes), or InputError when its name's suffix is not one of `suffixes` (when
    given), or it cannot be read, or it is larger than `max_bytes` (`kind` names it in the message: "a
    glossary"). Gradio's copy is deleted either way: uploads are read, never executed or kept."""
    path, name = upload_of(file)
    try:
        if suffixes is not None and Path(name).suffix.lower() not in suffixes:
            raise InputError(f"{name}: cannot read this type of file as {kind}; choose {', '.join(suffixes)}")
        with path.open("rb") as opened:
            data = opened.read(max_bytes + 1)  # one byte more says it is too big
    except OSError:
        raise InputError(f"{name}: the upload could not be read; please upload it again.") from None
    finally:
        delete_upload(path)
    if len(data) > max_bytes:
        limit = f"{max_bytes // 2 ** 20} MB" if max_bytes % 2 ** 20 == 0 else f"{max_bytes:,} bytes"  # as the page says
        raise InputError(f"{name}: larger than {limit}, the most {kind} may be.")
    return name, data


def discard_upload(file) -> None:
    """Delete an upload that will not be read (a request refused before reading it)."""
    if file is not None:
        delete_upload(upload_of(file)[0])


def delete_upload(path: Path) -> None:
    """Delete Gradio's copy of an upload; never a file outside Gradio's upload folder."""
    try:
        if path.resolve().is_relative_to(Path(get_upload_folder()).resolve()):
            path.unlink(missing_ok=True)
    except OSError:
        pass


