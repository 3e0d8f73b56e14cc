"""The controls the Chat and Translate tabs share: the backend selector and the decoding settings.

Decoding settings reach handlers by name, never by position: an event lists its own inputs and then
`DecodingControls.listed()`; the handler takes those as `*settings`, and `named(settings)` turns them into
{keyword of `decode_options`: value}. No handler knows the controls' order.

`remember_settings` keeps a tab's backend and decoding settings in the browser, restored on reload."""

from __future__ import annotations

import math

import gradio as gr

from studio.app_model import AppModel

STRATEGIES = ["greedy", "beam", "sample"]
# the settings only sampling reads (beam size and length penalty stay enabled: the Translate tab's Alternatives
# searches with them whatever the strategy)
USED_BY = {"temperature": "sample", "top_k": "sample", "top_p": "sample", "seed": "sample"}


def backend_dropdown(service: AppModel, default: str, elem_id: str) -> gr.Dropdown:
    choices = service.backends() or ["tf"]
    return gr.Dropdown(choices, value=default if default in choices else choices[0], label="Backend",
                       interactive=service.available, elem_id=elem_id)


class DecodingControls:
    """The decoding accordion of one tab; `components` maps `decode_options`' keywords to its components."""

    def __init__(self, tab: str, capacity: int = 64, defaults: dict | None = None):
        """`tab` prefixes the element ids: "chat" gives #chat-decoding, #chat-strategy, #chat-beam-size…;
        `capacity`: the most tokens the model can write, the Max new tokens slider's default (a lower default
        would cut long translations short; a higher value decodes as much); `defaults`: the task's default decoding (`studio.tasks`)."""
        defaults = defaults or {}
        self.components: dict[str, gr.components.Component] = {}
        strategy = defaults.get("strategy", "greedy")

        def control(name, component, *args, **kwargs):
            if name in USED_BY:  # a setting the chosen strategy ignores is shown disabled
                kwargs["interactive"] = USED_BY[name] == strategy
            self.components[name] = component(*args, elem_id=f"{tab}-{name.replace('_', '-')}", **kwargs)

        with gr.Accordion("Decoding", open=False, elem_id=f"{tab}-decoding"):
            control("strategy", gr.Radio, STRATEGIES, value=strategy, label="Strategy")
            with gr.Row():
                control("beam_size", gr.Slider, 1, 8, value=defaults.get("beam_size", 4), step=1, label="Beam size")
                control("length_penalty", gr.Slider, 0, 2, value=defaults.get("length_penalty", 1.0), step=0.1,
                        label="Length penalty")
            with gr.Row():
                control("temperature", gr.Slider, 0.1, 2.0, value=defaults.get("temperature", 1.0), step=0.05,
                        label="Temperature")
                control("top_k", gr.Slider, 0, 100, value=defaults.get("top_k", 0), step=1, label="Top-k (0 = off)")
                control("top_p", gr.Slider, 0.05, 1.0, value=defaults.get("top_p", 1.0), step=0.05, label="Top-p")
            with gr.Row():
                # a text box: Gradio's Number shows an empty value as 0 and sends 0, which gave one reply forever
                control("seed", gr.Textbox, value="", placeholder="random", max_lines=1, label="Seed (empty = random)")
                # up to 64 whatever the capacity: API clients that sent 64 (the old default) must keep working
                control("max_new_tokens", gr.Slider, 1, max(capacity, 64), value=capacity, step=1,
                        label="Max new tokens")
                control("no_repeat_ngram", gr.Slider, 0, 5, value=0, step=1, label="No-repeat n-gram (0 = off)")
        dependent = [self.components[name] for name in USED_BY]
        self.components["strategy"].change(
            lambda chosen: [gr.update(interactive=USED_BY[name] == chosen) for name in USED_BY],
            self.components["strategy"], dependent, queue=False, show_progress="hidden", api_visibility="private")

    def follow_capacity(self, app: gr.Blocks, tab: gr.Tab, capacity) -> None:
        """When the page loads and when `tab` is shown, fit Max new tokens to `capacity()`, the capacity of the
        model served now (the Models tab may have switched it): a slider left at the old model's whole capacity
        moves to the new one's, a lower choice is kept (within the new capacity)."""
        slider = self.components["max_new_tokens"]
        shown = gr.State(int(slider.value))  # the capacity the slider was last fitted to, per page

        def fit(value, old: int):
            new = capacity()
            if new == old:  # the same model's capacity: the user's choice (or a restored one) stays as it is
                return gr.skip(), gr.skip()
            chosen = new if value is None or value >= old else min(int(value), new)
            return gr.Slider(maximum=max(new, 64), value=chosen), new

        for event in (app.load, tab.select):
            event(fit, [slider, shown], [slider, shown], queue=False, show_progress="hidden",
                  api_visibility="private")

    def listed(self) -> list:
        """The controls, to follow an event's own inputs (see the module's docstring)."""
        return list(self.components.values())

    def named(self, values) -> dict:
        """{keyword of `decode_options`: value} out of the values of `listed()`, in that order."""
        return dict(zip(self.components, values))


