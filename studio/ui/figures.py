"""Figures for the Explore tab: what the tutorials draw, for the current input and model."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure

_KOREAN_FONT = None


def korean_font_missing() -> str | None:
    """What to tell the user when no font with Hangul is installed (the pieces' labels show as boxes)."""
    if _korean_font():
        return None
    return ("No font with Hangul is installed here, so Korean labels show as boxes; install one (e.g. Debian's "
            "fonts-noto-cjk or fonts-nanum) and restart the app.")


def _korean_font() -> str | None:
    """A font with Hangul for tick labels (Noto CJK, Nanum, Malgun, AppleGothic...), if the system has one."""
    global _KOREAN_FONT
    if _KOREAN_FONT is None:
        _KOREAN_FONT = ""
        found = [path for path in font_manager.findSystemFonts() if any(
            k in path.lower() for k in ("notosanscjk", "noto sans cjk", "nanum", "malgun", "applegothic", "notosanskr"))]
        # the regular weight first: a bold face alone made matplotlib log "Failed to find font weight normal" per draw
        found.sort(key=lambda path: (any(w in path.lower() for w in ("bold", "black", "light", "thin", "medium")), path))
        if found:
            font_manager.fontManager.addfont(found[0])
            _KOREAN_FONT = font_manager.FontProperties(fname=found[0]).get_name()
    return _KOREAN_FONT or None


def new_figure(**options):
    """A figure outside pyplot's global registry: a long-running app must not keep every figure it drew."""
    font = _korean_font()
    if font:
        matplotlib.rcParams["font.family"] = [font, "DejaVu Sans"]
    else:  # said once on the page (korean_font_missing), not once per glyph in the server's log
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
    return Figure(**options)


MAX_HEAD_INCHES = 6.0  # one head's heat-map at the most
MAX_LABELS = 40  # pieces named along an axis at the most


def attention_figure(weights: np.ndarray, rows: list[str], columns: list[str], title: str):
    """weights [heads, len(rows), len(columns)] -> one heat-map per head, like the translator tutorial."""
    heads = weights.shape[0]
    cols = min(4, heads)
    grid_rows = int(np.ceil(heads / cols))
    longest = max(len(rows), len(columns))
    # a long input: a bounded picture with every k-th piece named (a figure 134 inches wide took 11 s to draw and
    # was unreadable once the page scaled it down)
    size = min(MAX_HEAD_INCHES, max(2.6, 0.28 * longest))
    step = max(1, int(np.ceil(longest / MAX_LABELS)))
    figure = new_figure(figsize=(cols * size + 1, grid_rows * size), layout="constrained")
    axes = figure.subplots(grid_rows, cols, squeeze=False)
    image = None
    for head in range(grid_rows * cols):
        axis = axes[head // cols][head % cols]
        if head >= heads:
            axis.axis("off")
            continue
        image = axis.imshow(weights[head], cmap="viridis", vmin=0, vmax=1, aspect="auto")
        axis.set_title(f"head {head + 1}", fontsize=9)
        axis.set_xticks(range(0, len(columns), step), columns[::step], rotation=90, fontsize=7)
        axis.set_yticks(range(0, len(rows), step), rows[::step], fontsize=7)
    figure.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="attention weight")
    figure.suptitle(title + (f" (one piece in {step} named)" if step > 1 else ""))
    return figure


def positional_figure(table: np.ndarray, shown: int = 50):
    figure = new_figure(figsize=(9, 3.6))
    axis = figure.subplots()
    image = axis.pcolormesh(table[:shown], cmap="RdBu", vmin=-1, vmax=1)
    axis.set_xlabel("depth (embedding dimension)")
    axis.set_ylabel("position")
    axis.set_title(f"Sinusoidal positional encoding ({min(shown, len(table))} positions x {table.shape[1]} dims)")
    figure.colorbar(image, ax=axis)
    figure.tight_layout()
    return figure


def schedule_figure(d_model: int, warmup: int, scale: float, trained_steps: int | None = None, steps: int = 200_000):
    from studio.train.schedule import transformer_lr  # deferred: that module imports Keras (TensorFlow)

    x = np.arange(1, steps + 1, max(1, steps // 2000))
    figure = new_figure(figsize=(9, 3.4))
    axis = figure.subplots()
    axis.plot(x, transformer_lr(x, d_model, warmup, scale))
    axis.axvline(warmup, color="gray", linestyle=":", label=f"warm-up ({warmup} steps)")
    if trained_steps:
        axis.axvline(trained_steps, color="#d62728", linestyle="--", label=f"this model stopped at step {trained_steps}")
    axis.set_xlabel("train step")
    axis.set_ylabel("learning rate")
    axis.set_title(f"lr = {scale:g} · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5), d_model={d_model}")
    axis.legend()
    figure.tight_layout()
    return figure
