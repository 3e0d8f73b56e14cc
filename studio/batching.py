"""Requests from many users decoded together. A decode step for 8 rows costs far less than 8 steps of one
row on this CPU, so requests for the same model, backend and decoding settings that arrive while a batch is
decoding wait for it to end and then decode together (up to `max_batch`; a lone request waits at most
`window_s` for company). Greedy outputs equal those of decoding each request alone (measured on the shipped
models on every backend: batched and padded sources give the same ids).

This is request-level batching: a batch runs to its longest output, and a request arriving meanwhile waits
for the next one. Rows joining a running batch at their own position (continuous batching) would need a
per-row position in the exported decode step.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field

from studio.generate import DecodeOptions


@dataclass
class _Request:
    text: str
    options: DecodeOptions | None
    future: Future = field(default_factory=Future)
    submitted: float = field(default_factory=time.perf_counter)


def _key(options: DecodeOptions | None):
    """Rows of one batch share every decoding setting; a seeded sample decodes alone (its seed reproduces
    its own output, which rows drawing from one generator would not)."""
    options = options or DecodeOptions()
    return object() if options.strategy == "sample" and options.seed is not None else repr(options)


class Batcher:
    """Batches the requests given to `submit` for one `TextGenerator`; a worker thread decodes them."""

    def __init__(self, generator, max_batch: int = 8, window_s: float = 0.002):
        self.generator = generator
        self.max_batch = max(1, int(max_batch))
        self.window_s = window_s
        self._queue: queue.Queue[_Request] = queue.Queue()
        self._held: list[_Request] = []  # taken from the queue but for another batch (other settings)
        self.batches = 0  # how many batches ran, and their rows: `rows / batches` is the mean batch size
        self.rows = 0
        threading.Thread(target=self._work, name=f"batcher-{generator.backend}", daemon=True).start()

    def submit(self, text: str, options: DecodeOptions | None = None) -> Future:
        """A future of (Generation, Latency): the latency counts from submission (waiting included)."""
        request = _Request(text, options)
        self._queue.put(request)
        return request.future

    def generate(self, text: str, options: DecodeOptions | None = None):
        return self.submit(text, options).result()

    def _next_batch(self) -> list[_Request]:
        first = self._held.pop(0) if self._held else self._queue.get()
        batch, key = [first], _key(first.options)
        for request in list(self._held):
            if len(batch) < self.max_batch and _key(request.options) == key:
                self._held.remove(request)
                batch.append(request)
        deadline = time.perf_counter() + self.window_s
        while len(batch) < self.max_batch:
            try:
                request = self._queue.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                break
            (batch if _key(request.options) == key else self._held).append(request)
        return [r for r in batch if r.future.set_running_or_notify_cancel()]  # a cancelled request leaves

    def _work(self) -> None:
        while True:
            batch = self._next_batch()
            if batch:
                self._decode(batch)

    def _decode(self, batch: list[_Request]) -> None:
        from studio.inference import Latency

        started = time.perf_counter()
        first_step: list[float] = []
        try:
            results = self.generator.generate([r.text for r in batch], batch[0].options,
                                              on_first_step=lambda: first_step.append(time.perf_counter()))
        except Exception as error:  # noqa: BLE001 - one bad request must not fail its batch-mates: each alone
            if len(batch) == 1:
                batch[0].future.set_exception(error)
            else:
                for request in batch:
                    self._decode_alone(request)
            return
        finished = time.perf_counter()
        self.batches += 1
        self.rows += len(batch)
        for request, result in zip(batch, results):
            latency = Latency(self.generator.backend, tokens=len(result.ids) + 1,
                              first_token_ms=((first_step[0] if first_step else started) - request.submitted) * 1000,
                              total_ms=(finished - request.submitted) * 1000)
            request.future.set_result((result, latency))

    def _decode_alone(self, request: _Request) -> None:
        from studio.inference import Latency

        try:
            result = self.generator.generate([request.text], request.options)[0]
        except Exception as error:  # noqa: BLE001 - the request's own caller gets its error
            request.future.set_exception(error)
            return
        total = (time.perf_counter() - request.submitted) * 1000
        request.future.set_result((result, Latency(self.generator.backend, total, total, len(result.ids) + 1)))
