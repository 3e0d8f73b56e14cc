"""Training jobs (`studio.train.jobs`): the app's trainings run in a process of their own, report every event to
a file the Train tab reads, stop with a checkpoint and resume from it, finish into the model library, and one
at a time: a second start is refused with the reason."""

import json
import os
import shutil
import signal
import time
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import TINY, generated_pairs, tmpfs

from studio import library
from studio.data.readers import Pair
from studio.errors import StudioError
from studio.train import jobs
from studio.train.checkpoints import CheckpointError, CheckpointStore, TrainState


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def pairs():
    return [Pair(q, a) for q, a, _ in generated_pairs(60)]


def settings(**extra):
    return {**{k: str(v) for k, v in TINY.items()}, "train.jit_compile": "false", **extra}


def wait_for(job, states, timeout=240):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = job.state()
        if state["state"] in states:
            return state
        time.sleep(0.3)
    raise AssertionError(f"the job is still {job.state()} after {timeout} s; its log:\n"
                         + (job.folder / "process.log").read_text(errors="replace")[-3000:])


def wait_for_a_step(job, since=0, timeout=240):
    deadline = time.monotonic() + timeout
    while not any(e["kind"] == "step" for e in job.events(since)):
        assert time.monotonic() < deadline and job.state()["state"] in ("starting", "running"), job.state()
        time.sleep(0.2)


def test_a_job_trains_in_its_own_process_stops_resumes_and_lands_in_the_library(data_dir, tiny_bundle,
                                                                                monkeypatch):
    """One fine-tune job through its whole life (a job from scratch is the browser test's): its own process, an
    early Stop that ends it at once, its events, a second training refused meanwhile, Stop with a checkpoint,
    Resume, the library, the comparison."""
    spec = jobs.JobSpec("chatbot", "tuned", init_from=str(tiny_bundle),
                        overrides=settings(**{"train.epochs": "12", "train.lr_scale": "0.5"}))
    dev = [Pair(q, a) for q, a, _ in generated_pairs(12, seed=7)]  # the user's own dev pairs
    job = jobs.create_job(spec, pairs(), dev_pairs=dev)
    assert (job.folder / "data" / "train.csv").read_text(encoding="utf-8").startswith("Q,A,label\n")
    process = jobs.start(job)
    assert process.pid != jobs.os.getpid()
    started = time.monotonic()
    assert jobs.stop(job) is True  # still preparing: no checkpoint, under a minute trained: ended at once
    state = job.state()
    assert state["state"] == "stopped" and "before it had trained a minute" in state["reason"]
    assert time.monotonic() - started < 10 and process.wait(timeout=10) is not None
    jobs.start(job, resume=True)  # starts again (nothing was saved)
    wait_for_a_step(job)
    other = jobs.create_job(jobs.JobSpec("chatbot", "other", overrides=settings()), pairs())
    with pytest.raises(StudioError, match="a training is running already \\(tuned, chatbot\\)"):
        jobs.start(other)
    assert any(e["kind"] == "compiling" for e in job.events())  # the first step of a batch shape said so
    # a Stop now would end it at once too: its steps say how long it has trained, under a minute
    assert 0 < jobs.trained_seconds(job) < jobs.EARLY_STOP_SECONDS
    monkeypatch.setattr(jobs, "EARLY_STOP_SECONDS", 0.0)  # as a run past its first minute
    assert jobs.stop(job) is False
    assert wait_for(job, {"stopped", "failed", "finished"})["state"] == "stopped"
    assert any(e["kind"] == "signal" for e in job.events())
    assert "tuned" not in [e.name for e in library.list_models()]  # not finished: not in the library
    with pytest.raises(StudioError, match="is stopped, not running"):
        jobs.stop(job)
    jobs.start(job, resume=True)
    assert wait_for(job, {"finished", "failed"}, timeout=400)["state"] == "finished"
    kinds = [e["kind"] for e in job.events()]
    assert {"info", "epoch_start", "step", "epoch", "samples"} <= set(kinds)
    assert job.events(since=len(kinds) - 1) == job.events()[-1:]
    assert any("Resum" in e.get("text", "") for e in job.events())
    entry = library.find_model("tuned")
    assert not entry.shipped and entry.task == "chatbot" and not entry.problem
    assert not (entry.path / "checkpoints").exists() and not (job.run_dir / "checkpoints").exists()  # disk freed
    assert job.state()["state"] == "finished"  # not inferred from checkpoints: it said so
    comparison = job.comparison()
    assert set(comparison["models"]) == {"base", "new"}  # a fine-tune is compared with the model it started from
    assert comparison["pairs"] == len((job.run_dir / "dev.tsv").read_text(encoding="utf-8").splitlines()) == len({p.source for p in dev})
    assert comparison["samples"][0].keys() >= {"source", "reference", "base", "new"}
    assert 0 <= comparison["models"]["new"]["chrf"] <= 100 and len(comparison["samples"]) <= 5
    assert comparison["weights"] == json.loads((entry.path / "metrics.json").read_text(encoding="utf-8"))["weights"]


