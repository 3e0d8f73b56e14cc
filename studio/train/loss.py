"""Masked cross-entropy with label smoothing, averaged over real target tokens (not over padding, which
is what a `reduce_mean` after masking does — a tutorial bug).

Smoothed loss per token = (1-eps) * NLL + eps * mean over the vocabulary of -log p: the smoothing term comes
from logsumexp and the mean logit, never from a smoothed [B,T,V] target. Written with `keras.ops` (any backend).
"""

from keras import ops


def token_losses(logits, labels, label_smoothing: float):
    """logits [B,T,V], labels [B,T] -> per-token smoothed loss and plain NLL, [B,T] each."""
    logits = ops.cast(logits, "float32")
    nll = ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    if not label_smoothing:
        return nll, nll
    uniform = ops.logsumexp(logits, axis=-1) - ops.mean(logits, axis=-1)
    return (1.0 - label_smoothing) * nll + label_smoothing * uniform, nll


def masked_sums(logits, labels, pad_id: int, label_smoothing: float):
    """Sums over non-padding tokens: (smoothed loss, NLL, correct predictions, token count)."""
    mask = ops.cast(ops.not_equal(labels, pad_id), "float32")
    smoothed, nll = token_losses(logits, labels, label_smoothing)
    predictions = ops.cast(ops.argmax(logits, axis=-1), labels.dtype)
    correct = ops.cast(ops.equal(predictions, labels), "float32") * mask
    return ops.sum(smoothed * mask), ops.sum(nll * mask), ops.sum(correct), ops.sum(mask)


def masked_loss(labels, logits, pad_id: int = 0, label_smoothing: float = 0.0):
    """Mean smoothed loss per real token (Keras `loss(y_true, y_pred)` order, for `model.fit`)."""
    labels = ops.cast(labels, "int32")  # model.fit hands y_true over as float
    loss_sum, _, _, count = masked_sums(logits, labels, pad_id, label_smoothing)
    return loss_sum / ops.maximum(count, 1.0)
