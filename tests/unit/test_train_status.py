"""What the Train tab says of a running job: speeds measured over the same training seconds, and the time left
at the pace of whole epochs (their evaluations included) once two have ended."""

from types import SimpleNamespace

from studio.ui.train import chrf_curve, loss_curve, pace, remaining


def step(n, seconds, tokens, epoch=1, batch=None, rate=None):
    return {"kind": "step", "step": n, "seconds": seconds, "tokens": tokens, "epoch": epoch, "epochs": 10,
            "batch": batch or n, "batches": 10, "rate": rate if rate is not None else 1.0,
            "losses": {"loss": 1.0}}


def job(minutes=0):
    return SimpleNamespace(spec=SimpleNamespace(overrides={"train.max_minutes": minutes} if minutes else {}))


def test_steps_and_tokens_per_second_come_from_the_same_recent_training_seconds():
    # the first step took 15 s (compiling); then 20 steps a second of 50 tokens each
    steps = [step(1, 15.0, 50)] + [step(n, 15.0 + (n - 1) / 20, 50 * n) for n in range(2, 41)]
    steps_per_second, tokens_per_second = pace(steps)
    assert round(steps_per_second, 6) == 20 and round(tokens_per_second, 6) == 1000
    assert pace([step(1, 15.0, 50, rate=0.07)]) == (0.07, 50 / 15)  # one step: its own rate


def test_the_time_left_counts_the_evaluations_once_two_epochs_have_ended():
    last = step(25, 10.0, 1000, epoch=3, batch=5)  # 5 of 10 batches of epoch 3 done, 7.5 epochs left
    ends = [{"kind": "epoch", "time": t} for t in (100.0, 130.0, 190.0, 220.0)]  # 30 s epochs; 60 s: a resume
    assert remaining(job(), last, ends, steps_per_second=100.0) == " · about 3.8 min left"  # 7.5 × 30 s
    assert remaining(job(), last, [], steps_per_second=5.0) == " · about 15 s left"  # 75 steps at 5 a second
    assert remaining(job(minutes=1), last, ends, steps_per_second=100.0) == " · about 50 s left"  # the budget
    assert remaining(job(), last, [], steps_per_second=0.0) == ""


def test_the_curves_are_typed_frames_and_nothing_before_the_first_point():
    """The plot reads a column's kind from its dtype; and a plot first drawn from an empty frame never drew the
    lines that came after, so an empty curve is no frame at all."""
    assert loss_curve([]) is None and chrf_curve([]) is None
    events = [step(1, 1.0, 10), {"kind": "epoch", "step": 1, "losses": {"dev_loss": 2.5}},
              {"kind": "samples", "epoch": 1, "losses": {"dev_chrf": 12.5}}]
    assert loss_curve(events)["curve"].tolist() == ["training loss", "dev loss"]
    assert str(loss_curve(events).dtypes["curve"]) == "string" and str(chrf_curve(events).dtypes["epoch"]) == "int64"
    assert chrf_curve(events).values.tolist() == [[1, 12.5]]
    early = loss_curve([step(1, 1.0, 10), step(2, 2.0, 20)])  # before the first epoch's dev loss
    assert early["curve"].tolist() == ["training loss", "training loss", "dev loss"]  # both curves from the start
    assert early["value"].isna().tolist() == [False, False, True]  # the dev point has no value: nothing drawn


def test_the_finished_job_says_when_its_model_was_renamed_or_deleted_since(tmp_path, monkeypatch):
    from studio import library
    from studio.ui.train import comparison_text

    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path))
    result = {"pairs": 3, "decoding": "greedy", "models": {"new": {"chrf": 10.0, "bleu": 1.0}}, "samples": []}
    finished = SimpleNamespace(spec=SimpleNamespace(name="faq bot"), comparison=lambda: result)
    (library.models_dir() / "faq bot").mkdir(parents=True)
    assert "**faq bot is in your models** (Models tab)" in comparison_text(finished, {"state": "finished",
                                                                                     "model": "faq bot"})
    (library.models_dir() / "faq bot").rename(library.models_dir() / "faq helper")
    assert "since renamed or deleted" in comparison_text(finished, {"state": "finished", "model": "faq bot"})
    result["weights"] = "best epoch (dev token accuracy last weights 0.15, best epoch 0.20)"  # not the curve's last
    assert "The new model's weights: best epoch (dev token accuracy" in comparison_text(finished, {"state": "finished"})


def test_the_tick_sends_the_status_only_when_the_job_changed(tmp_path, monkeypatch):
    import json

    import gradio as gr

    from studio.data import Pair
    from studio.train import jobs
    from studio.ui.train import follow_changes

    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path))
    job = jobs.create_job(jobs.JobSpec("chatbot", "faq bot"), [Pair("안녕?", "안녕!")] * 3)
    *sent, shown = follow_changes(job, None)  # a page that shows nothing yet gets everything
    assert "**faq bot**" in sent[0] and len(sent) == 7
    assert follow_changes(job, shown) == (*[gr.skip()] * 7, shown)  # nothing changed: nothing is sent
    with open(job.folder / "events.jsonl", "a", encoding="utf-8") as events:
        events.write(json.dumps(step(1, 1.0, 10)) + "\n")
    *sent, now = follow_changes(job, shown)  # a new event: the status and curves are sent again
    assert now != shown and "step 1" in sent[0] and len(sent[1]) == 2  # its first step, and the dev loss to come
    assert follow_changes(None, None)[0] == "No training yet." and follow_changes(None, ("no job",))[-1] == ("no job",)


def test_a_finished_job_whose_model_learned_little_says_so_beside_the_models_tab_figure(tmp_path, monkeypatch):
    import json

    from studio import library
    from studio.ui.train import comparison_text

    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path))
    folder = library.models_dir() / "tiny bot"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"task": {"task": "chatbot"}}), encoding="utf-8")
    (folder / "metrics.json").write_text(json.dumps({"dev_chrf": 4.12, "dev_pairs": 31, "train_pairs": 309,
                                                     "train_seconds": 240}), encoding="utf-8")
    result = {"pairs": 31, "decoding": "greedy", "models": {"new": {"chrf": 4.07, "bleu": 0.1}}, "samples": []}
    finished = SimpleNamespace(spec=SimpleNamespace(name="tiny bot"), comparison=lambda: result)
    text = comparison_text(finished, {"state": "finished", "model": "tiny bot"})
    assert text.startswith("⚠ **It learned little: chrF 4.1 on its own dev split")
    assert "On its whole dev split (31 pairs) (greedy), as the Models tab shows it: chrF 4.12." in text


def test_a_step_that_compiles_is_said_while_it_lasts_and_while_a_stop_waits_for_it():
    from studio.ui.train import status_text

    running = SimpleNamespace(spec=SimpleNamespace(name="bot", task="chatbot", fine_tunes=False, overrides={}))
    compiling = {"kind": "compiling", "text": "Compiling the training step for a new batch shape (3 so far): the "
                                              "first steps of a run are slow, and a Stop takes effect after this one"}
    events = [step(1, 2.0, 100), compiling]
    assert "Compiling the training step for a new batch shape (3 so far)" in status_text(
        running, {"state": "running"}, events)
    assert "stopping after this step (it is compiling" in status_text(running, {"state": "stopping"}, events)
    events.append(step(2, 40.0, 200))  # compiled: said no more
    assert "Compiling" not in status_text(running, {"state": "running"}, events)