def test_a_job_whose_process_died_is_resumable_from_its_checkpoint_or_failed(data_dir):
    job = jobs.create_job(jobs.JobSpec("chatbot", "ghost", overrides=settings()), pairs())
    job._write_state("running", pid=2 ** 22 + 12345)  # a process that does not exist
    assert job.state()["state"] == "failed" and "ended without saying why" in job.state()["reason"]
    (job.run_dir / "checkpoints" / "ckpt-00000010").mkdir(parents=True)
    assert job.state()["state"] == "failed"  # a checkpoint without its state.json is not one
    (job.run_dir / "checkpoints" / "ckpt-00000010" / "state.json").write_text("{}", encoding="utf-8")
    assert job.state()["state"] == "stopped"
    assert jobs.running_job() is None and jobs.list_jobs()[0].id == job.id


def test_a_job_needs_a_name_the_library_can_hold(data_dir):
    with pytest.raises(StudioError, match="cannot name a model"):
        jobs.create_job(jobs.JobSpec("chatbot", "../escape"), pairs())
    assert not jobs.list_jobs()


@pytest.fixture
def small_disk(tmp_path):
    yield from tmpfs(tmp_path / "full", "size=400k")


def test_a_full_disk_while_checkpointing_stops_the_job_with_the_reason_and_keeps_the_last_checkpoint(
        small_disk, monkeypatch):
    """The job's own folder fills up: the checkpoint that does not fit is removed, the one before it stays, and
    the job is stopped (resumable once space is freed) with the disk's reason, not a traceback."""
    import studio.train.run

    monkeypatch.setenv("STUDIO_DATA_DIR", str(small_disk))
    weights = SimpleNamespace(path="w", numpy=lambda: np.ones(15_000, np.float32))  # 60 KB
    model, optimizer = SimpleNamespace(weights=[weights]), SimpleNamespace(variables=[weights])
    job = jobs.create_job(jobs.JobSpec("chatbot", "full disk", overrides=settings()), pairs())
    saved = []

    def train_task(task, out, **options):
        store = CheckpointStore(out / "checkpoints")
        saved.append(store.save(model, optimizer, TrainState(step=1)))
        free = shutil.disk_usage(small_disk).free
        (small_disk / "filler").write_bytes(b"\0" * (free - 64 * 1024))  # room for state.json, not a checkpoint
        store.save(model, optimizer, TrainState(step=2))

    monkeypatch.setattr(studio.train.run, "train_task", train_task)
    with pytest.raises(CheckpointError):
        jobs.run_job(job)
    state = job.state()
    assert state["state"] == "stopped", state
    assert "could not save the checkpoint of step 2" in state["reason"] and "No space left" in state["reason"]
    assert "ckpt-00000001) is kept: free some space and resume" in state["reason"]
    store = CheckpointStore(job.run_dir / "checkpoints")
    assert store.latest() == saved[0] and store.all() == saved  # no partial checkpoint left behind
    assert not list(store.directory.glob(".tmp-ckpt-*"))


