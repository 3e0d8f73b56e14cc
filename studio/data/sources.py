"""Where training data is found, and which files a training mix uses.

Search order: `--data-dir`, `$STUDIO_CORPORA_DIR`, `../shared/data` (beside the project or the working
directory), then the download cache (`studio.paths.downloads_dir()`: `data/` in the user cache folder), into which
`studio data --download` and the Train tab fetch the public originals when there is internet.
"""

from __future__ import annotations

import http.client
import os
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from studio import paths
from studio.config import chatbot_preset
from studio.data.pipeline import CURRENT_SPLIT, split_train_dev
from studio.data.readers import Pair, read_chatbot_csv
from studio.errors import DataError
from studio.files import sha256_of
from studio.text.pipelines import pipeline_for

PROJECT_ROOT = Path(__file__).resolve().parents[2]

CHATBOT_URL = "https://raw.githubusercontent.com/songys/Chatbot_data/master/ChatbotData.csv"
PARK_URL = "https://raw.githubusercontent.com/jungyeul/korean-parallel-corpora/master/korean-english-news-v1/"
PARK_FILES = [f"korean-english-park.{split}.tar.gz" for split in ("train", "dev", "test")]


@dataclass(frozen=True)
class KoEnSource:
    name: str
    path: str  # relative to the data directory
    license: str
    commercial: bool
    domain: str


KOEN_SOURCES = {s.name: s for s in [
    KoEnSource("kss", "koen/train/kss.tsv", "CC BY-NC-SA 4.0 (KSS transcript)", False, "everyday textbook sentences"),
    KoEnSource("korsts", "koen/train/korsts.tsv", "KorSTS CC BY-SA 4.0; English from STS-B (per-source terms)",
               True, "captions, headlines, forum posts"),
    KoEnSource("kornli_xnli", "koen/train/kornli_xnli.tsv", "KorNLI CC BY-SA 4.0; XNLI English CC BY-NC 4.0",
               False, "fiction, letters, government, travel"),
    KoEnSource("pawsx", "koen/train/pawsx.tsv", "PAWS-X (free use, attribution to Google)", True, "Wikipedia"),
    KoEnSource("libreoffice_help", "koen/train/libreoffice_help.tsv", "MPL-2.0", True, "software help"),
    KoEnSource("libreoffice_ui", "koen/train/libreoffice_ui.tsv", "MPL-2.0", True, "software UI strings"),
    KoEnSource("bible_krv_web", "koen/train/bible_krv_web.tsv", "public domain", True, "Bible"),
    KoEnSource("gimp_help", "koen/train/gimp_help.tsv", "GFDL", True, "software help (noisy)"),
    KoEnSource("stylekqc", "koen/train/stylekqc.tsv", "CC BY-SA 4.0 (StyleKQC; English from kosp2e)", True,
               "spoken requests and questions, formal and informal"),
    KoEnSource("xpersona", "koen/train/xpersona.tsv", "MIT (XPersona); English from PersonaChat/ConvAI2", True,
               "casual chit-chat"),
    KoEnSource("tatoeba", "koen/train/tatoeba.tsv", "CC BY 2.0 FR (Tatoeba)", True, "everyday sentences"),
    KoEnSource("iwslt23_formality", "koen/train/iwslt23_formality.tsv", "CDLA-Sharing-1.0", True,
               "conversation (formal and informal Korean)"),
    KoEnSource("wmt24pp", "koen/train/wmt24pp.tsv", "Apache-2.0 (WMT24++)", True,
               "2024 social, literary and speech text"),
    KoEnSource("debian_faq", "koen/train/debian_faq.tsv", "Debian FAQ permission notice", True, "technical prose"),
    KoEnSource("park_train", "koen/korean-english-park.train.tar.gz", "korean-parallel-corpora news v1",
               True, "news (the tutorial's corpus; downloaded)"),
]}

# dev sets are for tuning; park_test is for reporting only (never tune on it)
EVAL_SETS = {"park_dev": "koen/dev/park_dev.tsv", "wmt24pp_news_dev": "koen/dev/wmt24pp_news_dev.tsv",
             "jhe_dev": "koen/dev/jhe_dev.tsv", "park_test": "koen/test/park_test.tsv"}
TUNING_SETS = ("park_dev", "wmt24pp_news_dev", "jhe_dev")

# English news for back-translation (research / non-commercial terms; never shipped, see its README)
EN_MONO = {"bbc": "en_mono/bbc_news_2004_2005.txt", "fnc1": "en_mono/fnc1_news_bodies_2014_2015.txt",
           "agnews": "en_mono/agnews_test_2004_2005.txt", "reuters": "en_mono/reuters21578_1987.txt"}


def candidate_data_dirs(explicit: str | Path | None = None) -> list[tuple[str, Path]]:
    candidates = []
    if explicit:
        candidates.append(("--data-dir", Path(explicit)))
    if paths.corpora_dir() is not None:
        candidates.append((f"${paths.CORPORA_VARIABLE}", paths.corpora_dir()))
    candidates.append(("../shared/data beside the project", PROJECT_ROOT.parent / "shared" / "data"))
    candidates.append(("../shared/data beside the working directory", Path.cwd().parent / "shared" / "data"))
    candidates.append(("download cache", paths.downloads_dir()))
    return candidates


WHERE = f"pass --data-dir DIR or set {paths.CORPORA_VARIABLE}=DIR"  # how a user names their corpus folder


def find_file(relative: str, data_dir: str | Path | None = None) -> Path | None:
    """The first existing `<candidate>/<relative>`; an explicit --data-dir is the only place looked at."""
    if data_dir:
        path = Path(data_dir) / relative
        return path if path.exists() else None
    for _, directory in candidate_data_dirs():
        if (directory / relative).exists():
            return directory / relative
    return None


