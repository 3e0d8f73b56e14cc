"""Save and load model variables as `.npz` keyed by each variable's path, written atomically.
Bundles store float16 copies (half the size) and load them back as float32."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from studio.files import atomic_write_bytes


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    import io

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def variables_to_arrays(variables, dtype=None) -> dict[str, np.ndarray]:
    arrays = {}
    for variable in variables:
        value = np.asarray(variable.numpy())
        arrays[variable.path] = value.astype(dtype) if dtype is not None and value.dtype.kind == "f" else value
    if len(arrays) != len(variables):
        raise ValueError("variable paths are not unique; cannot save by name")
    return arrays


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """Raises ValueError with a short reason if the file is not a readable npz archive."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as error:
        raise ValueError(f"not a readable weights archive ({type(error).__name__}: {error})") from None


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
