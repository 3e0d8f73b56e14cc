"""Learning rates. The paper's, for training from scratch: lr = scale * d_model^-0.5 * min(step^-0.5,
step * warmup^-1.5). For fine-tuning a trained model: a linear warm-up to `constant` (times scale), then
flat; the paper's schedule would climb back to a from-scratch peak and overwrite what the model knew."""

import keras
import numpy as np


def transformer_lr(step, d_model: int, warmup_steps: int, scale: float = 1.0, constant: float = 0.0):
    step = np.maximum(np.asarray(step, dtype=np.float64), 1.0)
    if constant:
        return scale * constant * np.minimum(step / max(warmup_steps, 1), 1.0)
    return scale * d_model ** -0.5 * np.minimum(step ** -0.5, step * warmup_steps ** -1.5)


@keras.saving.register_keras_serializable(package="studio")
class TransformerSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, d_model: int, warmup_steps: int = 4000, scale: float = 1.0, constant: float = 0.0):
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        self.scale = scale
        self.constant = constant

    def __call__(self, step):
        step = keras.ops.maximum(keras.ops.cast(step, "float32") + 1.0, 1.0)  # optimizer steps count from 0
        if self.constant:
            return self.scale * self.constant * keras.ops.minimum(step / max(self.warmup_steps, 1), 1.0)
        return (self.scale * self.d_model ** -0.5
                * keras.ops.minimum(keras.ops.rsqrt(step), step * self.warmup_steps ** -1.5))

    def get_config(self):
        return {"d_model": self.d_model, "warmup_steps": self.warmup_steps, "scale": self.scale,
                "constant": self.constant}


ADAM = {"beta_1": 0.9, "beta_2": 0.98, "epsilon": 1e-9}  # the paper's


def make_optimizer(d_model: int, warmup_steps: int, scale: float = 1.0, constant: float = 0.0):
    """Adam(beta1 0.9, beta2 0.98, epsilon 1e-9) on the warm-up schedule, as in the paper (or on the fine-tune
    schedule when `constant` is set)."""
    return keras.optimizers.Adam(TransformerSchedule(d_model, warmup_steps, scale, constant), **ADAM)
