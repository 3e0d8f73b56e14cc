"""The Train tab: train a chatbot or a translator from scratch, or fine-tune one, on the user's own data, and watch
it learn. The data is read by `studio.data.imports` (CSV, TSV, .ko + .en, TMX; a preview before training), the run
is a `studio.train.jobs` job (`train_task` in a process of its own, one at a time), and this tab only starts,
stops and resumes jobs and draws what their events say: step, epoch, tokens per second, elapsed and remaining
time, the loss and dev-loss curves, the dev chrF curve, sample outputs, and at the end the new model against
its base."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path

import gradio as gr
import pandas as pd

from studio import library, paths
from studio.config import FINE_TUNE_FILTER, FINE_TUNE_RATE, FINE_TUNE_REHEARSAL, preset_config
from studio.data.imports import ColumnsNeeded, SidesSwapped, formats_text, read_training_upload, upload_suffixes
from studio.data.sources import CHATBOT_URL, chatbot_csv, download_chatbot_data
from studio.errors import DataError, StudioError
from studio.tasks import TASKS
from studio.train import jobs
from studio.app_model import AppModel
from studio.ui.common import inform, upload_of, warn

SCRATCH, FINE_TUNE = "From scratch", "Fine-tune a model"
PRESETS = {"small (~10 min)": "{task}-small", "full (hours)": "{task}"}
LOSS_COLORS = {"training loss": "#3b82f6", "dev loss": "#f97316"}  # both in the legend from the first point
CHRF_PAIRS = 64  # dev pairs scored after each epoch for the chrF curve
ADVANCED = {"model.d_model": "d_model", "model.num_layers": "encoder layers", "model.num_heads": "attention heads",
            "model.d_ff": "feed-forward size", "model.dropout": "dropout", "tokenizer.vocab_size": "vocabulary size"}


def fine_tunable(task: str) -> list[str]:
    """The models of `task` a fine-tune can start from: one model each (an ensemble, like the shipped chatbot,
    is several)."""
    return [e.name for e in library.list_models() if e.task == task and not e.problem and e.members == 1]


def first(names: list[str]) -> str | None:
    return names[0] if names else None


def chooser(columns: list[str], chosen: str | None):
    """A column list of the file just read: the column chosen kept, one of another file's cleared, and none
    chosen left as it is on the page (the user may have chosen one since this reading was asked for)."""
    if chosen is None:
        return gr.Dropdown(choices=columns, visible=True)
    return gr.Dropdown(choices=columns, value=chosen if chosen in columns else None, visible=True)


def read_data(task: str, files, use_shared: bool, question_column, answer_column, swap: bool):
    """(pairs, report markdown) of the upload, or of the shared ChatbotData for `use_shared`."""
    if use_shared:
        if not TASKS[task].shared_data:
            raise StudioError(f"the shared data is ChatbotData, a chatbot's: upload the {task}'s pairs")
        imported = read_training_upload([chatbot_csv(None)], task)
        return imported.pairs, imported.report.as_markdown()
    if not files:
        raise StudioError("upload training data first (CSV, TSV, .ko and .en, or TMX), or use the shared data")
    paths = [upload_of(f)[0] for f in files]
    columns = (question_column, answer_column) if question_column and answer_column else None
    try:
        imported = read_training_upload(paths, task, columns=columns, swap=swap)
    except DataError as error:
        error.args = (with_names(str(error), files),)  # the same error (a chooser reads its columns), named
        raise
    return imported.pairs, with_names(imported.report.as_markdown(), files)


def chatbot_data_here() -> bool:
    try:
        chatbot_csv(None)
        return True
    except DataError:
        return False


def with_names(text: str, files) -> str:
    """`text` with Gradio's copies of the uploads (in folders of their own) called by the user's file names."""
    for file in files or []:
        temp, original = upload_of(file)
        text = text.replace(str(temp), original)
    return text


def read_dev_data(task: str, files, question_column, answer_column, swap: bool) -> list | None:
    """The uploaded dev pairs (read like the training data), or None when none were uploaded."""
    if not files:
        return None
    columns = (question_column, answer_column) if question_column and answer_column else None
    try:
        return read_training_upload([upload_of(f)[0] for f in files], task, columns=columns, swap=swap,
                                    min_pairs=1).pairs
    except (DataError, StudioError) as error:
        raise StudioError(f"the dev file: {with_names(str(error), files)}") from None


def overrides_for(mode: str, minutes, epochs, lr_scale, batch_size, advanced: dict, filter_share=None,
                  rehearsal: bool | None = None) -> dict:
    settings = {"train.chrf_pairs": str(CHRF_PAIRS)}
    if minutes:
        settings["train.max_minutes"] = str(float(minutes))
    if epochs:
        settings["train.epochs"] = str(int(epochs))
    if batch_size:
        settings["train.batch_size"] = str(int(batch_size))
    if mode == FINE_TUNE:
        settings["train.lr_scale"] = str(float(lr_scale))
        if filter_share is not None:
            settings["train.filter_share"] = str(float(filter_share))
        if rehearsal is not None:
            settings["train.rehearsal"] = str(FINE_TUNE_REHEARSAL if rehearsal else 0.0)
    else:  # an empty field keeps the preset's value (its placeholder), and so does a 0 where 0 is no value (a
        # dropout of 0 is one: no dropout)
        for key, value in advanced.items():
            text = str(value if value is not None else "").strip()
            if text and not (text in ("0", "0.0") and key != "model.dropout"):
                settings[key] = text
    return settings


def preset_placeholders(task: str, preset: str) -> list[str]:
    """`preset`'s own value of each Advanced field: what the field means while it is empty or 0."""
    config = preset_config(task, PRESETS[preset].format(task=task))
    values = [getattr(getattr(config, key.split(".")[0]), key.split(".")[1]) for key in ADVANCED]
    return [f"{value:g} (the preset's)" for value in values]


