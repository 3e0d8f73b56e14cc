"""LiteRT (TFLite) runtime over `model*.tflite` (signatures `encode`, `decode_step` and, in the graphs of any
batch size, `decode_rows`: `step_rows`).

A LiteRT interpreter is not thread-safe, and each one holds its own packed copy of the weights (XNNPACK).
One interpreter per thread made a server's memory grow with every new worker thread (+1.3 GB over 2,000
requests in the load test), so calls borrow an interpreter from a small pool instead: at most `pool_size`
exist, and the decoder state lives in NumPy arrays between calls, so any interpreter can run any step."""

from __future__ import annotations

import os
import queue
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from studio.errors import BundleError
from studio.runtimes.graph_state import GraphState, NumpyStateMethods, empty_cache, pad_source


class TFLiteRuntime(NumpyStateMethods):
    @classmethod
    def load(cls, bundle, variant, paths, model=None, threads: int | None = None):
        """`studio.runtimes.load_runtime`'s constructor: `paths` = [the variant's .tflite]."""
        return cls(paths[0], bundle.config.model, variant.name, threads)

    def __init__(self, path: Path, config, name: str = "tflite", threads: int | None = None,
                 pool_size: int | None = None):
        self.name = name
        self.path = Path(path)
        self.config = config
        self.threads = threads or os.cpu_count() or 1
        self.pool_size = pool_size or max(2, os.cpu_count() or 1)
        self._content = self.path.read_bytes()
        self._idle: queue.LifoQueue = queue.LifoQueue()
        self._created = 0
        self._lock = threading.Lock()
        runners = self._new_runners()  # fail now, naming the file, if it is not a valid model
        self.has_rows = "decode_rows" in runners
        # the batch-1 graphs take sources of exactly max_source_len tokens (or of a bucket's length: encode_<L>,
        # decode_step_<L>) and caches of max_target_len slots; the others any length and capacity
        self.static_source = int(runners["encode"].get_input_details()["source_ids"]["shape_signature"][1]) > 0
        self.static_cache = int(runners["decode_step"].get_input_details()["cache_k_0"]["shape_signature"][2]) > 0
        self.buckets = sorted(int(name[len("encode_"):]) for name in runners if name.startswith("encode_"))
        self._idle.put(runners)
        self._created = 1

    def _new_runners(self):
        from ai_edge_litert.interpreter import Interpreter  # deferred: only when a tflite backend is chosen

        from studio.quiet_tf import quiet_stderr  # deferred with LiteRT

        try:
            with quiet_stderr():
                interpreter = Interpreter(model_content=self._content, num_threads=self.threads)
                runners = {name: interpreter.get_signature_runner(name) for name in interpreter.get_signature_list()}
                runners["encode"](source_ids=np.zeros((1, self.config.max_source_len), np.int32))  # delegate set-up
                # (either kind of graph takes max_source_len; a first request then resizes the other kind)
        except Exception as error:  # LiteRT raises ValueError/RuntimeError for corrupt flatbuffers
            raise BundleError(self.path, f"not a valid TFLite model with encode/decode_step signatures ({error})",
                              f"studio export {self.path.parent.parent}") from None
        return runners

    @contextmanager
    def _runners(self):
        """Borrow an idle interpreter, make one while fewer than `pool_size` exist, else wait for one."""
        try:
            runners = self._idle.get_nowait()
        except queue.Empty:
            with self._lock:
                make = self._created < self.pool_size
                self._created += make
            if make:
                try:
                    runners = self._new_runners()
                except BaseException:
                    with self._lock:
                        self._created -= 1
                    raise
            else:
                runners = self._idle.get()
        try:
            yield runners
        finally:
            self._idle.put(runners)

    def encode(self, source_ids: np.ndarray) -> GraphState:
        length = np.shape(source_ids)[1]
        bucket = next((b for b in self.buckets if length <= b), None)  # static graphs: the shortest that holds it
        source = pad_source(source_ids, bucket or self.config.max_source_len, self.config.pad_id, self.static_source)
        with self._runners() as runners:
            outputs = runners[f"encode_{bucket}" if bucket else "encode"](source_ids=source)
        cross = {name: value for name, value in outputs.items() if name.startswith("cross_")}
        return GraphState(empty_cache(self.config, source.shape[0], self.static_cache), cross, outputs["source_mask"])

    def step(self, state: GraphState, tokens: np.ndarray, position: int):
        length = state.source_mask.shape[1]
        bucket = self.static_source and length < self.config.max_source_len
        return self._step(f"decode_step_{length}" if bucket else "decode_step", state, tokens,
                          np.array(position, np.int32))

    def step_rows(self, state: GraphState, tokens: np.ndarray, positions: np.ndarray):
        return self._step("decode_rows", state, tokens, np.asarray(positions, np.int32))

    def _step(self, signature: str, state: GraphState, tokens, position: np.ndarray):
        """Run decode_step[_<L>] (a scalar position) or decode_rows (one per row)."""
        if not self.static_cache:
            state = state.with_capacity(int(position.max()) + 1, self.config.max_target_len)
        with self._runners() as runners:
            run = runners.get(signature)
            if run is None:  # a graph exported before decode_rows existed, or a batch-1 graph
                raise BundleError(self.path, "has no decode_rows signature (needed to batch requests)",
                                  f"studio export {self.path.parent.parent}")
            outputs = run(tokens=np.asarray(tokens, np.int32), position=position, source_mask=state.source_mask,
                          **state.cache, **state.cross)
        cache = {name: outputs[f"new_{name}"] for name in state.cache}
        return outputs["logits"], GraphState(cache, state.cross, state.source_mask,
                                             max(state.filled, int(position.max()) + 1))