def fake_training(tiny_bundle, *events, checkpoint=False):
    """A `train_task` that reports `events` (kinds: "kill" sends the job a stop there, "write" writes the tiny bundle
    as its run with a dev split); `checkpoint`: the run has one to resume from (a resumed job's)."""
    from studio.train.progress import TrainingEvent

    def train_task(task, out, progress, **options):
        if checkpoint:
            (out / "checkpoints" / "ckpt-00000001").mkdir(parents=True)
            (out / "checkpoints" / "ckpt-00000001" / "state.json").write_text("{}", encoding="utf-8")
        for kind in events:
            if kind == "kill":
                os.kill(os.getpid(), signal.SIGTERM)
            elif kind == "write":
                shutil.copytree(tiny_bundle, out, dirs_exist_ok=True)
                (out / "dev.tsv").write_text("".join(f"{q}\t{a}\n" for q, a, _ in generated_pairs(3)), encoding="utf-8")
            else:
                progress(TrainingEvent(kind, text=kind))

    return train_task


def run_fake(tiny_bundle, monkeypatch, name, *events, checkpoint=False):
    """The job's state after `run_job` over `fake_training(events)`, and whether its model is in the library."""
    import studio.train.run

    monkeypatch.setattr(studio.train.run, "train_task", fake_training(tiny_bundle, *events, checkpoint=checkpoint))
    job = jobs.create_job(jobs.JobSpec("chatbot", name, overrides=settings()), pairs())
    try:
        jobs.run_job(job)
    except StudioError:
        pass
    return job.state(), name in [e.name for e in library.list_models()]


def test_a_stop_ends_a_job_as_what_it_cut_short(data_dir, tiny_bundle, monkeypatch):
    """The Stop of a small run often lands while its last epoch is scored: the trainer then reports a "signal" but
    no "stopped", and the job finishes into the library. A stop that cut training short, or came before training
    or while the model was written, ends it stopped (resumable from a checkpoint) or, with none, failed; one during
    the comparison leaves the comparison out."""
    before = signal.getsignal(signal.SIGTERM)
    state, listed = run_fake(tiny_bundle, monkeypatch, "late", "epoch_start", "signal", "write")
    assert state["state"] == "finished" and listed
    state, listed = run_fake(tiny_bundle, monkeypatch, "cut", "epoch_start", "signal", "stopped", "write")
    assert state["state"] == "stopped" and not listed
    state, _ = run_fake(tiny_bundle, monkeypatch, "early", "info", "kill", "epoch_start", "write")
    assert state["state"] == "failed" and state["reason"] == "stopped by the user before training began"
    state, _ = run_fake(tiny_bundle, monkeypatch, "resumed", "info", "kill", "write", checkpoint=True)
    assert state["state"] == "stopped"  # a resumed job stopped before its first step can be resumed again
    state, listed = run_fake(tiny_bundle, monkeypatch, "writing", "epoch_start", "write", "kill", checkpoint=True)
    assert state["state"] == "stopped" and "Resume writes it" in state["reason"] and not listed

    monkeypatch.setattr(jobs, "compare_with_base", lambda job, path: os.kill(os.getpid(), signal.SIGTERM))
    state, listed = run_fake(tiny_bundle, monkeypatch, "compared", "epoch_start", "write")
    assert state["state"] == "finished" and listed
    said = [e.get("text", "") for job in jobs.list_jobs() for e in job.events()]
    assert "stopped by the user before the comparison with the base model" in said
    assert signal.getsignal(signal.SIGTERM) == before  # the job's handler is the job's alone


def test_an_early_stop_of_a_process_that_is_gone_or_no_session_leader_says_so(data_dir, monkeypatch):
    """Stop ends a job's own process even when it leads no session of its own (started by hand), and a job whose
    process ended meanwhile is said to have ended, never marked stopped while it runs."""
    import subprocess
    import sys

    job = jobs.create_job(jobs.JobSpec("chatbot", "by hand", overrides=settings()), pairs())
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # in this test's session
    job._write_state("running", pid=sleeper.pid)
    assert jobs.stop(job) is True and sleeper.wait(timeout=10) == -signal.SIGKILL
    assert job.state()["state"] == "stopped"
    job._write_state("running", pid=sleeper.pid)  # reaped: no such process now
    monkeypatch.setattr(jobs, "_alive", lambda pid: True)  # as state() saw it a moment before it ended
    with pytest.raises(StudioError, match="ended meanwhile"):
        jobs.stop(job)
