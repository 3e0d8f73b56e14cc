"""The functions the exported graphs hold, traced from the Keras model with fixed shapes.

encode(source_ids int32 [B, S])
    -> source_mask float32 [B, S] (1 at padding), cross_k_<i>, cross_v_<i> float32 [B, heads, S, head_dim]
decode_step(tokens int32 [B], position int32 [], cache_k_<i>, cache_v_<i> float32 [B, heads, C, head_dim],
            cross_k_<i>, cross_v_<i>, source_mask)
    -> logits float32 [B, V], new_cache_k_<i>, new_cache_v_<i> (the caches with this step written at
       `position`; ONNX forbids an output named like an input, hence the prefix)
decode_rows(tokens int32 [B], position int32 [B], ...)  (graphs of any batch size; not the batch-1 ones)
    -> as decode_step, each row at its own position: requests at different points of their outputs decode
       together (`studio.scheduler`). A row's outputs equal those of decode_step at that position.

B, S and C are dynamic in the graphs of any batch size. The runtimes pad a batch's sources only to its
longest, rounded up to a multiple of `SOURCE_STEP`, and start the cache small, growing it by `CACHE_STEP` slots
as the outputs grow (`studio.runtimes.graph_state`): the encoder's cost follows the input (a 15-piece sentence no
longer pays for 128) and each step's the output so far, and the few distinct shapes let TFLite and ONNX Runtime
reuse their buffers. The batch-1 graphs of phones and the web page keep every shape static (LiteRT.js needs
that): B = 1, S = max_source_len, C = max_target_len; and, so that a short source is not encoded at 128
positions there either, `encode_<L>` and `decode_step_<L>` for the shorter source lengths L of `source_buckets`
(two of 16, 32, 64...), sharing the weights: a runtime picks the smallest L that holds the source.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import tensorflow as tf

from studio.runtimes.graph_state import source_buckets
from studio.variants import input_names, source_hashes


class DecoderModule(tf.Module):
    def __init__(self, model, batch: int | None = None):
        """`batch`: trace with this fixed batch size, S = max_source_len and C = max_target_len (every shape
        static: LiteRT.js needs that), or any batch, source length and cache capacity (None)."""
        super().__init__(name="transformer_studio")
        self.model = model
        # Keras 3 variables are invisible to tf.Module tracking; without this list the converters cannot
        # find (and freeze) the weights and TFLite would keep uninitialised VAR_HANDLE ops instead.
        self.weights = [variable.value for variable in model.weights]
        c = model.config
        self.num_layers = c.cache_depth
        self.names = input_names(c.cache_depth)
        self.batch = batch
        S, C = (c.max_source_len, c.max_target_len) if batch else (None, None)
        # autograph=False: the model's code has no Python control flow on tensors, and converting it cost ~1 s
        # of the first trace in a process (the first reply on the tf backend, every `studio export`)
        self.encode, self.decode_step = self._functions(batch, S, C)
        # the same step with one position per row: rows at different positions decode together (studio.scheduler)
        specs = self.decode_step.input_signature
        self.decode_rows = tf.function(self._decode_step, input_signature=[
            specs[0], tf.TensorSpec([batch], tf.int32, name="position"), *specs[2:]], autograph=False)
        # static graphs: also one encode/decode_step pair per shorter source length, sharing the weights
        self.bucket_functions = {}  # encode_<L>, decode_step_<L> (string keys: tf.Module tracks this dict)
        for length in source_buckets(S) if batch else []:
            encode, step = self._functions(batch, length, C)
            self.bucket_functions.update({f"encode_{length}": encode, f"decode_step_{length}": step})

    def _functions(self, B, S, C):
        """(encode, decode_step) traced at batch B, source length S, cache capacity C (None: any)."""
        c = self.model.config
        h, d, names = c.num_heads, c.head_dim, self.names
        step_specs = [tf.TensorSpec([B], tf.int32, name="tokens"), tf.TensorSpec([], tf.int32, name="position")]
        step_specs += [tf.TensorSpec([B, h, C, d], tf.float32, name=n)
                       for n in names["decode_step"][2:2 + 2 * c.cache_depth]]
        step_specs += [tf.TensorSpec([B, h, S, d], tf.float32, name=n)
                       for n in names["decode_step"][2 + 2 * c.cache_depth: 2 + 4 * c.cache_depth]]
        step_specs += [tf.TensorSpec([B, S], tf.float32, name="source_mask")]
        encode = tf.function(self._encode, input_signature=[tf.TensorSpec([B, S], tf.int32, name="source_ids")],
                             autograph=False)
        return encode, tf.function(self._decode_step, input_signature=step_specs, autograph=False)

    def _encode(self, source_ids):
        encoder_output, mask = self.model.encode(source_ids)
        cross = [t for pair in self.model.cross_key_values(encoder_output) for t in pair]
        return dict(zip(self.names["encode_outputs"], [tf.reshape(mask, tf.shape(source_ids)), *cross], strict=True))

    def _decode_step(self, tokens, position, *tensors):
        L = self.num_layers
        caches, cross, source_mask = tensors[: 2 * L], tensors[2 * L: 4 * L], tensors[4 * L]
        pairs = lambda flat: [(flat[2 * i], flat[2 * i + 1]) for i in range(L)]  # noqa: E731
        batch, length = tf.shape(source_mask)[0], tf.shape(source_mask)[1]
        mask = tf.reshape(source_mask, [batch, 1, 1, length])
        logits, new_cache = self.model.decode_step(tokens, position, pairs(caches), pairs(cross), mask)
        flat = [t for pair in new_cache for t in pair]
        return dict(zip(self.names["decode_step_outputs"], [logits, *flat], strict=True))

    def functions(self) -> dict:
        """{signature name: tf.function}: encode, decode_step and decode_rows (graphs of any batch size), or
        encode, decode_step and each source-length bucket's encode_<L> and decode_step_<L> (static graphs)."""
        functions = {"encode": self.encode, "decode_step": self.decode_step}
        if self.batch:
            functions.update(self.bucket_functions)
        else:
            functions["decode_rows"] = self.decode_rows
        return functions

    def signature_names(self) -> list[str]:
        return list(self.functions())

    def save(self, directory) -> None:
        tf.saved_model.save(self, str(directory), signatures={
            name: function.get_concrete_function() for name, function in self.functions().items()})


# a bundle's weights and config (wherever its files lie) -> its DecoderModule at a batch size: the TF runtimes and
# the exporters of the same weights share one Keras model and its traced functions, so that another copy of the
# bundle, a backend chosen later or an export does not build and trace them again; two bundles are kept
_SHARED: OrderedDict[tuple, DecoderModule] = OrderedDict()
_SHARED_LOCK = threading.Lock()
_SHARED_KEEP = 4  # two bundles, each at any batch and at batch 1


def shared_module(bundle, batch: int | None = None) -> DecoderModule:
    """The DecoderModule of `bundle` (a loaded `studio.bundle.Bundle`) at `batch` (None: any batch), made once
    per process for its weights and config (`studio.variants.source_hashes`) and never changed: callers that
    change weights (training) make their own."""
    weights = tuple(sorted(source_hashes(bundle).items()))
    with _SHARED_LOCK:
        module = _SHARED.get((weights, batch))
        if module is None:
            model = next((m.model for (w, _), m in _SHARED.items() if w == weights), None) or bundle.build_model()
            module = _SHARED[(weights, batch)] = DecoderModule(model, batch)
            while len(_SHARED) > _SHARED_KEEP:
                _SHARED.popitem(last=False)
        _SHARED.move_to_end((weights, batch))
        return module