# a tab's settings are saved under a version: a new one forgets what earlier ones saved (for a default that changed
# and must reach everyone). chat 2, translate 3: the sampling defaults (studio.tasks); translate 2: Max new tokens'
# default rose from 64 to the model's capacity, and every saved 64 cut news short
SETTINGS_VERSIONS = {"chat": 2, "translate": 3}


def settings_name(tab: str) -> str:
    """The browser_state name a tab's settings are saved under."""
    version = SETTINGS_VERSIONS.get(tab, 1)
    return f"{tab}-settings" + (f"-v{version}" if version > 1 else "")


def storage_key(name: str) -> str:
    """The localStorage key of `browser_state(name, …)`."""
    return f"transformer-studio-{name}"


def browser_state(name: str, default) -> gr.BrowserState:
    """Gradio's BrowserState (the browser's localStorage) under a fixed key and secret: Gradio's default, random
    ones per launch, would forget everything at each server restart. The secret only obfuscates (the page
    receives it); what is kept stays in this browser and comes to the server only with the events that use it."""
    return gr.BrowserState(default, storage_key=storage_key(name), secret="transformer-studio")


def remember_settings(app: gr.Blocks, tab: str, backend: gr.Dropdown, decoding: DecodingControls,
                      extra: dict | None = None) -> None:
    """Save the tab's backend, `extra` controls (by name) and decoding settings in the browser whenever the user
    changes one, and put them back when the page loads (a saved value that no longer fits its control is left
    out), under the tab's SETTINGS_VERSIONS."""
    saved = browser_state(settings_name(tab), {})
    controls = {"backend": backend, **(extra or {}), **decoding.components}
    enabled = {name: control.interactive is not False for name, control in controls.items()}
    for control in controls.values():  # until the saved values are back: one changed before would be put back
        control.interactive = False

    def save(*values) -> dict:
        return dict(zip(controls, values))

    def restore(values) -> list:
        return restored(controls, enabled, values)

    quiet = {"queue": False, "show_progress": "hidden", "api_visibility": "private"}
    for control in controls.values():
        # a text box's input event misses a value pasted or filled in without typing: its blur catches that
        # a slider is saved when let go (its release: the end of a drag, or its number box left), after a number
        # typed into its box is put in its range; not at each keystroke, which would clamp "0" of "0.5" at once
        events = ((control.input, control.blur) if isinstance(control, gr.Textbox) else
                  (control.release(None, control, control, js=_in_range(control), **quiet).then,)
                  if isinstance(control, gr.Slider) else (control.input,))
        for event in events:
            event(save, list(controls.values()), saved, trigger_mode="always_last", **quiet)
    app.load(restore, saved, list(controls.values()), show_progress="hidden", api_visibility="private")


def restored(controls: dict, enabled: dict, values) -> list:
    """Updates for `controls` that put back the saved `values` that still fit and enable each control, as it was
    built (`enabled`) or, for a setting only sampling reads, as the strategy shown would have it."""
    values = values if isinstance(values, dict) else {}
    kept = {name: values[name] for name, control in controls.items()
            if name in values and _fits(control, values[name])}
    strategy = kept.get("strategy", controls["strategy"].value)
    return [gr.update(**({"value": kept[name]} if name in kept else {}),
                      interactive=USED_BY[name] == strategy if name in USED_BY else enabled[name])
            for name in controls]


def _in_range(slider: gr.Slider) -> str:
    """JS that puts a typed value in the slider's range, on its steps (Gradio refuses 999 for a 1-64 slider
    with an error the page does not show, and the box kept showing 999)."""
    low, high, step = slider.minimum, slider.maximum, slider.step or 1
    # the range's maximum as the page has it now (Max new tokens follows the model served: `follow_capacity`)
    current = (f"const r = document.querySelector('#{slider.elem_id} input[type=range]'); "
               f"const high = r && Number.isFinite(Number(r.max)) ? Number(r.max) : {high}; ") if slider.elem_id \
        else f"const high = {high}; "
    return (f"(v) => {{ {current}const n = Number(v); "
            f"if (v === null || v === '' || !Number.isFinite(n)) return {slider.value}; "
            f"const s = Math.round((Math.min(Math.max(n, {low}), high) - {low}) / {step}) * {step} + {low}; "
            f"return Math.min(Number(s.toFixed(6)), high); }}")


def _fits(control, value) -> bool:
    if isinstance(control, (gr.Radio, gr.Dropdown)):
        return value in [choice[1] if isinstance(choice, tuple) else choice for choice in control.choices]
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if isinstance(control, gr.Slider):
        return number and control.minimum <= value <= control.maximum
    return isinstance(value, str) and len(value) <= 20  # the seed's text box (a number saved by the old one: not)
