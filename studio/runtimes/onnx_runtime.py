"""ONNX Runtime over `encode*.onnx`, `decode_step*.onnx` and `decode_rows*.onnx` (one position per row:
`step_rows`). An InferenceSession may be called from several threads at once."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from studio.errors import BundleError
from studio.runtimes.graph_state import GraphState, NumpyStateMethods, empty_cache, pad_source


def _session(path: Path, threads: int):
    import onnxruntime as ort  # deferred: only when the onnx backend is chosen

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    # ORT's worker threads spin-wait after each run by default; between decode steps that burns the CPU
    # the rest of the process (other backends, other users' requests) needs
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types for bad files
        raise BundleError(path, f"not a valid ONNX model ({str(error).splitlines()[0][:200]})",
                          f"studio export {Path(path).parent.parent}") from None


class ONNXRuntime(NumpyStateMethods):
    @classmethod
    def load(cls, bundle, variant, paths, model=None, threads: int | None = None):
        """`studio.runtimes.load_runtime`'s constructor: `paths` = the variant's encode, decode_step and (when it
        has one) decode_rows graphs."""
        return cls(paths[0], paths[1], bundle.config.model, variant.name, threads,
                   rows_path=paths[2] if len(paths) > 2 else None)

    def __init__(self, encode_path: Path, step_path: Path, config, name: str = "onnx", threads: int | None = None,
                 rows_path: Path | None = None):
        self.name = name
        self.config = config
        self.threads = threads or os.cpu_count() or 1
        self._encode = _session(encode_path, self.threads)
        self._step_session = _session(step_path, self.threads)
        self._step_path = Path(step_path)
        self._encode_outputs = [o.name for o in self._encode.get_outputs()]
        # graphs exported before shapes were dynamic take exactly max_source_len tokens, max_target_len slots
        self.static_source = isinstance(self._encode.get_inputs()[0].shape[1], int)
        cache = next(i for i in self._step_session.get_inputs() if i.name == "cache_k_0")
        self.static_cache = isinstance(cache.shape[2], int)
        self._step_outputs = [o.name for o in self._step_session.get_outputs()]
        self._rows_path = rows_path
        self.has_rows = rows_path is not None and Path(rows_path).is_file()
        self._rows = None  # decode_rows: made when the scheduler first batches requests on this backend
        self._rows_guard = threading.Lock()

    def encode(self, source_ids: np.ndarray) -> GraphState:
        source = pad_source(source_ids, self.config.max_source_len, self.config.pad_id, self.static_source)
        outputs = dict(zip(self._encode_outputs, self._encode.run(self._encode_outputs, {"source_ids": source})))
        cross = {name: value for name, value in outputs.items() if name.startswith("cross_")}
        return GraphState(empty_cache(self.config, source.shape[0], self.static_cache), cross, outputs["source_mask"])

    def step(self, state: GraphState, tokens: np.ndarray, position: int):
        return self._step(self._step_session, state, tokens, np.array(position, np.int32))

    def step_rows(self, state: GraphState, tokens: np.ndarray, positions: np.ndarray):
        return self._step(self._rows_session(), state, tokens, np.asarray(positions, np.int32))

    def _step(self, session, state: GraphState, tokens, position: np.ndarray):
        if not self.static_cache:
            state = state.with_capacity(int(position.max()) + 1, self.config.max_target_len)
        feed = {"tokens": np.asarray(tokens, np.int32), "position": position,
                "source_mask": state.source_mask, **state.cache, **state.cross}
        outputs = dict(zip(self._step_outputs, session.run(self._step_outputs, feed)))
        cache = {name: outputs[f"new_{name}"] for name in state.cache}
        return outputs["logits"], GraphState(cache, state.cross, state.source_mask,
                                             max(state.filled, int(position.max()) + 1))

    def _rows_session(self):
        if self._rows is not None:
            return self._rows
        with self._rows_guard:
            if self._rows is None:
                if self._rows_path is None:
                    raise BundleError(self._step_path, "no decode_rows graph beside it (needed to batch requests)")
                self._rows = _session(self._rows_path, self.threads)
            return self._rows
