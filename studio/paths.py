"""Where Transformer Studio keeps things: the one module that reads folder environment variables.

    what                                 variable              default (platformdirs, per OS)
    your models, library.json, jobs/     STUDIO_DATA_DIR       the user data folder (~/.local/share/transformer-studio)
    training corpora                     STUDIO_CORPORA_DIR    none: `--data-dir`, ../shared/data, the download cache
    exports, downloads, npm packages     STUDIO_CACHE_DIR      the user cache folder (~/.cache/transformer-studio)
    the shipped bundles                  STUDIO_ASSETS         the checkout's assets/ or the installed studio_assets

Before there was STUDIO_CORPORA_DIR, `studio data` advised pointing STUDIO_DATA_DIR at a corpus folder; a folder
that holds corpora and none of the app's own files is still searched for corpora (this release only), with a
warning, and the app's models go to the default user data folder instead of among the data."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import platformdirs

APP = "transformer-studio"
DATA_VARIABLE, CORPORA_VARIABLE, CACHE_VARIABLE, ASSETS_VARIABLE = (
    "STUDIO_DATA_DIR", "STUDIO_CORPORA_DIR", "STUDIO_CACHE_DIR", "STUDIO_ASSETS")
_warned: set[str] = set()


def _variable(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def _has(folder: Path, names) -> bool:
    try:
        return any((folder / name).exists() for name in names)
    except OSError:  # a folder this user cannot look into holds nothing usable
        return False


def has_corpora(folder: Path) -> bool:
    """Whether `folder` holds training data laid out as `studio data` lists it."""
    return _has(folder, ("chatbot/ChatbotData.csv", "ChatbotData.csv", "koen"))


def holds_corpora(folder: Path) -> bool:
    """Whether `folder` is laid out as training data rather than as the app's own folder."""
    return has_corpora(folder) and not _has(folder, ("models", "library.json", "jobs"))


def _corpus_folder_as_data_dir() -> Path | None:
    """STUDIO_DATA_DIR when it names a corpus folder and none of the app's files (the old advice), warned about
    once."""
    given = _variable(DATA_VARIABLE)
    if given is None or not holds_corpora(given):
        return None
    if str(given) not in _warned:
        _warned.add(str(given))
        warnings.warn(f"{DATA_VARIABLE}={given} holds training data, not the app's models: set "
                      f"{CORPORA_VARIABLE}={given} for training data (this release still finds it there) and leave "
                      f"{DATA_VARIABLE} unset or pointing at a folder of its own; your models, library and training "
                      f"jobs are kept in {_default_data_dir()} meanwhile", UserWarning, stacklevel=3)
    return given


def _default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP))


def data_dir() -> Path:
    """The user's own models, the library's choices and training jobs."""
    given = _variable(DATA_VARIABLE)
    if given is None or _corpus_folder_as_data_dir() is not None:
        return _default_data_dir()
    return given


def corpora_dir() -> Path | None:
    """The folder of training corpora the user named: STUDIO_CORPORA_DIR, else (this release only) a STUDIO_DATA_DIR
    that holds corpora, as the old advice had it (with the app's own files beside them, or not)."""
    given = _variable(CORPORA_VARIABLE)
    if given is not None:
        return given
    data = _variable(DATA_VARIABLE)
    return _corpus_folder_as_data_dir() or (data if data is not None and has_corpora(data) else None)


def cache_dir() -> Path:
    """Re-creatable files: exports of models, downloaded corpora, the web page's npm packages."""
    return _variable(CACHE_VARIABLE) or Path(platformdirs.user_cache_dir(APP))


def downloads_dir() -> Path:
    """Where `studio data --download` (and the Train tab) put the public corpora."""
    return cache_dir() / "data"


def assets_dir() -> Path | None:
    """The shipped bundles' folder when STUDIO_ASSETS names one (else the package's own: `studio.bundle`)."""
    return _variable(ASSETS_VARIABLE)
