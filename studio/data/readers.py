"""Corpus readers. Each returns a list of `Pair`s and raises `DataError` naming the file and line for
anything malformed: missing columns, mismatched line counts, undecodable bytes.

Formats: ChatbotData CSV (`Q,A,label`), TSV pairs (`korean<TAB>english`), paired `.ko`/`.en` line files,
and the korean-english-park `.tar.gz` layout (a tarball holding one `.ko` and one `.en` file).
"""

from __future__ import annotations

import csv
import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

from studio.errors import DataError
from studio.text.encoding import decode_text


@dataclass(frozen=True)
class Pair:
    source: str
    target: str
    origin: str = ""  # which file the pair came from (for source selection and reporting)


def _decode_lines(raw: bytes, path) -> list[str]:
    text, _, _ = decode_text(path, raw, "a text file")
    # only real line breaks: str.splitlines() would also split at form feeds, U+2028 and other separators,
    # and a translated file would then have more lines than the original
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _read_bytes(path) -> bytes:
    path = Path(path)
    if not path.is_file():
        raise DataError(path, "file not found")
    return path.read_bytes()


def read_text_lines(path, max_bytes: int | None = None) -> list[str]:
    """A UTF-8 text file's lines; DataError (naming the file and line) for a missing, too large, binary or
    wrongly encoded file."""
    path = Path(path)
    if max_bytes is not None and path.is_file() and path.stat().st_size > max_bytes:
        raise DataError(path, f"is {path.stat().st_size:,} bytes; the limit is {max_bytes:,}")
    return _decode_lines(_read_bytes(path), path)


def read_chatbot_csv(path) -> list[Pair]:
    """ChatbotData.csv: header `Q,A,label`; question -> answer."""
    lines = _decode_lines(_read_bytes(path), path)
    reader = csv.reader(io.StringIO("\n".join(lines)))
    try:
        header = next(reader)
    except StopIteration:
        raise DataError(path, "empty file; expected a header line `Q,A,label`", 1) from None
    columns = [name.strip() for name in header]
    missing = [name for name in ("Q", "A") if name not in columns]
    if missing:
        raise DataError(path, f"missing column(s) {', '.join(missing)}; header is {header!r}, expected Q,A,label", 1)
    q_index, a_index = columns.index("Q"), columns.index("A")
    origin = Path(path).name
    pairs = []
    for row in reader:
        line = reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) <= max(q_index, a_index):
            raise DataError(path, f"expected {len(columns)} columns, found {len(row)}", line)
        question, answer = row[q_index].strip(), row[a_index].strip()
        if question and answer:
            pairs.append(Pair(question, answer, origin))
    if not pairs:
        raise DataError(path, "no question/answer rows found")
    return pairs


def read_tsv_pairs(path) -> list[Pair]:
    """One pair per line: `source<TAB>target`."""
    origin = Path(path).name
    pairs = []
    for number, line in enumerate(_decode_lines(_read_bytes(path), path), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise DataError(path, "expected two tab-separated columns (source<TAB>target), found one", number)
        source, target = fields[0].strip(), fields[1].strip()
        if source and target:
            pairs.append(Pair(source, target, origin))
    if not pairs:
        raise DataError(path, "no sentence pairs found")
    return pairs


def _pair_lines(source_lines, target_lines, source_name, target_name, origin) -> list[Pair]:
    if len(source_lines) != len(target_lines):
        raise DataError(source_name, f"has {len(source_lines)} lines but {target_name} has "
                                     f"{len(target_lines)}; the two files must be line-aligned")
    return [Pair(s.strip(), t.strip(), origin) for s, t in zip(source_lines, target_lines) if s.strip() and t.strip()]


def read_parallel_files(source_path, target_path) -> list[Pair]:
    """Two line-aligned files, e.g. `corpus.ko` and `corpus.en`."""
    source_lines = _decode_lines(_read_bytes(source_path), source_path)
    target_lines = _decode_lines(_read_bytes(target_path), target_path)
    return _pair_lines(source_lines, target_lines, source_path, target_path, Path(source_path).stem)


def read_park_tarball(path, source_suffix: str = ".ko", target_suffix: str = ".en") -> list[Pair]:
    """korean-english-park.{train,dev,test}.tar.gz: a tarball holding `<name>.ko` and `<name>.en`."""
    try:
        with tarfile.open(path, "r:*") as archive:
            members = {m.name: m for m in archive.getmembers() if m.isfile()}
            sources = [n for n in members if n.endswith(source_suffix)]
            targets = [n for n in members if n.endswith(target_suffix)]
            if len(sources) != 1 or len(targets) != 1:
                raise DataError(path, f"expected one *{source_suffix} and one *{target_suffix} file inside, "
                                      f"found {sorted(members)}")
            source_raw = archive.extractfile(members[sources[0]]).read()
            target_raw = archive.extractfile(members[targets[0]]).read()
    except (tarfile.TarError, EOFError, OSError) as error:
        raise DataError(path, f"not a readable .tar.gz archive ({error})") from None
    source_name, target_name = f"{path}!{sources[0]}", f"{path}!{targets[0]}"
    return _pair_lines(_decode_lines(source_raw, source_name), _decode_lines(target_raw, target_name),
                       source_name, target_name, Path(path).name)


def read_pairs(path) -> list[Pair]:
    """Read any supported pair file by its name: .csv (ChatbotData), .tsv/.txt, .tar.gz/.tgz (park)."""
    path = Path(path)
    name = path.name.lower()
    if name.endswith(".csv"):
        return read_chatbot_csv(path)
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        return read_park_tarball(path)
    if name.endswith((".tsv", ".txt")):
        return read_tsv_pairs(path)
    if name.endswith(".ko"):
        return read_parallel_files(path, path.with_suffix(".en"))
    raise DataError(path, "unknown format; expected .csv (Q,A,label), .tsv (source<TAB>target), "
                          ".ko with a matching .en, or a park .tar.gz")
