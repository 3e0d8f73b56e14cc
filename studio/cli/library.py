"""`studio models`: the model library in the terminal (the Models tab shows the same)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from studio import library
from studio.cli.common import app, console


@app.command()
def models(use: Optional[str] = typer.Option(None, "--use", help="Make this model the one its task uses "
                                                                   "(chat, translate, the app's tabs)"),
           rename: Optional[tuple[str, str]] = typer.Option(None, "--rename", help="Rename a model you made: "
                                                                                     "--rename OLD NEW"),
           delete: Optional[str] = typer.Option(None, "--delete", help="Delete a model you made (not a shipped "
                                                                        "one, not the one its task uses)"),
           show: Optional[str] = typer.Option(None, "--show", help="Print a model's card")):
    """List every model: the shipped chatbot and translator and the ones you trained (kept in your user data
    folder), with which one each task uses."""
    if use:
        entry = library.choose(use)
        console.print(f"The {entry.task} now uses {entry.name} ({entry.path})", highlight=False)
    if rename:
        entry = library.rename(*rename)
        console.print(f"Renamed {rename[0]} to {entry.name}", highlight=False)
    if delete:
        library.delete(delete)
        console.print(f"Deleted {delete}", highlight=False)
    if show:
        Console().print(Markdown(library.find_model(show).card))
        return
    print_library(library.list_models())


def print_library(entries: list[library.ModelEntry]) -> None:
    chosen = {task: library.chosen_name(task) for task in {e.task for e in entries}}
    table = Table(title=f"Models (yours are in {library.models_dir()})")
    for column in ("", "name", "task", "MB", "parameters", "trained on", "dev score"):
        table.add_column(column)
    for e in entries:
        mark = "▶" if chosen.get(e.task) == e.name else ""
        origin = "shipped" if e.shipped else (e.data or "?")
        if e.train_pairs:
            origin += f" ({e.train_pairs:,} pairs)"
        score = f"[red]{e.problem}[/red]" if e.problem else e.headline_score()
        table.add_row(mark, e.name, e.task, f"{e.bytes / 2**20:.1f}", f"{e.parameters:,}" if e.parameters else "",
                      origin, score)
    Console(width=max(Console().width, 120)).print(table)
    console.print("▶ = the model its task uses (`studio models --use NAME` to change it)", highlight=False)
