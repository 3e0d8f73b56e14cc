"""A Hugging Face model id (`studio import Helsinki-NLP/opus-mt-ko-en`) downloaded into the user cache, for the
Hugging Face reader (`studio.importers.huggingface`) to import.

Each file comes from `{base}/{id}/resolve/{revision}/{file}` (the revision: a branch, tag or commit, `main` unless
named) with plain urllib (the Hub's client is not needed) into `FILE.part`, renamed to FILE once whole: a download
cut short leaves no half file under a real name, and the next import of the id goes on from where the `.part` file
ends (an HTTP Range request). Weights saved in shards come as their index, then each shard it names. A model whose
files are all in the cache is imported from there, without the network: delete its folder (`model_folder`, one per
revision) to download it anew."""

from __future__ import annotations

import http.client
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from studio import paths
from studio.errors import StudioError
from studio.importers.huggingface import FILES, INDEX, WEIGHTS, read_index, shards

HUB_URL = "https://huggingface.co"
MAIN = "main"  # the revision downloaded unless another is named
# a branch, tag or commit as the Hub takes them ("v1.0", "refs/pr/1", 40 hex digits): git's ref names without "..", a
# leading or doubled "/", spaces or characters a URL or a folder name would need escaped
REVISION = re.compile(r"[A-Za-z0-9][\w.-]{0,99}(?:/[\w.-]{1,100}){0,4}")
OPTIONAL = ("tokenizer_config.json", "generation_config.json", "target_vocab.json", "README.md", "LICENSE")
MODEL_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")
CHUNK = 1 << 20
TIMEOUT_S = 30


def model_id(source) -> str:
    return source.as_posix() if isinstance(source, Path) else str(source)


def is_model_id(source) -> bool:
    """Whether `source` names a model on the Hub (owner/name) rather than a folder or zip here."""
    text = model_id(source)
    return bool(MODEL_ID.fullmatch(text)) and ".." not in text and not Path(source).exists()


def check_revision(revision: str) -> str:
    """`revision` if the Hub could have it (`REVISION`), else StudioError saying what one looks like."""
    if not (isinstance(revision, str) and REVISION.fullmatch(revision)) or ".." in revision or \
            revision.endswith((".", ".lock")):
        raise StudioError(f"{revision!r} is not a revision of a Hugging Face model: name a branch, tag or commit "
                          "(main, v1.0, refs/pr/1, a commit's hex digits) without spaces, \"..\" or other characters")
    return revision


def model_folder(model: str, revision: str = MAIN) -> Path:
    """Where `model`'s files at `revision` are kept: OWNER--NAME for main (the folder the studio always used), with
    "@REVISION" after it for another (its "/" as %2F), so that no revision is imported from another's files."""
    folder = model.replace("/", "--") + ("" if revision == MAIN else "@" + urllib.parse.quote(revision, safe=""))
    return paths.cache_dir() / "huggingface" / folder


def download(model: str, base_url: str = HUB_URL, progress=print, revision: str = MAIN) -> Path:
    """The folder of `model`'s files at `revision` (a branch, tag or commit) in the user cache, downloaded unless there
    already; StudioError when the model, the revision or a file it needs is not there, or the Hub cannot be reached
    (saying how to import a downloaded folder)."""
    folder = model_folder(model, check_revision(revision))
    if _complete(folder):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    at = "" if revision == MAIN else f" at revision {revision}"
    progress(f"Downloading {model}{at} from {base_url} into {folder}...")
    url = f"{base_url.rstrip('/')}/{urllib.parse.quote(model)}/resolve/{urllib.parse.quote(revision, safe='')}/"
    for file in ("config.json", *OPTIONAL, *(f for f in FILES if f not in ("config.json", WEIGHTS))):
        if fetch(url + file, folder / file, model, progress) or file in OPTIONAL:
            continue
        if file == "config.json":
            raise StudioError(f"{base_url} has no model {model}{at} (or it is private or gated: download its files "
                              "where you can log in, and import their folder)")
        raise StudioError(f"{model} has no {file}: it is not a MarianMT model (one has {', '.join(FILES)})")
    _download_weights(url, folder, model, progress)  # the weights last: a folder that has them has every file
    return folder


