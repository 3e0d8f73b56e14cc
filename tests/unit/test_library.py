"""The model library (`studio.library`, `studio models`): the shipped bundles and the user's own, kept in the
per-user data folder; which one each task uses; renaming and deleting only what the user made."""

import json

import pytest
from typer.testing import CliRunner

from studio import library
from studio.bundle import default_bundle
from studio.cli import app
from studio.errors import StudioError

runner = CliRunner()


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def user_model(name: str, task: str = "chatbot", **metrics) -> None:
    """A folder laid out as a bundle, as the library reads it (no weights that load: the library never loads one)."""
    path = library.models_dir() / name
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"task": {"task": task}}), encoding="utf-8")
    (path / "metrics.json").write_text(json.dumps({"parameters": 1234, "train_pairs": 40, "dev_pairs": 5,
                                                   "data_files": ["/home/me/faq.csv"], **metrics}), encoding="utf-8")
    (path / "weights.npz").write_bytes(b"x" * 2048)
    (path / "checksums.json").write_text("{}", encoding="utf-8")
    (path / "MODEL_CARD.md").write_text(f"# {name}\n", encoding="utf-8")


def names() -> list[str]:
    return [e.name for e in library.list_models()]


def test_the_library_lists_the_shipped_models_then_the_users_with_what_they_are(data_dir):
    user_model("faq bot", dev_chrf=31.5)
    user_model("news-ko-en", task="translator", evaluation={"park_test": {"greedy": {"chrf": 40.1, "bleu": 12.0}}})
    entries = library.list_models()
    assert [(e.name, e.task, e.shipped) for e in entries] == [
        ("chatbot", "chatbot", True), ("translator", "translator", True),
        ("faq bot", "chatbot", False), ("news-ko-en", "translator", False)]
    faq = entries[2]
    assert faq.path == data_dir / "models" / "faq bot" and faq.bytes > 2048 and faq.parameters == 1234
    assert faq.train_pairs == 40 and faq.data == "faq.csv" and faq.card == "# faq bot\n"
    assert faq.headline_score().endswith("chrF 31.50")  # no BLEU it never measured (it read "BLEU 0.00")
    assert "chrF 40.10, BLEU 12.00" in entries[3].headline_score()
    assert entries[0].path == default_bundle("chatbot") and not entries[0].problem


def test_a_broken_folder_is_listed_with_its_problem_and_cannot_be_chosen(data_dir):
    user_model("half")
    (library.models_dir() / "half" / "weights.npz").unlink()
    (library.models_dir() / "junk").mkdir()
    (library.models_dir() / "junk" / "config.json").write_text("{not json", encoding="utf-8")
    problems = {e.name: e.problem for e in library.list_models() if e.problem}
    assert "weights.npz" in problems["half"] and "config.json unreadable" in problems["junk"]
    with pytest.raises(StudioError, match="half cannot be used: weights.npz"):
        library.choose("half")


def test_choosing_a_model_makes_its_task_use_it_until_it_is_gone(data_dir):
    user_model("faq bot")
    assert library.chosen_bundle("chatbot") == default_bundle("chatbot")
    assert library.choose("faq bot").task == "chatbot"
    assert library.chosen_name("chatbot") == "faq bot"
    assert library.chosen_bundle("chatbot") == data_dir / "models" / "faq bot"
    assert library.chosen_bundle("translator") == default_bundle("translator")  # per task
    library.choose("chatbot")  # the shipped one again
    assert library.chosen_bundle("chatbot") == default_bundle("chatbot")
    library.choose("faq bot")
    (library.models_dir() / "faq bot" / "weights.npz").unlink()  # damaged outside the app: back to the shipped one
    assert library.chosen_bundle("chatbot") == default_bundle("chatbot")
    with pytest.raises(StudioError, match="no model named 'nope'.*chatbot, translator"):
        library.choose("nope")


def test_renaming_keeps_the_choice_and_refuses_clashes_bad_names_and_shipped_models(data_dir):
    user_model("a")
    user_model("b")
    library.choose("a")
    assert library.rename("a", "my bot").name == "my bot"
    assert library.chosen_name("chatbot") == "my bot" and "a" not in names()
    with pytest.raises(StudioError, match="exists already"):
        library.rename("b", "MY BOT")
    for bad in ("", "../up", "a/b", "translator", "x" * 65, ".hidden"):
        with pytest.raises(StudioError, match="cannot name a model"):
            library.rename("b", bad)
    with pytest.raises(StudioError, match="shipped model: it cannot be renamed"):
        library.rename("chatbot", "c")
    assert library.unique_name("b") == "b-2" and library.unique_name("new: one/two") == "new- one-two"


