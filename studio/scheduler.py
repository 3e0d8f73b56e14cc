"""Continuous batching: the requests of many users decoded together, one decode step at a time.

A decode step for 8 rows costs far less than 8 steps of one row on this CPU (`benchmarks/batch_step.py`).
A `Scheduler` owns one runtime's running batch. A request (its source ids, its limits, its own strategy)
joins at the next step, at its own position 0, while the other rows go on at theirs: the graphs'
`decode_rows` takes one position per row. A row whose output has ended, or whose caller went away (a closed
tab), leaves at once, and its slot goes to the next waiting request. Each row chooses its tokens with its own
strategy, so a greedy row gives exactly the ids it gives alone, and a seeded sampling row the same draws.

A beam search request is a group of rows (one at its first step, `beam_size` after): at each step its
strategy chooses which of its rows continue (their caches copied, `runtime.select`), so a group's rows stay
together and next to no other request's; it counts as `beam_size` rows towards `max_batch` from the start.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future

import numpy as np

from studio.generate.loop import DecodeSpec, decode, held_open, pad_batch


_CLOSE = object()  # queued by `Scheduler.close` after the last job


class Job:
    """One request in a scheduler: `future` gets its generated ids (without <s> and </s>); `on_token(ids so far)`
    is called after each step but the last (in the scheduler's thread: it must be quick)."""

    def __init__(self, source: Sequence[int], spec: DecodeSpec, new_strategy: Callable[[], object],
                 on_token: Callable[[list[int]], None] | None = None):
        self.source = list(source)
        self.spec = spec
        self.new_strategy = new_strategy  # a fresh strategy: a job decoded again alone starts over
        self.strategy = new_strategy()
        self.tokens = np.asarray(self.strategy.start(1, spec), dtype=np.int32)  # fed at the next step, one per row
        self.width = int(getattr(self.strategy, "size", 1))  # the most rows it takes (a beam's, from the start)
        self.on_token = on_token
        self.future: Future = Future()
        self.position = 0  # steps run so far
        self.submitted = time.perf_counter()
        self.first_token_at: float | None = None
        self.cancelled = False

    def cancel(self) -> None:
        """The caller no longer wants the output: the row leaves at the next step (or never joins)."""
        self.cancelled = True


class Scheduler:
    """Decodes the jobs given to `submit` on `runtime` (a `RowsRuntime`), at most `max_batch` rows at a time."""

    def __init__(self, runtime, max_batch: int = 8):
        self.runtime = runtime
        self.max_batch = max(1, int(max_batch))
        self._waiting: queue.Queue[Job] = queue.Queue()
        self._held: Job | None = None  # taken from the queue, waiting for room for all its rows
        self.steps = 0  # decode steps run, and the rows they decoded: `rows / steps` is the mean batch
        self.rows = 0
        self.jobs = 0
        self._closed = False
        self._closing = threading.Lock()
        self._stopping = False  # the scheduler's thread has taken the close marker: it ends once its jobs have
        self._thread = threading.Thread(target=self._work, daemon=True,
                                        name=f"scheduler-{getattr(runtime, 'name', 'runtime')}")
        self._thread.start()

    def submit(self, source: Sequence[int], spec: DecodeSpec, new_strategy: Callable[[], object],
               on_token: Callable[[list[int]], None] | None = None) -> Job:
        job = Job(source, spec, new_strategy, on_token)
        with self._closing:  # a job is queued before the close marker or not at all
            if self._closed:
                raise RuntimeError("this scheduler is closed")
            self._waiting.put(job)
        return job

    def close(self, timeout: float | None = None) -> None:
        """Finish the jobs already submitted, then end the thread (and let go of the runtime); later
        `submit`s raise."""
        with self._closing:
            self._closed = True
            self._waiting.put(_CLOSE)
        self._thread.join(timeout)

    # ---- the scheduler's thread ------------------------------------------------------------------
    def _work(self) -> None:
        jobs: list[Job] = []
        state = None
        while not (self._stopping and not jobs and self._held is None):
            try:
                jobs, state = self._turn(jobs, state)
            except Exception as error:  # noqa: BLE001 - e.g. join/select failing: its jobs fail, the thread goes on
                for job in jobs:
                    if not job.future.done():
                        job.future.set_exception(error)
                jobs, state = [], None

    def _turn(self, jobs: list[Job], state):
        """Admit waiting jobs, run one decode step, let ended rows leave; returns (jobs, state)."""
        joining = self._take(block=not jobs, room=self.max_batch - sum(job.width for job in jobs))
        if joining:
            state = self._admit(joining, jobs, state)
        if not jobs:
            return jobs, state
        positions = np.concatenate([np.full(len(job.tokens), job.position, dtype=np.int32) for job in jobs])
        tokens = np.concatenate([job.tokens for job in jobs])
        try:
            logits, state = self.runtime.step_rows(state, tokens, positions)
        except Exception:  # noqa: BLE001 - whose row broke the step is unknown: each one alone
            for job in jobs:
                self._decode_alone(job)
            return [], None
        self.steps += 1
        self.rows += len(tokens)
        now, offset, kept, staying = time.perf_counter(), 0, [], []
        for job in jobs:
            width = len(job.tokens)
            rows = self._advance(job, logits[offset:offset + width], now)
            if rows is not None:  # the job's rows that go on (a beam's chosen ones, copied where chosen twice)
                kept.append(offset + rows)
                staying.append(job)
            offset += width
        rows = np.concatenate(kept) if kept else np.zeros(0, dtype=np.int64)
        if len(staying) == len(jobs) and len(rows) == len(tokens):  # only beams chose among their own rows:
            if np.any(rows != np.arange(len(tokens))):  # their caches move (a group shares its source's K/V)
                state = self.runtime.reorder(state, rows)
        else:
            state = self.runtime.select(state, rows) if staying else None
        return staying, state

    def _take(self, block: bool, room: int) -> list[Job]:
        """Waiting jobs whose rows fit in `room`, in order (waiting for the first one when `block`); cancelled ones
        are dropped. A job that does not fit yet is held, first in line, for a later turn."""
        taken: list[Job] = []
        while True:
            if self._held is not None:
                job, self._held = self._held, None
            else:
                try:
                    job = self._waiting.get() if block and not taken else self._waiting.get_nowait()
                except queue.Empty:
                    break
            if job is _CLOSE:
                self._stopping = True
                break
            if job.cancelled:
                job.future.set_exception(CancelledError())
                continue
            used = sum(j.width for j in taken)
            if used + job.width > room and (taken or room < self.max_batch):  # alone in an empty batch: it goes
                self._held = job
                break
            taken.append(job)
        return taken

    def _admit(self, joining: list[Job], jobs: list[Job], state):
        """Encode the joining jobs' sources (together) and add their rows after the running ones."""
        try:
            new = self.runtime.encode(pad_batch([job.source for job in joining], joining[0].spec.pad))
        except Exception as error:  # noqa: BLE001 - one bad source must not refuse the others
            if len(joining) == 1:
                joining[0].future.set_exception(error)
                return state
            for job in joining:
                state = self._admit([job], jobs, state)
            return state
        jobs.extend(joining)
        self.jobs += len(joining)
        return new if state is None else self.runtime.join(state, new)

    def _advance(self, job: Job, logits: np.ndarray, now: float) -> np.ndarray | None:
        """Choose the job's next tokens from its rows' logits; returns which of its rows go on (None: the job
        leaves the batch)."""
        if job.cancelled:
            job.future.set_exception(CancelledError())
            return None
        try:
            chosen, order = job.strategy.advance(held_open(logits, job.position, job.spec), job.position)
        except Exception as error:  # noqa: BLE001 - e.g. a sampler given invalid settings: its own job only
            job.future.set_exception(error)
            return None
        job.position += 1
        job.tokens = np.asarray(chosen, dtype=np.int32)
        if job.first_token_at is None:
            job.first_token_at = now
        if job.strategy.finished or job.position >= job.spec.max_new_tokens:
            job.future.set_result(job.strategy.outputs()[0])
            return None
        if job.on_token is not None:
            try:
                job.on_token(list(job.strategy.outputs()[0]))
            except Exception as error:  # noqa: BLE001 - a broken listener ends its own job only
                job.future.set_exception(error)
                return None
        return np.arange(len(logits)) if order is None else np.asarray(order, dtype=np.int64)

    def _decode_alone(self, job: Job) -> None:
        """Decode `job` again from its start, alone (after a batched step failed): only a job that fails alone
        gets the error."""
        if job.cancelled:
            job.future.set_exception(CancelledError())
            return
        job.strategy = job.new_strategy()
        try:
            ids = decode(self.runtime, [job.source], job.spec, job.strategy)[0]
        except Exception as error:  # noqa: BLE001 - the job's own caller gets it
            job.future.set_exception(error)
            return
        job.position = max(job.position, len(ids) + 1)
        job.first_token_at = job.first_token_at or time.perf_counter()
        job.future.set_result(ids)
