"""The Models tab: the model library (`studio.library`) — the shipped chatbot and translator, every model the
user trained and every translator imported — with each one's task, size, parameters, data, dev scores and card;
which one the Chat, Translate, Compare and Explore tabs use (per task); rename and delete (never the shipped ones,
never one in use); importing a pretrained translator (`studio.importers.pretrained`, as `studio import` does)."""

from __future__ import annotations

import html
import os
import queue
import threading

import gradio as gr

from studio import library, paths
from studio.app_model import AppModel
from studio.errors import StudioError
from studio.importers import hub
from studio.importers.pretrained import import_pretrained, library_target
from studio.serving import Limits
from studio.ui.common import delete_upload, inform, upload_of, warn

COLUMNS = ["in use", "name", "task", "MB", "parameters", "trained on", "dev score"]


def library_rows(services: dict[str, AppModel]) -> list[list]:
    in_use = {task: service.bundle_path for task, service in services.items()}
    rows = []
    for e in library.list_models():
        used = in_use.get(e.task) is not None and in_use[e.task].resolve() == e.path.resolve()
        origin = "shipped" if e.shipped else (e.data or "?")
        if e.train_pairs:
            origin += f" ({e.train_pairs:,} pairs)"
        parameters = f"{e.parameters:,}" if e.parameters else ""
        score = f"⚠ {e.problem}" if e.problem else e.headline_score()
        rows.append(["▶" if used else "", e.name, e.task, round(e.bytes / 2**20, 1), parameters, origin,
                     f"⚠ learned little · {score}" if e.learned_little else score])
    return rows


def details(name: str | None) -> str:
    """A model's summary and card, as Markdown (its own text escaped: a card is written by whoever trained it)."""
    if not name:
        return "Choose a model to see its details."
    try:
        e = library.find_model(name)
    except StudioError as error:
        return html.escape(str(error))
    origin = "shipped with the app" if e.shipped else "imported" if e.imported_from else "yours"
    facts = [f"**{html.escape(e.name)}** — {e.task}, {origin}, {e.bytes / 2**20:.1f} MB, {e.parameters:,} parameters",
             f"Folder: `{e.path}`"]
    if e.imported_from:
        facts.append(f"Imported from `{html.escape(e.imported_from)}`; licence: {html.escape(e.licence or '?')}")
    if e.train_pairs:
        facts.append(f"Trained on {e.train_pairs:,} pairs ({e.dev_pairs:,} held out for its dev split)"
                     + (f" from {html.escape(e.data)}" if e.data else ""))
    if e.initialized_from:
        facts.append(f"Fine-tuned from {html.escape(e.initialized_from)}")
    for set_name, by_decoding in e.scores.items():
        for decoding, s in by_decoding.items():
            if isinstance(s, dict) and "chrf" in s:
                facts.append(f"{html.escape(set_name)}, {html.escape(decoding)}: {library.score_text(s)}")
    if e.problem:
        facts.append(f"⚠ It cannot be used: {html.escape(e.problem)}")
    if e.learned_little:
        facts.append(f"⚠ **{html.escape(e.learned_little)}**")
    return "\n\n".join(facts) + "\n\n---\n\n" + e.card


DELETE = "Delete"
USE = "Use it in its tabs"


def chosen(name, armed, use_armed):
    """`name`'s details, and the Delete and Use questions taken back unless they are about `name`, the model chosen
    now."""
    delete = (None, gr.Button(DELETE)) if armed != name else (gr.skip(), gr.skip())
    use = (None, gr.Button(USE)) if use_armed != name else (gr.skip(), gr.skip())
    return details(name), *delete, *use