def preset_shape(task: str, preset: str) -> list:
    """The Advanced fields emptied, showing `preset`'s values."""
    return [gr.Textbox(value="", placeholder=text) for text in preset_placeholders(task, preset)]


def job_status(job: jobs.Job | None, state: dict | None = None) -> tuple[str, pd.DataFrame | None,
                                                                         pd.DataFrame | None, pd.DataFrame, str]:
    """(status markdown, loss curve, chrF curve, samples, comparison markdown) of `job` (in `state`, when read)."""
    if job is None:
        return "No training yet.", loss_curve([]), chrf_curve([]), pd.DataFrame(), ""
    events, state = job.events(), state or job.state()
    return (status_text(job, state, events), loss_curve(events), chrf_curve(events), sample_rows(events),
            comparison_text(job, state))


def follow(job: jobs.Job | None, state: dict | None = None) -> tuple:
    """`job_status` and the Stop and Resume buttons, each usable only when it applies (in `state`, when read)."""
    state = state or (job.state() if job else {"state": None})  # read once: the buttons agree with the status
    running = state["state"] in ("starting", "running")  # Stop is red only when it can stop something
    return (*job_status(job, state), gr.Button(interactive=running, variant="stop" if running else "secondary"),
            gr.Button(interactive=state["state"] == "stopped"))


def follow_changes(job: jobs.Job | None, shown_as: tuple | None) -> tuple:
    """The 2-second tick: `follow` and what the page then shows (`revision`), or, when that is what the page shows
    already (`shown_as`), nothing new (a finished run of 7,000 events cost 78-115 ms of CPU a tick to read and draw
    again, beside a training on the same cores, and the browser redrew its curves)."""
    state = job.state() if job else None
    now = revision(job, state)
    if now == shown_as:
        return (*[gr.skip()] * 7, shown_as)
    return (*follow(job, state), now)


def revision(job: jobs.Job | None, state: dict | None) -> tuple:
    """What the tab's status, curves and table are made from: the job, its `state`, how much of its events and
    comparison is written, and whether its model is still in the library under its name."""
    if job is None:
        return ("no job",)
    written = tuple(_size(job.folder / name) for name in ("events.jsonl", "comparison.json"))
    return (str(job.folder), json.dumps(state, sort_keys=True, default=str), *written, landed(job, state)[1])


def landed(job: jobs.Job, state: dict) -> tuple[str, bool]:
    """(the name the job's model was put in the library under, whether it is still there)."""
    model = state.get("model") or job.spec.name
    return model, (library.models_dir() / model).is_dir()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # not written yet
        return -1


