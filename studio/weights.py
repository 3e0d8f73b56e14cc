"""Save and load model variables as `.npz` keyed by each variable's path, written atomically.
Bundles store weights compactly (`compact_arrays`) and load them back as floats."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from studio.files import atomic_write_bytes


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def variables_to_arrays(variables) -> dict[str, np.ndarray]:
    arrays = {variable.path: np.asarray(variable.numpy()) for variable in variables}
    if len(arrays) != len(variables):
        raise ValueError("variable paths are not unique; cannot save by name")
    return arrays


# An embedding matrix (one row per vocabulary entry, also the output projection when tied) is the largest part of
# a small model: stored as int8 with a float32 scale per row it takes about half the bytes of float16, and the dev
# scores stay within noise (docs/chatbot-training.md, "Three members in the budget"; metrics.json's figures are
# measured before saving, on the float32 weights). Every other weight is float16.
ROW_SCALE = ".row_scale"
EMBEDDINGS = ("source_embedding/embeddings", "target_embedding/embeddings")  # how their variable paths end


def _stored_as_int8_rows(name: str, value: np.ndarray) -> bool:
    return value.dtype.kind == "f" and value.ndim == 2 and name.endswith(EMBEDDINGS)


def compact_arrays(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Float arrays as stored in a bundle: embedding matrices as int8 rows beside `<name>.row_scale`
    (float32, one per row), the rest as float16; `load_npz` reads either back as floats."""
    compact = {}
    for name, value in arrays.items():
        if _stored_as_int8_rows(name, value):
            value = value.astype(np.float32)
            scale = np.abs(value).max(axis=1, keepdims=True) / 127
            scale[scale == 0] = 1  # an all-zero row (padding) stays zero
            compact[name] = np.clip(np.round(value / scale), -127, 127).astype(np.int8)
            compact[name + ROW_SCALE] = scale
        else:
            compact[name] = value.astype(np.float16) if value.dtype.kind == "f" else value
    return compact


def _expanded(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    for scale_name in [name for name in arrays if name.endswith(ROW_SCALE)]:
        name = scale_name[: -len(ROW_SCALE)]
        scale = arrays.pop(scale_name)
        matrix = arrays.get(name)
        if matrix is None or matrix.dtype != np.int8 or matrix.ndim != 2 or scale.shape != (len(matrix), 1):
            raise ValueError(f"{scale_name} does not scale the rows of an int8 {name}")
        arrays[name] = matrix.astype(np.float32) * scale.astype(np.float32)
    return arrays


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """Raises ValueError with a short reason if the file is not a readable npz archive."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as error:
        raise ValueError(f"not a readable weights archive ({type(error).__name__}: {error})") from None
    return _expanded(arrays)


def assign_arrays(variables, arrays: dict[str, np.ndarray]) -> None:
    """Assign by path; every variable must be present with the right shape."""
    missing = [v.path for v in variables if v.path not in arrays]
    if missing:
        raise ValueError(f"{len(missing)} variable(s) missing, e.g. {missing[0]}")
    for variable in variables:
        value = arrays[variable.path]
        if tuple(value.shape) != tuple(variable.shape):
            raise ValueError(f"{variable.path} has shape {value.shape}, the model expects {tuple(variable.shape)}")
        variable.assign(value.astype(variable.dtype))
