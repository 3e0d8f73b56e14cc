"""Attention masks, in the tutorials' convention: 1.0 where attention is NOT allowed; they are added to
the scores as `mask * -1e9` before the softmax. Shapes broadcast against scores `[B, heads, Tq, Tk]`.
Reshapes instead of `x[:, None, None, :]`: TFLite's builtin StridedSlice rejects new-axis masks."""

import tensorflow as tf

NEG_INF = -1e9


def padding_mask(ids, pad_id: int = 0):
    """[B, T] ids -> [B, 1, 1, T], 1.0 at padding positions."""
    mask = tf.cast(tf.equal(ids, pad_id), tf.float32)
    return tf.reshape(mask, [tf.shape(ids)[0], 1, 1, tf.shape(ids)[1]])


def look_ahead_mask(length):
    """[T, T], 1.0 above the diagonal: position i may not look at positions j > i."""
    return 1.0 - tf.linalg.band_part(tf.ones([length, length]), -1, 0)


def decoder_self_mask(target_ids, pad_id: int = 0):
    """Look-ahead mask combined with the target padding mask (by max), [B, 1, T, T]."""
    length = tf.shape(target_ids)[1]
    return tf.maximum(tf.reshape(look_ahead_mask(length), [1, 1, length, length]), padding_mask(target_ids, pad_id))


def cache_mask(position, capacity: int):
    """For one decode step at `position`: [1, 1, 1, capacity], 1.0 at cache slots not yet written."""
    mask = tf.cast(tf.range(capacity) > position, tf.float32)
    return tf.reshape(mask, [1, 1, 1, capacity])
