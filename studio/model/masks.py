"""Attention masks, in the tutorials' convention: 1.0 where attention is NOT allowed; they are added to
the scores as `mask * -1e9` before the softmax. Shapes broadcast against scores `[B, heads, Tq, Tk]`.
Reshapes instead of `x[:, None, None, :]`: TFLite's builtin StridedSlice rejects new-axis masks.
Written with `keras.ops`, so the model runs on the TensorFlow (default), JAX or PyTorch backend."""

from keras import ops

NEG_INF = -1e9


def padding_mask(ids, pad_id: int = 0):
    """[B, T] ids -> [B, 1, 1, T], 1.0 at padding positions."""
    mask = ops.cast(ops.equal(ids, pad_id), "float32")
    return ops.reshape(mask, (-1, 1, 1, ops.shape(ids)[1]))


def look_ahead_mask(length):
    """[T, T], 1.0 above the diagonal: position i may not look at positions j > i."""
    rows = ops.expand_dims(ops.arange(length), 1)
    cols = ops.expand_dims(ops.arange(length), 0)
    return ops.cast(ops.greater(cols, rows), "float32")


def decoder_self_mask(target_ids, pad_id: int = 0):
    """Look-ahead mask combined with the target padding mask (by max), [B, 1, T, T]."""
    length = ops.shape(target_ids)[1]
    return ops.maximum(ops.reshape(look_ahead_mask(length), (1, 1, length, length)),
                       padding_mask(target_ids, pad_id))


def cache_mask(position, capacity: int):
    """For one decode step at `position` (a scalar, or one per row [B]): [1 or B, 1, 1, capacity], 1.0 at cache
    slots not yet written."""
    mask = ops.cast(ops.greater(ops.arange(capacity), ops.reshape(position, (-1, 1))), "float32")
    return ops.expand_dims(ops.expand_dims(mask, 1), 1)  # `capacity` may be a tensor (a dynamic cache)
