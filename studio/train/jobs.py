"""Training jobs the app starts: each runs `train_task` (the very run `studio train` makes) in a process of its own,
so the app stays responsive, the job keeps going when the page is closed, and the Train tab finds it again after
a reload or an app restart. One training at a time on this machine: a second start is refused with the reason.

    <user data dir>/jobs/<id>/job.json      what to train (`JobSpec`)
                             data/          the training data, written when the job is made
                             dev/           the user's dev pairs, if given (else the run splits data/)
                             run/           the training run (`studio train --out`): checkpoints (until it
                                            finishes), then the bundle
                             events.jsonl   every `TrainingEvent`, one JSON object a line, as the run reports it
                             state.json     running / stopped / finished / failed, the process id, the reason
                             comparison.json  the finished model against its base on the run's dev split
    <user data dir>/jobs/training.lock      held (flock) by the running job's process: released if it dies

Stop sends SIGTERM: the trainer finishes the step, saves a checkpoint and writes the bundle, and the job is
"stopped" (resume continues from the checkpoint); a stop after the last step lets the job finish, and one before
the first or while the model is written stops it too (resumable when it has a checkpoint). A finished job's bundle
is copied into the model library under the job's name, and its checkpoints are deleted. Run a job's process by
hand with `python -m studio.train.jobs JOB_FOLDER [--resume]`."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import errno
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from studio import library
from studio.config import apply_overrides, check_settings, preset_config
from studio.data.readers import Pair
from studio.errors import StudioError
from studio.files import atomic_write_bytes
from studio.tasks import task_named
from studio.train.checkpoints import CheckpointError
from studio.train.progress import TrainingEvent

LOCK = "training.lock"
STATES = ("starting", "running", "stopping", "stopped", "finished", "failed")


@dataclass(frozen=True)
class JobSpec:
    task: str  # chatbot or translator
    name: str  # the model's name in the library when it finishes
    preset: str | None = None  # from scratch: a preset of `studio.config` (None: the task's)
    init_from: str | None = None  # fine-tune: the bundle whose weights and tokenizer it starts from
    overrides: dict = field(default_factory=dict)  # `--set` keys: train.max_minutes, train.lr_scale, ...
    max_steps: int | None = None

    @property
    def fine_tunes(self) -> bool:
        return self.init_from is not None


def jobs_dir() -> Path:
    return library.data_dir() / "jobs"


def write_training_file(pairs: list[Pair], task: str, folder: Path, name: str = "train") -> Path:
    """The pairs as the trainer reads them: ChatbotData's `Q,A,label` CSV for a chatbot, `ko<TAB>en` for a
    translator (tabs and line breaks inside a text become spaces: a TSV line is one pair). `name`: the file's
    stem, which the model card and the library show as its training data (e.g. the uploaded file's)."""
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^\w.\- ]", "_", name).strip(". ") or "train"
    if task_named(task).pairs_file == "csv":
        path = folder / f"{name}.csv"
        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["Q", "A", "label"])
            writer.writerows((p.source, p.target, "0") for p in pairs)
        return path
    path = folder / f"{name}.tsv"
    flat = lambda text: " ".join(text.split())  # noqa: E731
    path.write_text("".join(f"{flat(p.source)}\t{flat(p.target)}\n" for p in pairs), encoding="utf-8")
    return path


