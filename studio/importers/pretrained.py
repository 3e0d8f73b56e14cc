"""`studio import`: a pretrained translator made elsewhere, read by the reader of its layout and written as a
bundle by the one conversion (`studio.importers.marian.write_bundle`):

- a Marian / OPUS-MT release, its folder or zip (`studio.importers.marian`);
- a Hugging Face MarianMT folder or zip (`studio.importers.huggingface`), or a model id on the Hugging Face Hub,
  downloaded into the user cache first (`studio.importers.hub`)."""

from __future__ import annotations

import contextlib
import re
import tempfile
import zipfile
from pathlib import Path

from studio import library
from studio.errors import StudioError
from studio.importers import hub, huggingface
from studio.importers.marian import Pretrained, read_release, write_bundle

MAX_LENGTH = 256  # tokens per source and per output unless asked otherwise (the decode cache's capacity)


def import_pretrained(source, out: Path, max_length: int = MAX_LENGTH, compact: bool = False, progress=print,
                      hub_url: str | None = None, named: str | None = None, revision: str = hub.MAIN) -> Path:
    """Convert `source` (a Marian release's folder or zip, a Hugging Face MarianMT folder or zip, or a Hugging Face
    model id, downloaded at `revision` from `hub_url` into the user cache first) into a bundle at `out` (which must
    not exist); returns `out`. `named`: the name `source` had where the user chose it (an upload's file name).
    StudioError says in one sentence what is missing or cannot be represented."""
    out = Path(out)
    if out.exists():
        raise StudioError(f"{out} exists already; choose another --name or --out")
    if not 4 <= max_length <= 1024:
        raise StudioError(f"the longest source and output must be between 4 and 1024 tokens, not {max_length}")
    hub.check_revision(revision)
    if hub.is_model_id(source):
        name = hub.model_id(source)
        source_text = name if revision == hub.MAIN else f"{name}@{revision}"
        source = hub.download(name, progress=progress, base_url=hub_url or hub.HUB_URL, revision=revision)
    elif revision != hub.MAIN:
        raise StudioError(f"{source} is a folder or zip here, and a revision is for a Hugging Face model id "
                          "(OWNER/NAME) only")
    else:
        source = Path(source)
        name, source_text = (named, named) if named else (source.name, str(source.resolve()))
    with opened(source) as folder:
        progress(f"Reading {name}...")
        pretrained = read(folder, name)
        return write_bundle(pretrained, out, max_length, compact, source_text, progress)


@contextlib.contextmanager
def opened(source: Path):
    """The folder of `source` (a folder, or a zip unpacked into a temporary folder for the duration)."""
    source = Path(source)
    if source.is_dir():
        yield source
        return
    if not source.is_file():
        raise StudioError(f"{source}: no such folder or zip (a Marian release: decoder.yml, the .npz, the vocabulary "
                          ".yml, source.spm and target.spm; or a Hugging Face MarianMT folder: config.json, "
                          "model.safetensors, vocab.json, source.spm and target.spm; or a Hugging Face model id)")
    if not zipfile.is_zipfile(source):
        raise StudioError(f"{source} is neither a folder nor a zip of a Marian release")
    with zipfile.ZipFile(source) as archive, tempfile.TemporaryDirectory(prefix="studio-import-") as temp:
        for member in archive.namelist():
            if member.startswith(("/", "\\")) or ".." in Path(member).parts:
                raise StudioError(f"{source}: the zip holds a file outside its own folder ({member}); not unpacked")
        archive.extractall(temp)
        folders = [p.parent for name in ("decoder.yml", "config.json") for p in Path(temp).rglob(name)]
        yield min(folders or [Path(temp)], key=lambda p: len(p.parts))


def read(folder: Path, name: str) -> Pretrained:
    """The model in `folder`, by the reader of its layout."""
    if huggingface.is_folder(folder):
        return huggingface.read_folder(folder, name)
    return read_release(folder, name)


def library_target(source, name: str | None = None) -> Path:
    """The folder an import of `source` named `name` (default: the folder's or zip's name, or the model id's, made
    unique) gets in the model library; StudioError for a name a model has already."""
    if name:
        name = library.check_name(name)
        if any(entry.name.lower() == name.lower() for entry in library.list_models()):
            raise StudioError(f"a model named {name!r} exists already; choose another name")
    else:
        given = re.sub(r"\.zip$", "", re.split(r"[\\/]", str(source).rstrip("/\\"))[-1], flags=re.IGNORECASE)
        name = library.unique_name(given or "marian")
    return library.models_dir() / name