def status_text(job: jobs.Job, state: dict, events: list[dict]) -> str:
    spec = job.spec
    what = f"fine-tuning {html.escape(Path(spec.init_from).name)}" if spec.fine_tunes else "from scratch"
    lines = [f"**{html.escape(spec.name)}** ({spec.task}, {what}): **{state['state']}**"]
    running = state["state"] in ("starting", "running")
    latest = next((e for e in reversed(events) if e["kind"] in ("step", "compiling")), None)
    compiling = latest is not None and latest["kind"] == "compiling"
    if state["state"] == "stopping":
        lines.append("stopping after this step" + (" (it is compiling: up to a minute on a small computer)"
                                                   if compiling else "")
                     + ": a checkpoint is saved, then Resume goes on from it")
    elif state.get("reason") and state["state"] in ("stopped", "failed"):
        lines.append(html.escape(str(state["reason"])))
    steps = [e for e in events if e["kind"] == "step"]
    if steps:
        last = steps[-1]
        steps_per_second, tokens_per_second = pace(steps)
        lines.append(f"step {last['step']:,} · epoch {last['epoch']} of {last['epochs']} (batch {last['batch']} of "
                     f"{last['batches']}) · {steps_per_second:.1f} steps/s · {tokens_per_second:,.0f} target tokens/s "
                     f"(the last {PACE_STEPS} steps) · "
                     f"loss {last['losses']['loss']:.3f}")
        lines.append(f"trained {minutes(last['seconds'])}"
                     + (remaining(job, last, events, steps_per_second) if running else ""))
    if running and compiling:
        lines.append(html.escape(latest["text"]) + ".")
    # progress notes while it runs (a finished job's outcome is in the table below); warnings always
    messages = [e["text"] for e in events if e["kind"] == "warning" or (running and e["kind"] == "info")]
    if messages:
        lines.append("Last message: " + html.escape(messages[-1]))
    return "\n\n".join(lines)


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


PACE_STEPS = 50  # the recent steps that the speeds are measured over


def pace(steps: list[dict]) -> tuple[float, float]:
    """(steps, target tokens) per second of training over the last PACE_STEPS steps, both over the same
    training seconds (the pauses for evaluation left out); the last step's own rate before two are known."""
    start, last = steps[max(0, len(steps) - PACE_STEPS)], steps[-1]
    seconds = last["seconds"] - start["seconds"]
    if seconds <= 0:
        rate = last.get("rate") or 0.0
        return rate, (last["tokens"] / last["seconds"] if last.get("seconds") else 0.0)
    return (last["step"] - start["step"]) / seconds, (last["tokens"] - start["tokens"]) / seconds