@dataclass
class Job:
    folder: Path

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def spec(self) -> JobSpec:
        return JobSpec(**json.loads((self.folder / "job.json").read_text(encoding="utf-8")))

    @property
    def run_dir(self) -> Path:
        return self.folder / "run"

    def state(self) -> dict:
        """{"state", "pid", "reason", "updated"}; a job whose process died without saying so is "stopped" (its
        last checkpoint can be resumed) or "failed" when it never saved one."""
        try:
            state = json.loads((self.folder / "state.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            state = {"state": "starting", "pid": None}
        if state.get("state") in ("starting", "running", "stopping") and not _alive(state.get("pid")):
            state = {**state, "state": "stopped" if _has_checkpoint(self) else "failed",
                     "reason": state.get("reason") or "the training process ended without saying why"}
        return state

    def events(self, since: int = 0) -> list[dict]:
        """The events reported so far (from the `since`-th on)."""
        try:
            lines = (self.folder / "events.jsonl").read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        events = []
        for line in lines[since:]:
            try:
                events.append(json.loads(line))
            except ValueError:  # the line being written right now
                break
        return events

    def comparison(self) -> dict | None:
        try:
            return json.loads((self.folder / "comparison.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _write_state(self, state: str, **details) -> None:
        record = {"state": state, "pid": os.getpid(), "updated": time.time(), **details}
        atomic_write_bytes(self.folder / "state.json", json.dumps(record).encode())


def _has_checkpoint(job: Job) -> bool:
    folder = job.run_dir / "checkpoints"
    return folder.is_dir() and any((path / "state.json").is_file() for path in folder.glob("ckpt-*"))


def _alive(pid) -> bool:
    if not pid:
        return False
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError):
        return False
    try:  # a zombie (ended, not yet reaped by the app that started it) is not running
        return Path(f"/proc/{int(pid)}/stat").read_text().split()[2] != "Z"
    except (OSError, IndexError):
        return True


def list_jobs() -> list[Job]:
    """Every job, the newest first."""
    folder = jobs_dir()
    if not folder.is_dir():
        return []
    jobs = [Job(path) for path in folder.iterdir() if (path / "job.json").is_file()]
    return sorted(jobs, key=lambda job: (job.folder / "job.json").stat().st_mtime, reverse=True)


def running_job() -> Job | None:
    return next((job for job in list_jobs() if job.state()["state"] in ("starting", "running", "stopping")), None)


def refuse_if_busy() -> None:
    busy = running_job()
    if busy is not None:
        raise StudioError(f"a training is running already ({busy.spec.name}, {busy.spec.task}): this machine trains "
                          "one model at a time; stop it or wait until it ends")


def create_job(spec: JobSpec, pairs: list[Pair], data_name: str = "train",
               dev_pairs: list[Pair] | None = None) -> Job:
    """A new job folder holding `spec`, the training data (a file named `data_name`) and the dev pairs if given
    (else the run holds out its own); nothing runs yet (`start`). Settings a training cannot start with are refused
    here, in plain words, before anything is written."""
    library.check_name(spec.name)
    check_settings(apply_overrides(preset_config(spec.task, spec.preset), spec.overrides))
    folder = jobs_dir() / f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    try:
        folder.mkdir(parents=True)
        path = write_training_file(pairs, spec.task, folder / "data", data_name)
        if dev_pairs:
            write_training_file(dev_pairs, spec.task, folder / "dev", "dev")
        atomic_write_bytes(folder / "job.json", json.dumps(dataclasses.asdict(spec), ensure_ascii=False).encode())
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        raise StudioError(f"{folder}: cannot write the training job here ({error.strerror or error})") from None
    job = Job(folder)
    atomic_write_bytes(folder / "state.json", json.dumps({"state": "new", "data": str(path)}).encode())
    return job


def start(job: Job, resume: bool = False) -> subprocess.Popen:
    """Run `job` in a process of its own session (an app that ends or is interrupted leaves it running)."""
    refuse_if_busy()
    job._write_state("starting", pid=None)
    log = open(job.folder / "process.log", "ab")
    command = [sys.executable, "-m", "studio.train.jobs", str(job.folder)] + (["--resume"] if resume else [])
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    log.close()
    job._write_state("starting", pid=process.pid)
    threading.Thread(target=process.wait, daemon=True).start()  # reaped when it ends: no zombie in the app
    return process


# a job with no checkpoint that has trained less than this is ended at once by Stop: it is still preparing or
# compiling its first steps (XLA compiles a program per batch shape, up to a minute each on 2 cores, and a signal
# is only seen once the compile returns), and nothing worth a checkpoint would be lost
EARLY_STOP_SECONDS = 60.0


def stop(job: Job) -> bool:
    """Ask the job's process to stop after the current step (it saves a checkpoint and writes the bundle); one that
    has trained less than EARLY_STOP_SECONDS and saved nothing is ended at once and can be started again by
    Resume. Whether it ended at once."""
    state = job.state()
    if state["state"] not in ("starting", "running"):
        raise StudioError(f"the job {job.spec.name} is {state['state']}, not running")
    pid = int(state["pid"])
    try:
        if _has_checkpoint(job) or trained_seconds(job) >= EARLY_STOP_SECONDS:
            os.kill(pid, signal.SIGTERM)
            return False
        try:
            os.killpg(pid, signal.SIGKILL)  # its own session (`start`): the process and anything it started
        except (ProcessLookupError, PermissionError):  # not a session leader (started by hand): the process alone
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        raise StudioError(f"the job {job.spec.name} ended meanwhile") from None
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        raise StudioError(f"the job {job.spec.name} did not end; try Stop again")
    job._write_state("stopped", pid=None, reason="stopped by the user before it had trained a minute (it was "
                                                 "still preparing or compiling): Resume starts it again")
    return True


def trained_seconds(job: Job) -> float:
    """The training time its last reported step says (0 before the first)."""
    steps = [e for e in job.events() if e.get("kind") == "step"]
    return float(steps[-1].get("seconds") or 0) if steps else 0.0


class StoppedOutsideTraining(StudioError):
    """A Stop that came while the job was not training: before its first step, or while it chose and wrote the
    model (the trainer takes the ones that come while it trains)."""


def run_job(job: Job, resume: bool = False) -> None:
    """The job's process: train (or resume), then add the model to the library and compare it with its base."""
    lock = _take_lock()
    spec, stopped, phase = job.spec, [], ["preparing"]  # preparing -> training -> comparing
    job._write_state("running")
    events = open(job.folder / "events.jsonl", "a", encoding="utf-8")

    def listen(event: TrainingEvent) -> None:
        if event.kind == "signal":
            job._write_state("stopping", reason=event.text)
        elif event.kind == "stopped":  # the stop ended training before it was done: not a finished model
            stopped.append(event.text)
        elif event.kind == "epoch_start":
            phase[0] = "training"
        events.write(json.dumps({**dataclasses.asdict(event), "time": time.time()}, ensure_ascii=False) + "\n")
        events.flush()

    def stop_outside_training(signum, frame) -> None:
        if phase[0] == "comparing":  # the model is in the library already: the comparison is what is left out
            raise StoppedOutsideTraining("stopped by the user before the comparison with the base model")
        raise StoppedOutsideTraining("stopped by the user before training began" if phase[0] == "preparing" else
                                     "stopped by the user while the model was chosen and written: Resume writes it")

    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, stop_outside_training)
        from studio.train.run import train_task  # deferred: it imports TensorFlow, the job's process only

        data = sorted((job.folder / "data").iterdir())
        dev = sorted((job.folder / "dev").iterdir()) if (job.folder / "dev").is_dir() else None
        train_task(spec.task, job.run_dir, resume=resume, data_files=data, overrides=spec.overrides,
                   preset=spec.preset, init_from=spec.init_from, max_steps=spec.max_steps, progress=listen,
                   dev_files=dev)
        if stopped:
            job._write_state("stopped", reason="stopped by the user: resume continues from the last checkpoint")
            return
        entry = add_to_library(job)
        phase[0] = "comparing"
        try:
            compare_with_base(job, entry.path)
        except StoppedOutsideTraining as stop:
            listen(TrainingEvent("info", text=str(stop)))
        job._write_state("finished", model=entry.name)
    except BaseException as error:  # noqa: BLE001 - the tab must learn why, whatever it was
        reason = str(error) if isinstance(error, StudioError) else f"{type(error).__name__}: {error}"
        # a stop outside training or a full disk: the job can go on from its last checkpoint (Resume, once space
        # is freed); anything else would fail again the same way
        resumable = (isinstance(error, (CheckpointError, StoppedOutsideTraining))
                     or getattr(error, "errno", None) == errno.ENOSPC) and _has_checkpoint(job)
        try:
            job._write_state("stopped" if resumable else "failed", reason=reason)
        except OSError:  # a disk too full even for state.json: the tab infers the state from the checkpoints
            pass
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        events.close()
        lock.close()
    _drop_checkpoints(job)


def _drop_checkpoints(job: Job) -> None:
    """A finished job is not resumed: its checkpoints (weights and Adam's two moments, five times over: ~0.7 GB for a
    fine-tuned translator's 12 M weights) and best epoch would only fill the disk."""
    shutil.rmtree(job.run_dir / "checkpoints", ignore_errors=True)
    try:
        (job.run_dir / "best.npz").unlink(missing_ok=True)
    except OSError:
        pass


def _take_lock():
    jobs_dir().mkdir(parents=True, exist_ok=True)
    handle = open(jobs_dir() / LOCK, "w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StudioError("another training holds the lock: this machine trains one model at a time") from None
    return handle


def add_to_library(job: Job) -> library.ModelEntry:
    """Copy the finished run's bundle (not its checkpoints) into the library under the job's name (or the
    next free one)."""
    name = library.unique_name(job.spec.name)
    target = library.models_dir() / name
    temp = target.with_name(f".adding-{name}")
    shutil.rmtree(temp, ignore_errors=True)
    shutil.copytree(job.run_dir, temp, ignore=shutil.ignore_patterns("checkpoints", "tensorboard", "best.npz",
                                                                      "exports"))
    os.replace(temp, target)
    return library.read_entry(target, name)


def compare_with_base(job: Job, bundle: Path, limit: int = 200, rows: int = 5) -> dict:
    """chrF and BLEU of the new model and (for a fine-tune) its base on up to `limit` pairs spread over the run's
    dev split, decoded as the app decodes them (the task's default decoding), with a few sample rows; written to
    comparison.json."""
    from studio.data.readers import read_tsv_pairs
    from studio.evaluate import decode_all, decoding_name, score
    from studio.inference import TextGenerator
    from studio.train.run import STARTING_MODEL, spread

    dev = spread(read_tsv_pairs(job.run_dir / "dev.tsv"), limit)
    models = {"base": job.spec.init_from, "new": str(bundle)} if job.spec.fine_tunes else {"new": str(bundle)}
    try:
        weights = json.loads((Path(bundle) / "metrics.json").read_text(encoding="utf-8")).get("weights", "")
    except (OSError, ValueError):
        weights = ""
    options = task_named(job.spec.task).default_options()
    result = {"pairs": len(dev), "decoding": decoding_name(options), "models": {}, "samples": [],
              "kept_starting_model": str(weights).startswith(STARTING_MODEL), "weights": str(weights)}
    outputs = {}
    for label, path in models.items():
        started = time.monotonic()
        outputs[label] = decode_all(TextGenerator.from_path(path, "tf"), [p.source for p in dev], options)
        s = score(dev, outputs[label], label, time.monotonic() - started)
        result["models"][label] = {"bundle": path, "chrf": round(s.chrf, 2), "bleu": round(s.bleu, 2)}
    result["samples"] = [{"source": p.source, "reference": p.target, **{k: v[i] for k, v in outputs.items()}}
                         for i, p in enumerate(dev[:rows])]
    atomic_write_bytes(job.folder / "comparison.json", json.dumps(result, ensure_ascii=False, indent=1).encode())
    return result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Run a training job of the app (its folder) in this process.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    run_job(Job(args.folder), args.resume)


if __name__ == "__main__":
    main()
