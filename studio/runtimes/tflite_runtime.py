"""LiteRT (TFLite) runtime over `model*.tflite` (signatures `encode` and `decode_step`).

A LiteRT interpreter is not thread-safe, so each thread gets its own interpreter over the same model
bytes: concurrent users of the UI decode in parallel without sharing one."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from studio.errors import BundleError
from studio.runtimes.graph_state import GraphState, empty_cache, pad_source


class TFLiteRuntime:
    def __init__(self, path: Path, config, name: str = "tflite", threads: int | None = None):
        self.name = name
        self.path = Path(path)
        self.config = config
        self.threads = threads or os.cpu_count() or 1
        self._content = self.path.read_bytes()
        self._local = threading.local()
        self._runners()  # fail now, naming the file, if it is not a valid model

    def _runners(self):
        if not hasattr(self._local, "runners"):
            from ai_edge_litert.interpreter import Interpreter

            from studio.quiet_tf import quiet_stderr

            try:
                with quiet_stderr():
                    interpreter = Interpreter(model_content=self._content, num_threads=self.threads)
                    runners = (interpreter.get_signature_runner("encode"),
                               interpreter.get_signature_runner("decode_step"))
                    runners[0](source_ids=np.zeros((1, self.config.max_source_len), np.int32))  # delegate set-up
            except Exception as error:  # LiteRT raises ValueError/RuntimeError for corrupt flatbuffers
                raise BundleError(self.path, f"not a valid TFLite model with encode/decode_step signatures ({error})",
                                  f"studio export {self.path.parent.parent}") from None
            self._local.runners = runners
        return self._local.runners

    def encode(self, source_ids: np.ndarray) -> GraphState:
        encode, _ = self._runners()
        source = pad_source(source_ids, self.config.max_source_len, self.config.pad_id)
        outputs = encode(source_ids=source)
        cross = {name: value for name, value in outputs.items() if name.startswith("cross_")}
        return GraphState(empty_cache(self.config, source.shape[0]), cross, outputs["source_mask"])

    def step(self, state: GraphState, tokens: np.ndarray, position: int):
        _, decode_step = self._runners()
        outputs = decode_step(tokens=np.asarray(tokens, np.int32), position=np.array(position, np.int32),
                              source_mask=state.source_mask, **state.cache, **state.cross)
        cache = {name: outputs[f"new_{name}"] for name in state.cache}
        return outputs["logits"], GraphState(cache, state.cross, state.source_mask)

    def reorder(self, state: GraphState, indices) -> GraphState:
        return state.reorder(indices)