def test_deleting_is_refused_for_shipped_and_used_models_and_removes_the_folder(data_dir):
    user_model("old")
    user_model("current")
    library.choose("current")
    with pytest.raises(StudioError, match="shipped model: it cannot be deleted"):
        library.delete("translator")
    with pytest.raises(StudioError, match="current is the chatbot model the app uses: choose another"):
        library.delete("current")
    with pytest.raises(StudioError, match="the chatbot model the app uses"):
        library.delete("old", in_use={"old"})  # a running tab still holds it
    library.delete("old")
    assert names() == ["chatbot", "translator", "current"]
    assert not any(p.name.endswith("old") for p in library.models_dir().iterdir())


def test_studio_models_lists_chooses_renames_shows_and_deletes(data_dir):
    user_model("faq bot")
    listed = runner.invoke(app, ["models"])
    assert listed.exit_code == 0, listed.output
    assert "faq bot" in listed.output and "translator" in listed.output and str(data_dir / "models") in listed.output
    used = runner.invoke(app, ["models", "--use", "faq bot"])
    assert used.exit_code == 0 and "The chatbot now uses faq bot" in used.output
    assert runner.invoke(app, ["models", "--rename", "faq bot", "helpdesk"]).exit_code == 0
    shown = runner.invoke(app, ["models", "--show", "helpdesk"])
    assert shown.exit_code == 0 and "faq bot" in shown.output  # the card's heading
    refused = runner.invoke(app, ["models", "--delete", "helpdesk"])
    assert refused.exit_code != 0 and "choose another chatbot model first" in str(refused.exception)
    runner.invoke(app, ["models", "--use", "chatbot"])
    assert runner.invoke(app, ["models", "--delete", "helpdesk"]).exit_code == 0
    assert names() == ["chatbot", "translator"]


def test_the_export_tab_chooses_a_model_new_since_it_listed_them_else_keeps_the_choice(data_dir):
    import os

    from studio.ui.export import model_choices

    shown, known = model_choices(None, [])
    assert shown == {"choices": ["chatbot", "translator"], "value": "chatbot"} and known == shown["choices"]
    assert model_choices("translator", known)[0]["value"] == "translator"
    user_model("newer")
    user_model("older")
    os.utime(library.models_dir() / "older" / "config.json", (1, 1))
    shown, known = model_choices("translator", known)
    assert shown["value"] == "newer" and known == ["chatbot", "translator", "newer", "older"]
    assert model_choices("translator", known)[0]["value"] == "translator"  # nothing new: the choice is kept
    assert model_choices("gone", known)[0]["value"] == "chatbot"


def test_a_model_that_learned_little_says_so_with_what_would_help(data_dir):
    user_model("tiny bot", dev_chrf=4.07, dev_distinct=0.05, dev_pairs=31, train_pairs=309, train_seconds=240)
    user_model("good bot", dev_chrf=19.8, dev_distinct=0.9, train_pairs=10784, train_seconds=3600)
    tiny, good = (library.find_model(name) for name in ("tiny bot", "good bot"))
    assert tiny.learned_little.startswith("It learned little: chrF 4.1 on its own dev split")
    assert "only 5% of its chat replies there differ" in tiny.learned_little
    assert "more pairs (it trained on 309" in tiny.learned_little and "more minutes (it trained 4)" in tiny.learned_little
    assert good.learned_little == "" and library.find_model("chatbot").learned_little == ""
    assert tiny.headline_score() == "its whole dev split (31 pairs) (greedy): chrF 4.07"


def test_the_models_tab_marks_a_model_that_learned_little_and_asks_before_using_it(data_dir):
    import gradio as gr

    from studio.ui.models import USE, ModelsTab, details, library_rows

    user_model("tiny bot", dev_chrf=4.07, train_pairs=309, train_seconds=240)
    switched = []
    service = type("Service", (), {"bundle_path": None, "switch": lambda self, path: switched.append(path)})()
    assert [row[-1] for row in library_rows({"chatbot": service}) if row[1] == "tiny bot"][0].startswith(
        "⚠ learned little · ")
    assert "⚠ **It learned little" in details("tiny bot")
    with gr.Blocks():
        tab = ModelsTab({"chatbot": service})
    asked = tab.use("tiny bot", None)
    assert switched == [] and asked[-2] == "tiny bot" and asked[-1].value == "Use tiny bot anyway"
    used = tab.use("tiny bot", "tiny bot")
    assert switched == [library.models_dir() / "tiny bot"] and used[-2] is None and used[-1].value == USE
    assert library.chosen_name("chatbot") == "tiny bot"