def remaining(job: jobs.Job, last: dict, events: list[dict], steps_per_second: float) -> str:
    """The time left: to the last epoch at the pace of the epochs so far (their evaluations included) or, before
    two have ended, of the recent steps; or to the minutes budget when that comes first."""
    budget = float(job.spec.overrides.get("train.max_minutes") or 0) * 60
    steps_left = (last["epochs"] - last["epoch"]) * last["batches"] + last["batches"] - last["batch"]
    ends = [e["time"] for e in events if e["kind"] == "epoch" and "time" in e]
    gaps = sorted(b - a for a, b in zip(ends, ends[1:]))
    if gaps:  # the median epoch: a resume's gap between two epochs does not count
        estimates = [steps_left / last["batches"] * gaps[len(gaps) // 2]]
    else:
        estimates = [steps_left / steps_per_second] if steps_per_second else []
    if budget:
        estimates.append(budget - last["seconds"])
    return f" · about {minutes(max(min(estimates), 0))} left" if estimates else ""


def loss_curve(events: list[dict], points: int = 300, smoothing: float = 0.95) -> pd.DataFrame | None:
    """The training loss (each step's, exponentially smoothed as TensorBoard does) and the dev loss after each
    epoch, at most `points` points of the first."""
    steps = [e for e in events if e["kind"] == "step"]
    smoothed, value = [], None
    for e in steps:
        loss = e["losses"].get("step_loss", e["losses"]["loss"])
        value = loss if value is None else smoothing * value + (1 - smoothing) * loss
        smoothed.append((e["step"], value))
    every = max(1, len(smoothed) // points)
    rows = [(step, value, "training loss") for step, value in smoothed[::every]]
    dev = [(e["step"], e["losses"]["dev_loss"], "dev loss") for e in events
           if e["kind"] == "epoch" and "dev_loss" in e.get("losses", {})]
    # before the first epoch ends, a dev-loss point with no value: a curve the plot's first frame lacks is never
    # drawn by the frames that follow (Gradio 6.31 in Chromium: it stayed blank, with no legend, until a reload)
    rows += dev or ([(rows[0][0], math.nan, "dev loss")] if rows else [])
    return _typed(rows, {"step": "int64", "value": "float64", "curve": "string"})


def chrf_curve(events: list[dict]) -> pd.DataFrame | None:
    points = [(e["epoch"], e["losses"]["dev_chrf"]) for e in events
              if e["kind"] == "samples" and "dev_chrf" in e.get("losses", {})]
    return _typed(points, {"epoch": "int64", "chrF": "float64"})


def _typed(rows: list[tuple], dtypes: dict[str, str]) -> pd.DataFrame | None:
    """The plot's frame with its column types fixed (the plot reads a column's kind from its dtype), or None when
    there is nothing to draw: a LinePlot first drawn from an empty frame drew axes but never the lines of the
    frames that followed (Gradio 6.31, in Chromium), so a new run's curves stayed blank until a reload."""
    return pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes) if rows else None


def sample_rows(events: list[dict], epochs: int = 3) -> pd.DataFrame:
    """The sample outputs of the last few epochs, newest first."""
    samples = [e for e in events if e["kind"] == "samples"][-epochs:][::-1]
    return pd.DataFrame([(e["epoch"], source, output) for e in samples for source, output in e["samples"].items()],
                        columns=["epoch", "input", "output"])


def comparison_text(job: jobs.Job, state: dict) -> str:
    result = job.comparison() if state["state"] == "finished" else None
    if not result:
        return ""
    model, listed = landed(job, state)
    where = ("is in your models** (Models tab)" if listed
             else "was put in your models** (since renamed or deleted there)")
    lines = [f"**{html.escape(model)} {where}. On "
             f"{result['pairs']} pairs spread over its dev split ({result.get('decoding', 'greedy')}):", "",
             "| model | chrF | BLEU |", "|---|---|---|"]
    entry = next((e for e in library.list_models() if e.name == model and not e.shipped), None) if listed else None
    if entry is not None and entry.learned_little:
        lines[:0] = [f"⚠ **{html.escape(entry.learned_little)}** The Models tab asks before it replaces a tab's "
                     "model.", ""]
    if result.get("kept_starting_model"):
        lines[:0] = ["**No fine-tuned weights did better on your dev pairs than the model it started from**, so "
                     "the new model keeps that model's weights. More pairs, cleaner pairs, or a lower learning "
                     "rate may help.", ""]
    for label, m in result["models"].items():
        name = "before (the base model)" if label == "base" else "after (the new model)"
        lines.append(f"| {name} | {m['chrf']:.2f} | {m['bleu']:.2f} |")
    if entry is not None and entry.scores:  # the figure the Models tab shows, by its own label
        split, by_decoding = next(iter(entry.scores.items()))
        decoding, figure = next(iter(by_decoding.items()))
        lines += ["", f"On {html.escape(split)} ({html.escape(decoding)}), as the Models tab shows it: "
                      f"{library.score_text(figure)}."]
    if result.get("weights"):  # which weights the run kept, and by what (they can differ from the curve's last)
        lines += ["", f"The new model's weights: {html.escape(result['weights'])}."]
    columns = [k for k in ("source", "reference", "base", "new") if result["samples"] and k in result["samples"][0]]
    lines += ["", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in result["samples"]:
        lines.append("| " + " | ".join(html.escape(str(row[k])).replace("|", "\\|") for k in columns) + " |")
    return "\n".join(lines)


def current_job() -> jobs.Job | None:
    """The running job, else the newest one: what the tab shows after a reload or a restart."""
    return jobs.running_job() or next(iter(jobs.list_jobs()), None)


class TrainTab:
    def __init__(self, services: dict[str, AppModel]):
        self.services = services
        gr.Markdown("Train a model on your own data, or fine-tune one, and watch it learn. Your data stays on this "
                    "computer. The training runs in the background, one at a time: you can close the page and "
                    "come back; Stop saves a checkpoint and Resume goes on from it. The new model lands in the "
                    "Models tab.")
        with gr.Row():
            self.task = gr.Radio(list(TASKS), value="chatbot", label="Task", elem_id="train-task")
            self.mode = gr.Radio([SCRATCH, FINE_TUNE], value=SCRATCH, label="Start", elem_id="train-mode")
            self.preset = gr.Dropdown(list(PRESETS), value=next(iter(PRESETS)), label="Size (from scratch)")
            self.base = gr.Dropdown(fine_tunable("chatbot"), value=first(fine_tunable("chatbot")),
                                    label="Model to fine-tune", visible=False, info=TASKS["chatbot"].fine_tune_base)
        preview = self._data_inputs()
        self._settings()
        buttons = self._progress()
        self._wire(preview, *buttons)

    def _data_inputs(self) -> gr.Button:
        """The uploads, the ChatbotData choice, the column choosers and the data's report; the Preview button."""
        with gr.Row():
            # short labels (a long one covers the upload area on a narrow page); what they take is said below
            self.files = gr.File(file_count="multiple", label="Training data", elem_id="train-files",
                                 file_types=upload_suffixes())
            self.dev_files = gr.File(file_count="multiple", label="Dev pairs (optional)", elem_id="train-dev-files",
                                     file_types=upload_suffixes())
            with gr.Column():
                self.shared = gr.Checkbox(label="Use ChatbotData (the chatbot tutorials' data: 11,823 pairs, MIT)")
                self.fetch = gr.Button("Download ChatbotData (0.9 MB)", visible=False, size="sm",
                                       elem_id="train-fetch")
                self.question = gr.Dropdown([], label="Question / Korean column", visible=False,
                                            elem_id="train-question")
                self.answer = gr.Dropdown([], label="Answer / English column", visible=False, elem_id="train-answer")
                self.swap = gr.Checkbox(label="The columns are the other way round", visible=False)
                preview = gr.Button("Preview the data", elem_id="train-preview")
        gr.Markdown(f"<small>Training data: a chatbot's is {formats_text('chatbot')} of questions and answers; a "
                    f"translator's {formats_text('translator')} of Korean and English. Dev pairs, in the same format, "
                    "are what the run scores and stops on; without them it holds out a share of the data.</small>",
                    elem_id="train-formats")
        self.report = gr.Markdown(elem_id="train-report")
        return preview

    def _settings(self) -> None:
        """The new model's name, the run's budget, the fine-tune's settings and the model's shape."""
        with gr.Row():
            self.name = gr.Textbox(label="Name of the new model", value=lambda: library.unique_name("my chatbot"),
                                   max_lines=1, elem_id="train-name")
            self.minutes = gr.Number(label="Minutes (0: the preset's)", value=0, minimum=0, precision=1)
            self.epochs = gr.Number(label="Epochs (0: the preset's)", value=0, minimum=0, precision=0)
            self.lr_scale = gr.Slider(0.1, 4.0, value=1.0, step=0.1, label="Learning-rate scale (fine-tuning)",
                                      info=f"× {FINE_TUNE_RATE:g}, flat after a short warm-up", visible=False)
            self.batch = gr.Number(label="Batch size (0: the preset's)", value=0, minimum=0, precision=0)
            self.filter = gr.Slider(0, 0.5, value=FINE_TUNE_FILTER, step=0.05, elem_id="train-filter", visible=False,
                                    label="Leave out the least likely pairs (fine-tuning)",
                                    info="the share the model finds least likely: most often misaligned pairs")
            self.rehearsal = gr.Checkbox(value=True, elem_id="train-rehearsal", visible=False,
                                         label="Mix in general pairs (fine-tuning)",
                                         info="as many pairs of the shipped models' own training data as yours, "
                                              "when this computer has it: the model keeps more of what it knew")
        with gr.Accordion("Advanced: the model's shape (from scratch)", open=False):
            shape = zip(ADVANCED.items(), preset_placeholders("chatbot", first(list(PRESETS))))
            with gr.Row():  # text boxes: a Number shows 0 when empty, hiding what the preset would use
                self.advanced = [gr.Textbox(label=label, value="", placeholder=placeholder, max_lines=1,
                                            elem_id=f"train-{key.split('.')[1].replace('_', '-')}")
                                 for (key, label), placeholder in shape]

    def _progress(self) -> tuple[gr.Button, gr.Button, gr.Button]:
        """Train, Stop and Resume, and what the run shows: status, curves, samples, the comparison."""
        with gr.Row():
            start = gr.Button("Train", variant="primary", elem_id="train-start")
            stop = gr.Button("Stop", elem_id="train-stop", interactive=False)
            resume = gr.Button("Resume", elem_id="train-resume", interactive=False)
        self.status = gr.Markdown(elem_id="train-status")
        with gr.Row():
            self.losses = gr.LinePlot(x="step", y="value", color="curve", label="Loss", elem_id="train-loss",
                                      color_map=LOSS_COLORS)
            self.chrf = gr.LinePlot(x="epoch", y="chrF", label="dev chrF", elem_id="train-chrf")
        self.samples = gr.Dataframe(headers=["epoch", "input", "output"], label="Sample outputs after each epoch",
                                    interactive=False, wrap=True, elem_id="train-samples")
        self.comparison = gr.Markdown(elem_id="train-comparison")
        return start, stop, resume

    def _wire(self, preview, start, stop, resume) -> None:
        """The tab's events: the tick that follows the job, the choices, the data's readings, the buttons."""
        shown = [self.status, self.losses, self.chrf, self.samples, self.comparison, stop, resume]
        private = {"api_visibility": "private"}  # page events, not an API: nothing here is for other programs
        timer, shown_as = gr.Timer(2.0), gr.State(None)  # what this page shows: a tick sends only a change
        timer.tick(lambda seen: follow_changes(current_job(), seen), shown_as, [*shown, shown_as],
                   show_progress="hidden", **private)
        self.task.change(self.task_changed, [self.task, self.mode], [self.base, self.name, self.shared, self.fetch],
                         **private)
        for choice in (self.task, self.preset):
            choice.change(preset_shape, [self.task, self.preset], self.advanced, **private)
        self.mode.change(self.mode_changed, self.mode, [self.base, self.preset, self.lr_scale, self.filter,
                                                        self.rehearsal], **private)
        previewed = [self.report, self.question, self.answer, self.swap, self.fetch]
        # one reading at a time, in the order asked: a reading of the first column chosen must not answer after
        # the reading of both
        reading = {"concurrency_id": "train-read", **private}
        preview.click(self.preview, self.inputs(), previewed, **reading)
        self.shared.input(self.preview, self.inputs(), previewed, **reading)
        self.fetch.click(self.fetch_chatbot_data, self.inputs(), previewed, **reading)
        self.files.upload(self.preview, self.inputs(), previewed, **reading)  # what was read, at once
        for column in (self.question, self.answer, self.swap):  # read again as the user chooses
            column.input(self.preview, self.inputs(), previewed, **reading)
        start.click(self.start, [*self.inputs(), self.dev_files, self.mode, self.preset, self.base, self.name,
                                 self.minutes, self.epochs, self.lr_scale, self.batch, self.filter, self.rehearsal,
                                 *self.advanced],
                    shown, **private)
        stop.click(self.stop, None, shown, **private)
        resume.click(self.resume, None, shown, **private)

    @property
    def listing(self) -> list:
        return [self.base]

    @property
    def shown_from(self) -> list:
        return [self.task]

    @staticmethod
    def shown(task: str):
        """The models a fine-tune can start from, as the library is now."""
        return gr.Dropdown(choices=fine_tunable(task))

    def inputs(self) -> list:
        return [self.task, self.files, self.shared, self.question, self.answer, self.swap]

    @staticmethod
    def task_changed(task: str, mode: str):
        return (gr.Dropdown(choices=fine_tunable(task), value=first(fine_tunable(task)), info=TASKS[task].fine_tune_base,
                            visible=mode == FINE_TUNE),
                library.unique_name(f"my {task}"), gr.Checkbox(value=False, visible=bool(TASKS[task].shared_data)),
                gr.Button(visible=False))

    @staticmethod
    def mode_changed(mode: str):
        """The fine-tune's settings show for a fine-tune only, the preset for a run from scratch only."""
        tunes = mode == FINE_TUNE
        return (gr.Dropdown(visible=tunes), gr.Dropdown(visible=not tunes), gr.Slider(visible=tunes),
                gr.Slider(visible=tunes), gr.Checkbox(visible=tunes))

    def preview(self, task, files, shared, question, answer, swap):
        hidden, no_fetch = gr.Dropdown(visible=False), gr.Button(visible=False)
        if shared and TASKS[task].shared_data and not chatbot_data_here():
            return (f"ChatbotData is not on this computer yet: **Download ChatbotData** fetches it from "
                    f"[songys/Chatbot_data]({CHATBOT_URL}) (0.9 MB, MIT licence) into `{paths.downloads_dir()}`.",
                    hidden, hidden, gr.Checkbox(visible=bool(swap)), gr.Button(visible=True))
        try:
            _, report = read_data(task, files, shared, question, answer, swap)
            return (report, gr.Dropdown(visible=bool(question)), gr.Dropdown(visible=bool(answer)), gr.Checkbox(),
                    no_fetch)
        except ColumnsNeeded as error:
            choices = error.columns
            return (html.escape(f"{error} in the two lists beside the upload."), chooser(choices, question),
                    chooser(choices, answer), gr.Checkbox(), no_fetch)
        except SidesSwapped as error:
            return (html.escape(f"{error}: tick “The columns are the other way round”."), hidden, hidden,
                    gr.Checkbox(visible=True), no_fetch)
        except (DataError, StudioError) as error:
            return html.escape(str(error)), hidden, hidden, gr.Checkbox(visible=bool(swap)), no_fetch

    def fetch_chatbot_data(self, task, files, shared, question, answer, swap, progress=gr.Progress()):
        """Download ChatbotData (with a progress bar), then preview it; a failed download says why and how to do
        without internet."""
        def report(done: int, total: int) -> None:
            progress(done / total if total else None, desc=f"Downloading ChatbotData: {done / 1024:,.0f} KB")

        try:
            download_chatbot_data(report)
        except DataError as error:
            warn(error)
            return (html.escape(f"The download failed: {error}"), gr.Dropdown(visible=False),
                    gr.Dropdown(visible=False), gr.Checkbox(visible=bool(swap)), gr.Button(visible=True))
        inform("ChatbotData is on this computer now.")
        return self.preview(task, files, True, question, answer, swap)

    def start(self, task, files, shared, question, answer, swap, dev_files, mode, preset, base, name, minutes_,
              epochs, lr_scale, batch, filter_share, rehearsal, *advanced):
        try:
            if mode == FINE_TUNE and not base:
                raise StudioError("choose the model to fine-tune (or train from scratch)")
            pairs, _ = read_data(task, files, shared, question, answer, swap)
            dev_pairs = read_dev_data(task, dev_files, question, answer, swap)
            settings = overrides_for(mode, minutes_, epochs, lr_scale, batch, dict(zip(ADVANCED, advanced)),
                                     filter_share, rehearsal)
            spec = jobs.JobSpec(task, library.check_name(name or ""),
                                preset=PRESETS[preset].format(task=task) if mode == SCRATCH else f"{task}-finetune",
                                init_from=str(library.find_model(base).path) if mode == FINE_TUNE else None,
                                overrides=settings)
            if any(e.name.lower() == spec.name.lower() for e in library.list_models()):
                raise StudioError(f"a model named {spec.name!r} exists already: choose another name")
            jobs.refuse_if_busy()
            data_name = "ChatbotData" if shared else Path(upload_of(files[0])[1]).stem + ("" if len(files) == 1
                                                                                         else f" and {len(files) - 1} more")
            jobs.start(jobs.create_job(spec, pairs, data_name, dev_pairs))
            inform(f"Training {spec.name}: it runs in the background; this tab follows it.")
        except (DataError, StudioError) as error:
            warn(error)
        return follow(current_job())

    def stop(self):
        job = jobs.running_job()
        try:
            if job is None:
                raise StudioError("no training is running")
            if jobs.stop(job):
                inform("Stopped at once: it had not trained a minute yet (it was still preparing or compiling). "
                       "Resume starts it again.")
            else:
                inform("Stopping after this step: a checkpoint is saved, and Resume goes on from it (a run past its "
                       "last step finishes instead). A step that is compiling can take a minute on 2 cores.")
        except StudioError as error:
            warn(error)
        return follow(current_job())

    def resume(self):
        job = current_job()
        try:
            if job is None or job.state()["state"] != "stopped":
                raise StudioError("there is no stopped training to resume"
                                  + (f" ({job.spec.name} is {job.state()['state']})" if job else ""))
            jobs.start(job, resume=True)
            inform(f"Resuming {job.spec.name} from its last checkpoint.")
        except StudioError as error:
            warn(error)
        return follow(current_job())
