"""Masked cross-entropy with label smoothing, averaged over real target tokens (not over padding, which
is what a `reduce_mean` after masking does — a tutorial bug).

Smoothed loss per token = (1-eps) * NLL + eps * mean over the vocabulary of -log p. Both terms come from
logsumexp, so no [B,T,V] one-hot tensor is built.
"""

import tensorflow as tf


def token_losses(logits, labels, label_smoothing: float):
    """logits [B,T,V], labels [B,T] -> per-token smoothed loss and plain NLL, [B,T] each."""
    logits = tf.cast(logits, tf.float32)
    nll = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    if not label_smoothing:
        return nll, nll
    uniform = tf.reduce_logsumexp(logits, axis=-1) - tf.reduce_mean(logits, axis=-1)
    return (1.0 - label_smoothing) * nll + label_smoothing * uniform, nll


def masked_sums(logits, labels, pad_id: int, label_smoothing: float):
    """Sums over non-padding tokens: (smoothed loss, NLL, correct predictions, token count)."""
    mask = tf.cast(tf.not_equal(labels, pad_id), tf.float32)
    smoothed, nll = token_losses(logits, labels, label_smoothing)
    predictions = tf.argmax(logits, axis=-1, output_type=labels.dtype)
    correct = tf.cast(tf.equal(predictions, labels), tf.float32) * mask
    return (tf.reduce_sum(smoothed * mask), tf.reduce_sum(nll * mask), tf.reduce_sum(correct),
            tf.reduce_sum(mask))


def masked_loss(labels, logits, pad_id: int = 0, label_smoothing: float = 0.0):
    """Mean smoothed loss per real token (Keras `loss(y_true, y_pred)` order, for `model.fit`)."""
    labels = tf.cast(labels, tf.int32)  # model.fit hands y_true over as float
    loss_sum, _, _, count = masked_sums(logits, labels, pad_id, label_smoothing)
    return loss_sum / tf.maximum(count, 1.0)
