"""The Explore tab: inside the model for one input (attention of every head), plus its other figures."""

from __future__ import annotations

import html
from functools import partial

import gradio as gr
import numpy as np

from studio.app_model import AppModel, InputError, service_for
from studio.ui.common import as_notice, inform, user_error, warn
from studio.ui.compare import example_for
from studio.ui.figures import attention_figure, korean_font_missing, positional_figure, schedule_figure


def explore(services: dict[str, AppModel], text: str, task: str, layer):
    """Attention maps of the TF model on `text` and its greedy output, plus the model's other figures.
    Returns (summary, encoder, decoder and cross attention, positional encoding, lr schedule, config, the layer
    shown)."""
    service = service_for(services, task)
    try:
        service.check_text(text)
        generator = service.generator("tf")
    except InputError as error:
        raise user_error(error) from None
    config = service.bundle.config
    asked = int(layer if layer is not None else 1)
    layer = min(max(asked, 1), config.model.num_layers) - 1
    clamped = (f"Layer {asked} was asked: the {service.task} has layers 1 to {config.model.num_layers}, so layer "
               f"{layer + 1} is shown." if asked != layer + 1 else "")
    if clamped:
        warn(clamped)
    source, _ = generator.preprocessor.encode(text)
    output = generator.generate([text])[0]
    target_in = [config.model.bos_id] + output.ids[: config.model.max_target_len - 1]
    model = generator.runtime.model
    maps = model.attention_maps(np.array([source], np.int32), np.array([target_in], np.int32))
    source_pieces = [generator.tokenizers.source.id_to_piece(i) for i in source]
    target_pieces = [generator.tokenizers.target.id_to_piece(i) for i in target_in]
    if layer >= config.model.decoder_depth:
        inform(f"The decoder has {config.model.decoder_depth} layers: its attention is shown for layer "
               f"{config.model.decoder_depth}, the encoder's for layer {layer + 1}.")
    figures = []
    for name, rows, cols, title in (("encoder_self", source_pieces, source_pieces, "Encoder self-attention"),
                                    ("decoder_self", target_pieces, target_pieces, "Decoder self-attention"),
                                    ("decoder_cross", target_pieces, source_pieces, "Encoder-decoder attention")):
        shown = min(layer, len(maps[name]) - 1)  # a deep encoder may have more layers than the decoder
        figures.append(attention_figure(np.asarray(maps[name][shown])[0], rows, cols, f"{title}, layer {shown + 1}"))
    members = (f" · an ensemble of {config.model.members} models of this shape (the attention shown is the first's)"
               if config.model.members > 1 else "")
    summary = (f"**Output:** {html.escape(output.text)}  \n**Parameters:** {model.parameter_count():,} · "
               f"{config.model.num_layers} encoder / {config.model.decoder_depth} decoder layers · "
               f"d_model {config.model.d_model} · {config.model.num_heads} heads · {config.model.norm}-LN · "
               f"source pieces: {len(source_pieces)} · target pieces: {len(target_pieces)}{members}")
    if clamped:  # said in the page too: a notice fades, and the layer field changing is easy to miss
        summary = f"⚠ *{clamped}*  \n" + summary
    if korean_font_missing():
        summary += f"  \n*{korean_font_missing()}*"
    first_member = (service.bundle.metrics.get("ensemble_members") or [{}])[0]
    steps = service.bundle.metrics.get("steps") or first_member.get("steps")  # an ensemble's: its first member's
    schedule = schedule_figure(config.model.d_model, config.train.warmup_steps, config.train.lr_scale, steps)
    shown_config = config.to_dict()  # the decoder's depth as built (0 in the file means "as the encoder")
    shown_config["model"]["num_decoder_layers"] = config.model.decoder_depth
    return (summary, *figures, positional_figure(model.positional_table), schedule, shown_config, layer + 1)


def explore_tab(services: dict[str, AppModel]) -> None:
    gr.Markdown("Look inside the model for an input: attention of every head in the layer you choose (encoder "
                "self-attention, decoder self-attention, encoder-decoder attention), the positional "
                "encoding, the learning-rate schedule and the configuration. The output is the model's alone "
                "(TF, greedy), without the Translate tab's sentence splitting and term protection, so it can differ "
                "from that tab's.")
    with gr.Row():
        task = gr.Radio(["chatbot", "translator"], value="chatbot", label="Model", scale=1)
        text = gr.Textbox(value=example_for("chatbot", ""), label="Input", scale=3, elem_id="explore-input")
        # no minimum: Gradio would refuse 0 with its own error; `explore` shows the nearest layer and says so
        layer = gr.Number(value=1, precision=0, label="Layer", scale=1)
    button = gr.Button("Show attention", variant="primary", elem_id="explore-button")
    summary = gr.Markdown(elem_id="explore-output")
    # no label chips: each figure has its title, which a chip would cover
    plots = [gr.Plot(label=title, show_label=False) for title in
             ("Encoder self-attention", "Decoder self-attention", "Encoder-decoder attention")]
    with gr.Accordion("Positional encoding, learning-rate schedule, configuration", open=False):
        positional = gr.Plot(label="Positional encoding")
        schedule = gr.Plot(label="Learning-rate schedule")
        config = gr.JSON(label="Configuration")
    outputs = [summary, *plots, positional, schedule, config, layer]  # the layer shown, when another was asked
    cleared = ("", *[None] * (len(outputs) - 2), gr.skip())
    button.click(as_notice(partial(explore, services), cleared), [text, task, layer], outputs, api_visibility="private")
    task.change(example_for, [task, text], text, queue=False, show_progress="hidden", api_visibility="private")