class ModelsTab:
    def __init__(self, services: dict[str, AppModel]):
        self.services = services
        gr.Markdown(f"Every model the app knows: the two it ships with, each one you trained or fine-tuned in the "
                    f"Train tab and each translator you imported (below), kept on this computer in "
                    f"`{library.models_dir()}`. **Use** makes a model the one the Chat, Translate, Compare and Explore "
                    "tabs run for its task.")
        self.table = gr.Dataframe(headers=COLUMNS, value=lambda: library_rows(services), interactive=False,
                                  wrap=True, elem_id="models-table",  # every column on the page at 1200 px
                                  column_widths=["6%", "14%", "10%", "6%", "11%", "22%", "31%"])
        with gr.Row():
            self.choice = gr.Dropdown(label="Model", choices=self.names(), value=None, elem_id="models-choice")
            refresh = gr.Button("Refresh", size="sm", scale=0, min_width=90,  # beside the list, not stretched
                                elem_id="models-refresh")
        with gr.Row():
            use = gr.Button(USE, variant="primary", elem_id="models-use")
            self.new_name = gr.Textbox(label="New name", max_lines=1, scale=2)
            rename = gr.Button("Rename", elem_id="models-rename")
            delete = gr.Button(DELETE, variant="stop", elem_id="models-delete")
        self.details = gr.Markdown(details(None), elem_id="models-details")
        upload, source, name, revision, start, status = self.import_box()
        outputs = [self.table, self.choice, self.details]
        private = {"api_visibility": "private"}  # page events, not an API: nothing here is for other programs
        # Delete asks first: its first click names the model on the button, a second click deletes it; anything
        # else done meanwhile (another model chosen, another button) takes the question back
        # Use asks the same way before a model that learned little replaces a tab's model
        armed, use_armed = gr.State(None), gr.State(None)
        disarm = (lambda: (None, gr.Button(DELETE)), None, [armed, delete])
        disarm_use = (lambda: (None, gr.Button(USE)), None, [use_armed, use])
        # another model chosen takes both questions back; the model asked about stays asked about. The choice and
        # the buttons answer one at a time, in the order they were sent: run side by side, a choice's answer read
        # the question before a quick click on Delete had asked it and, landing after it, took it back
        in_order = {"concurrency_id": "models-choice", "concurrency_limit": 1, **private}
        self.choice.change(chosen, [self.choice, armed, use_armed], [self.details, armed, delete, use_armed, use],
                           **in_order)
        for button in (refresh, use, rename):
            button.click(*disarm, queue=False, **private)
        for button in (refresh, rename, delete):
            button.click(*disarm_use, queue=False, **private)
        refresh.click(self.refreshed, self.choice, outputs, **in_order)
        use.click(self.use, [self.choice, use_armed], [*outputs, use_armed, use], **in_order)
        rename.click(self.rename, [self.choice, self.new_name], outputs, **in_order)
        delete.click(self.delete, [self.choice, armed], [*outputs, armed, delete], **in_order)
        start.click(*disarm, queue=False, **private)
        start.click(*disarm_use, queue=False, **private)
        start.click(self.import_model, [upload, source, name, revision], [*outputs, status, upload], **private)

    @staticmethod
    def import_box():
        """The import's inputs, button and status line."""
        limit = f"{Limits.max_file_bytes // 2**20} MB"
        with gr.Accordion("Import a pretrained translator (Marian / OPUS-MT, Hugging Face)", open=False,
                          elem_id="models-import-box"):
            gr.Markdown(f"Upload a Marian / OPUS-MT release zip (up to {limit}, the app's upload limit), or type "
                        "the path on this computer of a release's folder or zip or of a Hugging Face MarianMT folder "
                        "(any size), or a Hugging Face model id such as `Helsinki-NLP/opus-mt-ko-en` (downloaded into "
                        f"`{paths.cache_dir() / 'huggingface'}`). It joins the library as a translator, with its "
                        "licence and published scores in its card. What cannot be imported is said here, with why.")
            with gr.Row():
                upload = gr.File(label="Release zip", file_types=[".zip"], elem_id="models-import-file")
                with gr.Column():
                    source = gr.Textbox(label="…or a folder, zip or model id", max_lines=1,
                                        elem_id="models-import-source")
                    name = gr.Textbox(label="Name (default: the folder's, zip's or model id's)", max_lines=1,
                                      elem_id="models-import-name")
                    revision = gr.Textbox(label="Revision of a model id (a branch, tag or commit; default: main)",
                                          max_lines=1, elem_id="models-import-revision")
                    start = gr.Button("Import", variant="primary", elem_id="models-import")
            status = gr.Markdown("", elem_id="models-import-status")
        return upload, source, name, revision, start, status

    @property
    def listing(self) -> list:
        return [self.table, self.choice, self.details]

    @property
    def shown_from(self) -> list:
        return [self.choice]

    def shown(self, name: str | None):
        """The library as it is now (`listing`'s values), the chosen model kept."""
        return self.refreshed(name)

    @staticmethod
    def names() -> list[str]:
        return [e.name for e in library.list_models()]

    def refreshed(self, name: str | None = None):
        name = name if name in self.names() else None
        return library_rows(self.services), gr.Dropdown(choices=self.names(), value=name), details(name)

    def _act(self, name, action):
        if not name:
            warn("Choose a model first.")
            return self.refreshed()
        try:
            message, name = action(name)
            inform(message)
        except StudioError as error:
            warn(error)
        return self.refreshed(name)

    def use(self, name: str | None, armed: str | None = None):
        """Make `name` its task's model; one that learned little (its dev figures) only at a second click, after
        the first has said why."""
        entry = next((e for e in library.list_models() if e.name == name), None)
        if entry is not None and entry.learned_little and name != armed and not entry.problem:
            warn(f"{name}: {entry.learned_little} Click “Use {name} anyway” to use it all the same.")
            return gr.skip(), gr.skip(), gr.skip(), name, gr.Button(f"Use {name} anyway")

        def act(name):
            entry = library.find_model(name)
            service = self.services.get(entry.task)
            if entry.problem:
                raise StudioError(f"{name} cannot be used: {entry.problem}")
            service.switch(entry.path)
            library.choose(name)
            return f"The {entry.task} tabs now use {name}.", name
        return *self._act(name, act), None, gr.Button(USE)

    def rename(self, name: str | None, new_name: str):
        def act(name):
            old_path = library.find_model(name).path
            entry = library.rename(name, new_name or "")
            for service in self._serving(old_path):  # its tabs follow it to its new folder
                service.switch(entry.path)
            return f"Renamed {name} to {entry.name}.", entry.name
        return self._act(name, act)

    def delete(self, name: str | None, armed: str | None):
        """The first click on a model (`armed` is not it) asks to click again; the second deletes it."""
        in_use = {e.name for e in library.list_models() if self._serving(e.path)}
        if name and name != armed:
            try:
                library.deletable(name, in_use)
            except StudioError as error:
                warn(error)
                return *self.refreshed(name), None, gr.Button(DELETE)
            return gr.skip(), gr.skip(), gr.skip(), name, gr.Button(f"Delete {name}? Click again")

        def act(name):
            library.delete(name, in_use=in_use)
            return f"Deleted {name}.", None
        return *self._act(name, act), None, gr.Button(DELETE)

    def _serving(self, path) -> list[AppModel]:
        """The services whose tabs run the bundle at `path` now."""
        return [s for s in self.services.values() if s.bundle_path and s.bundle_path.resolve() == path.resolve()]

    def import_model(self, upload, typed: str, name: str, revision: str = ""):
        """Import the uploaded zip, or the folder, zip or model id typed (at `revision`); yields the progress as the
        status line, then the library with the new model chosen. Every error is a message on the page."""
        typed, name = os.path.expanduser((typed or "").strip()), (name or "").strip()
        revision = (revision or "").strip() or hub.MAIN
        path, named = upload_of(upload) if upload is not None else (None, None)
        source = path or typed
        skip = (gr.skip(),) * 3
        if not source:
            warn("Upload a release zip, or type a folder, zip or model id.")
            yield *skip, "⚠ Upload a release zip, or type a folder, zip or model id.", gr.skip()
            return
        messages, result = queue.Queue(), {}

        def work():
            try:
                target = library_target(named or source, name or None)
                result["path"] = import_pretrained(source, target, progress=messages.put, named=named,
                                                   revision=revision)
            except Exception as error:  # noqa: BLE001 - said on the page: a message, never a traceback
                result["error"] = error
            finally:
                if path is not None:
                    delete_upload(path)
                messages.put(None)

        threading.Thread(target=work, name="import-model", daemon=True).start()
        while (message := messages.get()) is not None:
            yield *skip, f"Importing {html.escape(str(named or source))}: {html.escape(str(message))}", gr.skip()
        error = result.get("error")
        if error is not None:
            said = error if isinstance(error, StudioError) else f"the import failed ({type(error).__name__}: {error})"
            warn(said)
            yield *skip, f"⚠ {html.escape(str(said))}", None
            return
        entry = library.read_entry(result["path"], result["path"].name)
        message = f"Imported {entry.name}: choose “{USE}” to make it the {entry.task} the app uses."
        inform(message)
        yield *self.refreshed(entry.name), html.escape(message), None

