"""The Compare tab: one input through every backend, greedy decoding, with each backend's latency."""

from __future__ import annotations

from functools import partial

import gradio as gr

from studio.latency.bench import latency_figure
from studio.tasks import CHATBOT, TASKS, TRANSLATOR
from studio.app_model import AppModel, InputError, service_for
from studio.ui.common import as_notice, user_error

COLUMNS = ["backend", "output", "first token ms", "ms/token", "tokens", "total ms", "same as TF"]


def compare_all(services: dict[str, AppModel], text: str, task: str):
    """Returns (TF output, summary, rows as COLUMNS, latency figure or None)."""
    service = service_for(services, task)
    try:
        service.check_text(text)
    except InputError as error:
        raise user_error(error) from None
    rows, bars, outputs, latency = [], [], {}, None
    for backend in service.backends():
        try:
            output, latency, _ = list(service.generator(backend).stream(text, partial=False))[-1]
        except Exception as error:  # noqa: BLE001 - one broken backend must not hide the others
            rows.append([backend, f"unavailable: {error}", None, None, None, None, ""])
            continue
        outputs[backend] = output
        rows.append([backend, output, round(latency.first_token_ms, 2), round(latency.ms_per_token, 2),
                     latency.tokens, round(latency.total_ms, 1), ""])
        bars.append({"runtime": backend, "ms_per_token_p50": latency.ms_per_token,
                     "first_token_ms_p50": latency.first_token_ms, "total_ms_p50": latency.total_ms})
    reference = outputs.get("tf")
    for row in rows:
        if row[0] in outputs:
            row[-1] = "yes" if outputs[row[0]] == reference else "no"
    agree = sum(1 for o in outputs.values() if o == reference)
    naive = next((r for r in rows if r[0] == "tf-naive" and r[5]), None)
    fastest = min((r for r in rows if r[5]), key=lambda r: r[5], default=None)
    summary = f"**{agree} of {len(outputs)} backends** give the TF output."
    if naive and fastest and fastest[0] != "tf-naive":
        summary += (f" Fastest: **{fastest[0]}**, {naive[5] / fastest[5]:.1f}× faster end to end than the "
                    "naive TF loop on this input.")
    figure = None
    if bars:
        figure = latency_figure(bars, f"{task}: {latency.tokens if outputs else 0} tokens, one run each")
    return reference or "", summary, rows, figure


def compare_view(services: dict[str, AppModel], text: str, task: str):
    """What the tab shows: (summary, rows, figure)."""
    return compare_all(services, text, task)[1:]


def compare_api(services: dict[str, AppModel]):
    """The `/compare` endpoint (a closure: its signature is the API's)."""

    def compare(text: str, task: str = "chatbot") -> tuple[str, str, list]:
        """Run `text` through every backend. Returns (TF output, summary, rows: backend, output,
        first-token ms, ms/token, tokens, total ms, same as TF)."""
        reference, summary, rows, _ = compare_all(services, text, task)
        return reference, summary, rows

    return compare


def compare_tab(services: dict[str, AppModel]) -> None:
    gr.Markdown("One input through every backend, greedy decoding. The naive TF loop re-runs the whole "
                "model for every token (as the tutorials do); the others decode with a key/value cache. Each runs "
                "the model alone, without the Translate tab's sentence splitting and term protection, so a "
                "translation here can differ from that tab's.")
    with gr.Row():
        task = gr.Radio(["chatbot", "translator"], value="chatbot", label="Model", scale=1)
        text = gr.Textbox(value=example_for("chatbot", ""), label="Input", scale=4, elem_id="compare-input")
    button = gr.Button("Run on every backend", variant="primary", elem_id="compare-button")
    summary = gr.Markdown(elem_id="compare-summary")
    # the output wraps in its share of the width; the figures keep theirs (at 1280 px the last two were cut off)
    table = gr.Dataframe(headers=COLUMNS, interactive=False, elem_id="compare-table", wrap=True,
                         column_widths=["13%", "39%", "9%", "9%", "7%", "10%", "13%"])
    plot = gr.Plot(label="Latency (log scale; lower is better)", elem_id="compare-plot")
    button.click(as_notice(partial(compare_view, services), ("", None, None)), [text, task], [summary, table, plot],
                 api_visibility="private")
    task.change(example_for, [task, text], text, queue=False, show_progress="hidden", api_visibility="private")


def example_for(task: str, current: str) -> str:
    """The input when the Model changes: the other model's example gives way to this one's; typed text stays."""
    if current.strip() and current not in CHATBOT.prompts + TRANSLATOR.prompts:
        return current
    return ((TASKS.get(task) if isinstance(task, str) else None) or TRANSLATOR).example