def _download_weights(url: str, folder: Path, model: str, progress) -> None:
    """model.safetensors, or the index of its shards and then each shard the index names."""
    if fetch(url + WEIGHTS, folder / WEIGHTS, model, progress):
        return
    if not fetch(url + INDEX, folder / INDEX, model, progress):
        raise StudioError(f"{model} has no {WEIGHTS} (its weights are only in PyTorch's or another format, which the "
                          f"studio does not read, and not in shards with {INDEX}): convert it where transformers and "
                          "PyTorch are installed (MarianMTModel.from_pretrained(ID).save_pretrained(FOLDER)) and "
                          "import FOLDER, or import the model's Marian release (its OPUS-MT zip) instead")
    for shard in shards(read_index(folder / INDEX, model)):
        if not fetch(url + shard, folder / shard, model, progress):
            raise StudioError(f"{model} has no {shard}, a shard of its weights that its {INDEX} names")


def _complete(folder: Path) -> bool:
    """Whether `folder` has every file an import reads: the weights whole, or each shard their index names."""
    if not all((folder / file).is_file() for file in FILES if file != WEIGHTS):
        return False
    if (folder / WEIGHTS).is_file():
        return True
    return (folder / INDEX).is_file() and all((folder / shard).is_file()
                                              for shard in shards(read_index(folder / INDEX, folder.name)))


def _offline(model: str, url: str, reason) -> StudioError:
    host = urllib.parse.urlsplit(url).netloc
    return StudioError(f"cannot reach {host} to download {model} ({reason}). Without the network, import a folder "
                       f"instead: its files ({', '.join(FILES)}) downloaded elsewhere from "
                       f"https://huggingface.co/{model}, or its OPUS-MT release zip: studio import FOLDER_OR_ZIP")


def fetch(url: str, target: Path, model: str, progress) -> bool:
    """`target` downloaded from `url` (True), or False when the server has no such file (404)."""
    if target.is_file():
        return True
    part = target.with_name(target.name + ".part")
    have = part.stat().st_size if part.is_file() else 0
    headers = {"User-Agent": "transformer-studio", **({"Range": f"bytes={have}-"} if have else {})}
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=TIMEOUT_S)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return False
        if error.code == 416 and have:  # the part file is no prefix of the file: start it again
            part.unlink()
            return fetch(url, target, model, progress)
        if error.code in (401, 403):
            raise StudioError(f"{model} needs a login to download (HTTP {error.code}: private or gated); download "
                              "its files where you can log in and import their folder") from None
        raise StudioError(f"downloading {target.name} of {model} failed: HTTP {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        raise _offline(model, url, getattr(error, "reason", None) or error) from None
    with response:
        if response.status != 206:  # the server sent the whole file
            have = 0
        length = response.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        _copy(response, part, have, total, f"{model}: {target.name}", progress)
    size = part.stat().st_size
    if total is not None and size != total:
        raise StudioError(f"the download of {model}: {target.name} stopped at {size:,} of {total:,} bytes; import "
                          f"{model} again to go on from there")
    os.replace(part, target)
    return True


def _copy(response, part: Path, have: int, total: int | None, what: str, progress) -> None:
    """The response's body appended to `part` (from its start when `have` is 0), a progress line at each tenth of a
    file over 1 MB."""
    shown = -1
    try:
        with part.open("ab" if have else "wb") as file:
            while chunk := response.read(CHUNK):
                file.write(chunk)
                have += len(chunk)
                tenth = have * 10 // total if total else -1
                if total and total > CHUNK and tenth > shown:
                    shown = tenth
                    progress(f"Downloading {what}: {have / 2**20:.1f} of {total / 2**20:.1f} MB")
    except (OSError, http.client.HTTPException) as error:  # a dropped connection, a full disk: the part file stays
        raise StudioError(f"the download of {what} stopped at {have:,} bytes ({error}); import the model again to "
                          "go on from there") from None