def chatbot_csv(data_dir: str | Path | None = None) -> Path:
    for relative in ("chatbot/ChatbotData.csv", "ChatbotData.csv"):
        found = find_file(relative, data_dir)
        if found:
            return found
    looked = data_dir or ", ".join(str(d) for _, d in candidate_data_dirs())
    raise DataError(looked, f"ChatbotData.csv not found: {WHERE} (a folder holding chatbot/ChatbotData.csv), or "
                            f"download it (`studio data --download`, or the Train tab's download) from {CHATBOT_URL}")


def chatbot_split(data_dir: str | Path | None = None, config=None) -> tuple[list, list]:
    """ChatbotData as written (raw questions and answers, each pair once), split as a chatbot bundle's training
    split it, by its own `config.train` (split seed, fraction, split key; the chatbot preset's without a config):
    (the training side, the held-out side)."""
    settings = config.train if config is not None else chatbot_preset().train
    key = settings.dev_split if config is not None else CURRENT_SPLIT
    unique = {}
    for pair in read_chatbot_csv(chatbot_csv(data_dir)):
        unique.setdefault((pair.source.strip(), pair.target.strip()), pair)
    pairs = list(unique.values())
    if key == "pipeline-text":  # older bundles hashed their pipeline's normalized text: the same sides here
        normalize = pipeline_for(config.task).source
        keyed = [Pair(normalize(p.source), p.target, p.origin) for p in pairs]
        held_out = {id(k) for k in split_train_dev(keyed, settings.dev_fraction, settings.split_seed, key)[1]}
        return ([p for p, k in zip(pairs, keyed) if id(k) not in held_out],
                [p for p, k in zip(pairs, keyed) if id(k) in held_out])
    train, dev = split_train_dev(pairs, settings.dev_fraction, settings.split_seed, key)
    return train, dev


def chatbot_dev_pairs(data_dir: str | Path | None = None, config=None) -> list:
    """ChatbotData's held-out split (`chatbot_split`): the chatbot's own dev set, `studio eval chatbot` with no
    --test."""
    return chatbot_split(data_dir, config)[1]


def select_sources(spec: str | None) -> list[KoEnSource]:
    """`all` (the default: every bundled training file), `commercial-safe`, or a comma-separated list."""
    bundled = [s for s in KOEN_SOURCES.values() if s.name != "park_train"]
    if not spec or spec == "all":
        return bundled
    if spec == "commercial-safe":
        return [s for s in bundled if s.commercial]
    chosen = []
    for name in (part.strip() for part in spec.split(",") if part.strip()):
        if name not in KOEN_SOURCES:
            raise DataError("--sources", f"unknown source {name!r}; choose from {', '.join(KOEN_SOURCES)}, "
                                         "'all' or 'commercial-safe'")
        chosen.append(KOEN_SOURCES[name])
    return chosen


def koen_source_files(sources: list[KoEnSource], data_dir: str | Path | None = None) -> list[Path]:
    files = []
    for source in sources:
        found = find_file(source.path, data_dir)
        if found is None:
            hint = (f"run `studio data --download` to fetch it from {PARK_URL}" if source.name == "park_train"
                    else f"{WHERE} (a folder holding koen/train/*.tsv, this project's shared data; they cannot "
                         "be downloaded), or train on --sources park_train alone")
            raise DataError(source.path, f"training source {source.name!r} not found; {hint}")
        files.append(found)
    return files


def download(url: str, destination: Path, expected_sha256: str | None = None, timeout: float = 60,
             progress=None) -> Path:
    """Download to a temporary file, check its sha256, then move it into place (never half a file); `progress`
    hears (bytes so far, total bytes or 0 when the server does not say) as it goes.

    Without a pinned digest the first download's digest is recorded beside the file (`.sha256`) and later
    uses are checked against it, so silent corruption or a changed upstream file is noticed."""
    destination = Path(destination)
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(dir=destination.parent, prefix=destination.name + ".")
    except OSError as error:
        raise DataError(destination.parent, f"cannot write the download here ({error.strerror or error})") from None
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:
            total, done = int(response.headers.get("Content-Length") or 0), 0
            while chunk := response.read(1 << 16):
                out.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
        digest = sha256_of(Path(temp_name))
        if expected_sha256 and digest != expected_sha256:
            raise DataError(url, f"sha256 mismatch: got {digest}, expected {expected_sha256}")
        os.replace(temp_name, destination)
    except (OSError, http.client.HTTPException, ValueError) as error:  # a connection cut mid-way, a bad header
        raise DataError(url, f"download failed ({error}); without internet, copy the file to {destination}, or "
                             f"name a folder that holds it ({WHERE})") from None
    finally:
        if os.path.exists(temp_name):
            os.unlink(temp_name)
    Path(str(destination) + ".sha256").write_text(digest + "\n")
    return destination


def verify_recorded_checksum(path: Path) -> None:
    record = Path(str(path) + ".sha256")
    if record.exists() and sha256_of(path) != record.read_text().strip():
        raise DataError(path, "checksum differs from the one recorded at download; delete it and download again")


def download_chatbot_data(progress=None) -> Path:
    """ChatbotData.csv fetched into the download cache (where `chatbot_csv` looks), for the Train tab's button."""
    return download(CHATBOT_URL, paths.downloads_dir() / "chatbot" / "ChatbotData.csv", progress=progress)


def download_originals(target: Path | None = None) -> list[Path]:
    target = Path(target) if target else paths.downloads_dir()
    fetched = [download(CHATBOT_URL, target / "chatbot" / "ChatbotData.csv")]
    for name in PARK_FILES:
        fetched.append(download(PARK_URL + name, target / "koen" / name))
    return fetched
