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

S is the model's max_source_len (sources are padded to it), C its max_target_len (the cache capacity);
B is dynamic. Static S and C keep every shape fixed between calls: TFLite and ONNX Runtime reuse buffers.
"""

from __future__ import annotations

import tensorflow as tf

from studio.variants import input_names


class DecoderModule(tf.Module):
    def __init__(self, model, batch: int | None = None):
        """`batch`: trace with this fixed batch size (every shape static: LiteRT.js needs that) or any (None)."""
        super().__init__(name="transformer_studio")
        self.model = model
        # Keras 3 variables are invisible to tf.Module tracking; without this list the converters cannot
        # find (and freeze) the weights and TFLite would keep uninitialised VAR_HANDLE ops instead.
        self.weights = [variable.value for variable in model.weights]
        c = model.config
        self.num_layers = c.cache_depth
        S, C, h, d = c.max_source_len, c.max_target_len, c.num_heads, c.head_dim
        B = batch
        cache = tf.TensorSpec([B, h, C, d], tf.float32)
        cross = tf.TensorSpec([B, h, S, d], tf.float32)
        names = self.names = input_names(c.cache_depth)
        step_specs = [tf.TensorSpec([B], tf.int32, name="tokens"), tf.TensorSpec([], tf.int32, name="position")]
        step_specs += [tf.TensorSpec(cache.shape, tf.float32, name=n)
                       for n in names["decode_step"][2:2 + 2 * c.cache_depth]]
        step_specs += [tf.TensorSpec(cross.shape, tf.float32, name=n)
                       for n in names["decode_step"][2 + 2 * c.cache_depth: 2 + 4 * c.cache_depth]]
        step_specs += [tf.TensorSpec([B, S], tf.float32, name="source_mask")]
        # autograph=False: the model's code has no Python control flow on tensors, and converting it cost ~1 s
        # of the first trace in a process (the first reply on the tf backend, every `studio export`)
        self.encode = tf.function(self._encode, input_signature=[tf.TensorSpec([B, S], tf.int32, name="source_ids")],
                                  autograph=False)
        self.decode_step = tf.function(self._decode_step, input_signature=step_specs, autograph=False)
        # the same step with one position per row: rows at different positions decode together (studio.scheduler)
        self.decode_rows = tf.function(self._decode_step, input_signature=[
            step_specs[0], tf.TensorSpec([B], tf.int32, name="position"), *step_specs[2:]], autograph=False)

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

    def save(self, directory) -> None:
        tf.saved_model.save(self, str(directory), signatures={
            "encode": self.encode.get_concrete_function(),
            "decode_step": self.decode_step.get_concrete_function(),
            "decode_rows": self.decode_rows.get_concrete_function()})
