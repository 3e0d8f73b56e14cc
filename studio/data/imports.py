"""Training data a user uploads in the Train tab, read into `Pair`s with a preview report: what was kept, what was
dropped and why, and errors that name the file (and line) at fault.

Chatbot: a CSV or TSV with question and answer columns (ChatbotData's `Q,A,label`, or any two columns, chosen by
name or with `columns=`). Translator: TSV/CSV pairs (Korean, English), line-aligned `.ko` + `.en` files, and TMX.
The dev split is the training pipeline's own (`split_train_dev`), or an uploaded dev file read the same way.
"""

from __future__ import annotations

import csv
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

from lxml import etree

from studio.data.pipeline import split_key, split_train_dev
from studio.data.readers import Pair, _read_bytes
from studio.errors import DataError
from studio.text import dedupe_pairs
from studio.text.encoding import decode_text
from studio.tasks import TRANSLATOR, task_named
from studio.text.script import has_hangul



@dataclass(frozen=True)
class TrainingFormat:
    """A kind of training file an upload may be: its name (`format=`), the endings that say so, how the Train tab
    and the errors describe it, and whether it holds translations only (no chatbot learns from it)."""
    name: str
    suffixes: tuple[str, ...]
    described: str
    translations_only: bool = False


# in the order a file's name is tried ("corpus.ko.txt" is a line file, not a TSV)
TRAINING_FORMATS = (
    TrainingFormat("lines", (".ko", ".en"), ".ko + .en line files (one sentence a line)", translations_only=True),
    TrainingFormat("tmx", (".tmx",), "TMX (a translation memory)", translations_only=True),
    TrainingFormat("csv", (".csv",), "CSV (two columns)"),
    TrainingFormat("tsv", (".tsv", ".txt"), "TSV (tab-separated .tsv or .txt)"),
)
FORMATS = tuple(f.name for f in TRAINING_FORMATS)


def upload_suffixes() -> list[str]:
    """Every file ending the Train tab's uploads take."""
    return [suffix for f in TRAINING_FORMATS for suffix in f.suffixes]


def formats_text(task: str) -> str:
    """The training files `task` takes, in words (the Train tab's line, the errors)."""
    taken = [f.described for f in TRAINING_FORMATS if task_named(task).translates or not f.translations_only]
    return ", ".join(taken[:-1]) + f" or {taken[-1]}" if len(taken) > 1 else taken[0]

MIN_PAIRS = 20
MAX_BYTES = 50_000_000  # per file, checked before reading it
PREVIEW_ROWS = 5
KOREAN_ROWS = 0.5  # a side is Korean when at least this share of its rows has a Hangul letter
TEXT_ROWS = 0.5  # a side is text when at least this share of its rows has a letter of any script
# tried in this order, a tie going to the first: commas are the likeliest of the three inside a sentence
DELIMITERS = ("\t", ";", ",")
DELIMITER_NAMES = {"\t": "tab", ";": "semicolon", ",": "comma"}

DUPLICATE = "duplicate pair"
IDENTICAL = "source equals target"
SHORT_ROW = "row with too few columns"
TRANSLATION_ROLES = TRANSLATOR.pair_roles  # a TMX's or line files' sides
LANGUAGE_CODES = {"ko": ("ko", "kor"), "en": ("en", "eng")}  # a TMX xml:lang's primary subtag
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_MARKUP = {"bpt", "ept", "ph", "it", "ut"}  # TMX inline elements whose content is the original format's markup


class ColumnsNeeded(DataError):
    """Which two columns hold the pairs is not clear: `columns` are the first row's cells, for a chooser."""

    def __init__(self, path, columns: list[str], task: str):
        first, second = task_named(task).pair_roles
        listed = ", ".join(repr(name) for name in columns)
        super().__init__(path, f"can't tell which columns hold the {first} and the {second}: the columns are "
                               f"{listed}; choose the {first} column and the {second} column", 1)
        self.columns = columns


class SidesSwapped(DataError):
    """A translator file whose "Korean" side is the other language and the other way round: it can be read
    with its sides swapped (`swap=True`)."""


def dropped_text(dropped: dict[str, int]) -> str:
    """Each reason with its count: "duplicate pair (5), empty question or answer (1)"."""
    return ", ".join(f"{reason} ({count:,})" for reason, count in dropped.items())


@dataclass(frozen=True)
class DataReport:
    """What the Train tab's preview shows."""
    files: list[str]
    pairs: int  # kept
    dropped: dict[str, int]  # reason -> count
    duplicates: int
    first_rows: list[tuple[str, str]]  # up to PREVIEW_ROWS
    source_chars: tuple[int, int, int]  # min, median, max characters
    target_chars: tuple[int, int, int]
    notes: list[str]

    def as_markdown(self) -> str:
        dropped = dropped_text(self.dropped) or "none"
        lines = [f"| Files | {_cell(', '.join(self.files))} |", "|---|---|",  # a header row of its own: no empty one
                 f"| Pairs kept | {self.pairs:,} |", f"| Dropped | {_cell(dropped)} |",
                 "| Source characters | min {} · median {} · max {} |".format(*self.source_chars),
                 "| Target characters | min {} · median {} · max {} |".format(*self.target_chars)]
        if self.first_rows:
            lines += ["", "| Source | Target |", "|---|---|"]
            lines += [f"| {_cell(source, 80)} | {_cell(target, 80)} |" for source, target in self.first_rows]
        if self.notes:
            lines += [""] + [f"- {_cell(note)}" for note in self.notes]
        return "\n".join(lines)


@dataclass(frozen=True)
class ImportedData:
    pairs: list[Pair]
    report: DataReport


@dataclass
class _FileRows:
    """One file's (or one .ko/.en pair's) rows as read: (source, target, line), before the checks."""
    path: str
    origin: str
    sides: tuple[str, str]  # what messages call the source and the target side
    rows: list[tuple[str, str, int]] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


def read_training_upload(paths: str | PathLike | Sequence[str | PathLike], task: str, *,
                         columns: tuple[str, str] | None = None, format: str | None = None, swap: bool = False,
                         max_bytes: int = MAX_BYTES, min_pairs: int = MIN_PAIRS) -> ImportedData:
    """The uploaded files' pairs (all files together) and a report on them. `format` forces one of FORMATS
    instead of reading it from the file names; `columns` names the (question, answer) or (Korean, English)
    columns of a CSV/TSV; `swap=True` reads a translator file whose columns look swapped the other way round
    (files that do not look swapped are read as they are). Drops (and counts) rows with an empty side,
    untranslated rows (translator) and exact duplicates; DataError when fewer than `min_pairs` are left."""
    roles = task_named(task).pair_roles  # ValueError for a task there is not
    if format is not None and format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
    if columns is not None and len(columns) != 2:
        raise ValueError(f"columns must name two columns ({' and '.join(roles)}), not {columns!r}")
    files = _as_paths(paths)
    if not files:
        raise DataError("upload", "no files given")
    pairs, dropped, notes = [], Counter(), []
    for file in _read_files(files, task, columns, format, max_bytes):
        pairs += _checked_pairs(file, task, swap)
        dropped.update(file.dropped)
        notes += file.notes
    kept = _without_duplicates(pairs)
    if len(pairs) > len(kept):
        dropped[DUPLICATE] += len(pairs) - len(kept)
    if len(kept) < min_pairs:
        why = f" (dropped: {dropped_text(dropped)})" if dropped else ""
        raise DataError(", ".join(map(str, files)), f"found {len(kept)} usable pairs{why}; at least {min_pairs} are "
                                                    f"needed to train")
    return ImportedData(kept, _report(files, kept, dropped, notes))


def split_dev(pairs: Sequence[Pair], dev_fraction: float = 0.05, seed: int = 1234,
              dev_paths: str | PathLike | Sequence[str | PathLike] | None = None, *, task: str | None = None,
              columns: tuple[str, str] | None = None, format: str | None = None, swap: bool = False,
              max_bytes: int = MAX_BYTES) -> tuple[list[Pair], list[Pair]]:
    """(train, dev). Without `dev_paths`: the training pipeline's deterministic split (`split_train_dev`). With
    them: the uploaded dev files, read like a training upload for `task` (at least one pair), and train is
    `pairs` less those whose source is also a dev source (the rule `split_train_dev` keeps: no source on both
    sides)."""
    if not dev_paths:
        return split_train_dev(pairs, dev_fraction, seed)
    if task is None:
        raise ValueError("split_dev with dev_paths needs the task the dev files are for")
    dev = read_training_upload(dev_paths, task, columns=columns, format=format, swap=swap, max_bytes=max_bytes,
                               min_pairs=1).pairs
    dev_sources = {split_key(pair.source) for pair in dev}
    train = [pair for pair in pairs if split_key(pair.source) not in dev_sources]
    if not train:
        raise DataError(", ".join(map(str, _as_paths(dev_paths))),
                        "every training pair's source is also in the dev data: nothing is left to train on")
    return train, dev


def _as_paths(paths) -> list[Path]:
    if isinstance(paths, (str, PathLike)):
        return [Path(paths)]
    return [Path(path) for path in paths]


def _read_files(paths: list[Path], task: str, columns, format: str | None, max_bytes: int) -> list[_FileRows]:
    """Each file's rows, in upload order; line files come as one entry per Korean/English pair."""
    formats = [format or _format_of(path, task) for path in paths]
    for path, kind in zip(paths, formats):
        if next(f for f in TRAINING_FORMATS if f.name == kind).translations_only and not task_named(task).translates:
            first, second = task_named(task).pair_roles
            raise DataError(path, f"holds translations; a {task} learns from {first}/{second} pairs in a "
                                  f"{formats_text(task)} file")
    partners = _pair_line_files([p for p, kind in zip(paths, formats) if kind == "lines"], format == "lines")
    files = []
    for path, kind in zip(paths, formats):
        if kind in ("csv", "tsv"):
            files.append(_read_table(path, task, columns, kind == "tsv", max_bytes))
        elif kind == "tmx":
            files.append(_read_tmx(path, max_bytes))
        elif path in partners:
            files.append(_read_line_files(path, partners[path], max_bytes))
    return files


def _format_of(path: Path, task: str) -> str:
    name = path.name.lower()
    if _line_side(name):  # "corpus.ko", "corpus.en.txt"
        return "lines"
    for kind in TRAINING_FORMATS:
        if kind.name != "lines" and name.endswith(kind.suffixes):
            return kind.name
    raise DataError(path, f"unknown format: a {task}'s training data is {formats_text(task)}")


def _line_side(name: str) -> tuple[str, str, str] | None:
    """("ko" or "en", the name before the side, the name after it) for `corpus.ko`, `corpus.en.txt`...; else None."""
    parts = name.split(".")
    for index in (len(parts) - 1, len(parts) - 2):
        last = index == len(parts) - 1
        if index >= 1 and parts[index].lower() in ("ko", "en") and (last or parts[-1].lower() == "txt"):
            return parts[index].lower(), ".".join(parts[:index]), ".".join(parts[index + 1:])
    return None


def _pair_line_files(paths: list[Path], forced: bool) -> dict[Path, Path]:
    """Korean file -> English file: by name (`x.ko` + `x.en`, the .en uploaded or beside the .ko), or, for
    format="lines" with names that do not say the language, two by two in upload order (Korean first)."""
    sides = [_line_side(path.name) for path in paths]
    if forced and not all(sides):
        if len(paths) % 2:
            raise DataError(paths[-1], "line files pair up two by two (Korean, then English): this one has no partner")
        return dict(zip(paths[::2], paths[1::2]))
    by_name: dict[tuple[str, str], dict[str, Path]] = {}
    for path, (side, before, after) in zip(paths, sides):
        if side in by_name.setdefault((before, after), {}):
            raise DataError(path, f"two .{side} files with the same name were uploaded")
        by_name[(before, after)][side] = path
    partners = {}
    for (before, after), found in by_name.items():
        if "ko" not in found:
            raise DataError(found["en"], "an English line file needs its Korean partner: upload the matching .ko "
                                         "file with it")
        beside = found["ko"].with_name(".".join(filter(None, (before, "en", after))))
        partners[found["ko"]] = found.get("en", beside)
    return partners


def _read_text(path: Path, max_bytes: int, notes: list[str]) -> str:
    """The file's text (UTF-8, with or without BOM, or CP949); the size is checked before reading it."""
    raw = _read_raw(path, max_bytes)
    text, _, note = decode_text(str(path), raw, "a training data file")
    if note:  # named like the other notes; its end is about translated documents, and this data is not written back
        notes.append(f"{path.name}: " + note.removeprefix(f"{path}: ").partition("; the translation")[0])
    if not text.strip():
        raise DataError(path, "empty file (only blank lines)")
    return text


def _read_raw(path: Path, max_bytes: int) -> bytes:
    size = path.stat().st_size if path.is_file() else 0
    if size > max_bytes:
        raise DataError(path, f"is {size:,} bytes, over the {max_bytes:,}-byte limit for training data")
    raw = _read_bytes(path)
    if not raw:
        raise DataError(path, "empty file")
    return raw


def _text_lines(text: str) -> list[str]:
    # the line breaks readers._decode_lines splits at; the text is decoded here once, keeping decode_text's note
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _read_table(path: Path, task: str, columns, tab_only: bool, max_bytes: int) -> _FileRows:
    """A CSV (comma, tab or semicolon, detected) or a TSV (tabs, no quoting: quotes are text there)."""
    file = _FileRows(str(path), path.name, ("", ""))
    lines = _text_lines(_read_text(path, max_bytes, file.notes))
    delimiter = "\t" if tab_only else _detect_delimiter(path, lines)
    reader = csv.reader(lines, delimiter=delimiter, quoting=csv.QUOTE_NONE if tab_only else csv.QUOTE_MINIMAL)
    table = []
    try:
        for row in reader:
            if len(row) > 1 or (row and row[0].strip()):  # blank lines are no rows
                table.append((reader.line_num, row))
    except csv.Error as error:
        raise DataError(path, f"unreadable CSV ({error})", reader.line_num) from None
    if not table or len(table[0][1]) < 2:
        separators = "tabs" if tab_only else "commas, tabs or semicolons"
        raise DataError(path, f"found one column; expected two or more separated by {separators}",
                        table[0][0] if table else None)
    source, target, header = _choose_columns(path, table[0][1], [row for _, row in table[1:51]], task, columns)
    cells = [cell.strip() for cell in table[0][1]]
    file.sides = (f"column {cells[source]!r}", f"column {cells[target]!r}") if header else \
        (f"column {source + 1}", f"column {target + 1}")
    shown = " and ".join(file.sides)
    file.notes.append(f"{path.name}: {DELIMITER_NAMES[delimiter]}-separated; {shown} used as "
                      f"{' and '.join(task_named(task).pair_roles)}" + ("" if header else " (no header row)"))
    for line, row in table[1:] if header else table:
        if len(row) <= max(source, target):
            file.dropped[SHORT_ROW] += 1
        else:
            file.rows.append((row[source], row[target], line))
    return file


def _detect_delimiter(path: Path, lines: list[str]) -> str:
    """The delimiter that splits the most sample lines into the same number (two or more) of fields."""
    sample = [line for line in lines[:200] if line.strip()][:50]

    def consistency(delimiter: str) -> int:
        try:
            widths = Counter(len(row) for row in csv.reader(sample, delimiter=delimiter))
        except csv.Error:
            return 0
        width, rows = widths.most_common(1)[0] if widths else (0, 0)
        return rows if width >= 2 else 0

    best = max(DELIMITERS, key=consistency)
    if not consistency(best):
        raise DataError(path, "found one column; expected two or more separated by commas, tabs or semicolons", 1)
    return best


def _choose_columns(path: Path, first_row: list[str], body: list[list[str]], task: str,
                    columns) -> tuple[int, int, bool]:
    """(source column, target column, whether the first row is a header)."""
    cells = [cell.strip() for cell in first_row]
    if columns is not None:
        return _column_index(path, cells, columns[0]), _column_index(path, cells, columns[1]), True
    source_names, target_names = task_named(task).column_names
    sources = [i for i, cell in enumerate(cells) if _is_named(cell, source_names)]
    targets = [i for i, cell in enumerate(cells) if _is_named(cell, target_names)]
    if len(sources) == 1 and len(targets) == 1 and sources != targets:
        return sources[0], targets[0], True
    if len(cells) == 2:
        # no pair of names: the two columns in order, under a header when a cell is exactly a known name or
        # its script is not its column's (Latin names over Korean text, or Korean names over English)
        named = any(cell.casefold() in source_names + target_names for cell in cells)
        return 0, 1, named or _script_differs(cells, body)
    raise ColumnsNeeded(path, cells, task)


def _column_index(path: Path, cells: list[str], name: str) -> int:
    for match in (lambda cell: cell == name.strip(), lambda cell: cell.casefold() == name.strip().casefold()):
        found = [i for i, cell in enumerate(cells) if match(cell)]
        if found:
            return found[0]
    listed = ", ".join(repr(cell) for cell in cells)
    raise DataError(path, f"has no column {name!r}; the columns are {listed}", 1)


def _is_named(cell: str, names: Sequence[str]) -> bool:
    """Whether the cell reads as a column name (a few words, no sentence punctuation: "0번 질문 있어요?" is data)
    and one of its words is one of `names` or, for names that can't be part of an unrelated word (three Latin
    letters or more, or Hangul), starts with one: "question_text", "Korean sentence", "질문내용"."""
    words = re.findall(r"[^\W_]+", cell.casefold())
    if len(words) > 3 or re.search(r"[.,?!;:。？！]", cell):
        return False
    return any(word == name or ((len(name) >= 3 or not name.isascii()) and word.startswith(name))
               for word in words for name in names)


def _script_differs(cells: list[str], body: list[list[str]]) -> bool:
    for index, cell in enumerate(cells):
        column = [row[index] for row in body if len(row) > index and row[index].strip()]
        if column:
            share = _hangul_share(column)
            if (has_hangul(cell) and share <= 0.2) or (not has_hangul(cell) and share >= 0.8):
                return True
    return False


def _read_line_files(ko_path: Path, en_path: Path, max_bytes: int) -> _FileRows:
    file = _FileRows(str(ko_path), ko_path.stem, (ko_path.name, en_path.name))
    if not en_path.is_file():
        raise DataError(ko_path, f"has no English partner: upload {en_path.name} with it")
    korean = _text_lines(_read_text(ko_path, max_bytes, file.notes))
    english = _text_lines(_read_text(en_path, max_bytes, file.notes))
    while korean and not korean[-1].strip():  # blank lines at the end do not misalign the files
        korean.pop()
    while english and not english[-1].strip():
        english.pop()
    if len(korean) != len(english):
        raise DataError(ko_path, f"has {len(korean)} lines but {en_path.name} has {len(english)}; the two files "
                                 f"must be line-aligned")
    file.rows = [(ko, en, number) for number, (ko, en) in enumerate(zip(korean, english), start=1)]
    return file


def _read_tmx(path: Path, max_bytes: int) -> _FileRows:
    """Each <tu>'s Korean and English <seg> text; a TU without one of them is dropped and counted."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:  # from bytes: the XML declaration says the encoding
        root = etree.fromstring(_read_raw(path, max_bytes), parser)
    except etree.XMLSyntaxError as error:
        raise DataError(path, f"not a readable TMX (XML) file: {error.msg}", error.lineno) from None
    if etree.QName(root).localname != "tmx":
        raise DataError(path, f"not a TMX file: the root element is <{etree.QName(root).localname}>, not <tmx>")
    file, languages = _FileRows(str(path), path.name, ("", "")), Counter()
    for tu in root.iter("{*}tu"):
        segments = {}
        for tuv in tu.iterchildren("{*}tuv"):
            language = (tuv.get(_XML_LANG) or tuv.get("lang") or "").strip()
            languages[language] += 1
            side = _language_side(language)
            if side and side not in segments:
                segment = tuv.find("{*}seg")
                segments[side] = _segment_text(segment) if segment is not None else ""
        missing = [TRANSLATION_ROLES[i] for i, side in enumerate(("ko", "en")) if side not in segments]
        if missing:
            file.dropped[f"missing {' and '.join(missing)} side (TMX)"] += 1
        else:
            file.rows.append((segments["ko"], segments["en"], tu.sourceline))
    found = sorted(language for language in languages if language)
    _check_tmx_languages(path, found, len(file.rows) + sum(file.dropped.values()))
    korean = ", ".join(code for code in found if _language_side(code) == "ko")
    english = ", ".join(code for code in found if _language_side(code) == "en")
    file.sides = (f"the Korean ({korean}) segments", f"the English ({english}) segments")
    file.notes.append(f"{path.name}: TMX languages: {', '.join(found)}")
    return file


def _check_tmx_languages(path: Path, found: list[str], units: int) -> None:
    if not units:
        raise DataError(path, "no translation units (<tu>) found")
    missing = [(side, name) for side, name in zip(("ko", "en"), TRANSLATION_ROLES)
               if not any(_language_side(code) == side for code in found)]
    if missing:
        names, codes = " and no ".join(name for _, name in missing), " or ".join(side for side, _ in missing)
        raise DataError(path, f"no {names} side: no <tuv> has xml:lang {codes} (or a regional variant of it); "
                              f"the languages found are {', '.join(found) or 'none'}")


def _language_side(language: str) -> str | None:
    """"ko" for ko, ko-KR, KO-kr, kor...; "en" for en, en-US, en-GB...; else None."""
    primary = re.split(r"[-_]", language, maxsplit=1)[0].casefold()
    return next((side for side, codes in LANGUAGE_CODES.items() if primary in codes), None)


def _segment_text(element) -> str:
    """A <seg>'s text with its inline elements' text (<hi>, <sub>), less the markup in <bpt>, <ept>, <ph>...
    Comments, processing instructions and unresolved entities are left out too (their tag is not a string)."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and etree.QName(child).localname not in _MARKUP:
            parts.append(_segment_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _checked_pairs(file: _FileRows, task: str, swap: bool) -> list[Pair]:
    """The file's pairs, whitespace collapsed (a pair is one line of text); rows with an empty side and, for
    the translator, untranslated rows are dropped and counted; the translator's sides are checked (or swapped)."""
    rows = []
    for source, target, line in file.rows:
        source, target = " ".join(source.split()), " ".join(target.split())
        if not source or not target:
            file.dropped[task_named(task).empty_pair] += 1
        elif task_named(task).translates and source == target:
            file.dropped[IDENTICAL] += 1
        else:
            rows.append((source, target, line))
    if rows:
        _check_text(file, rows)
    if task_named(task).translates and rows:
        rows = _korean_first(file, rows, swap)
    elif rows and _hangul_share(s for s, _, _ in rows) < KOREAN_ROWS:
        file.notes.append(f"{file.origin}: few of the questions are Korean: the model learns the language of this "
                          "file (the shipped chatbot's is Korean)")
    return [Pair(source, target, file.origin) for source, target, _ in rows]


def _check_text(file: _FileRows, rows: list[tuple[str, str, int]]) -> None:
    """DataError when a side is mostly numbers or codes, not text: a file's id and score columns, say."""
    for side, texts in zip(file.sides, ([s for s, _, _ in rows], [t for _, t, _ in rows])):
        share = sum(any(c.isalpha() for c in text) for text in texts) / len(texts)
        if share < TEXT_ROWS:
            raise DataError(file.path, f"{side} holds no text: only {share:.0%} of its rows have a letter (numbers "
                                       "or codes, not sentences)")


def _korean_first(file: _FileRows, rows: list[tuple[str, str, int]], swap: bool) -> list[tuple[str, str, int]]:
    """`rows` when their source side is Korean and their target side is not; swapped with `swap` when it is
    the other way round; DataError otherwise."""
    korean, other = _hangul_share(s for s, _, _ in rows), _hangul_share(t for _, t, _ in rows)
    source_side, target_side = file.sides
    if korean >= KOREAN_ROWS and other < KOREAN_ROWS:
        return rows
    if korean < KOREAN_ROWS and other >= KOREAN_ROWS:
        if swap:
            file.notes.append(f"{file.origin}: sides swapped: {target_side} read as Korean")
            return [(target, source, line) for source, target, line in rows]
        raise SidesSwapped(file.path, f"the sides look swapped: {source_side}, read as Korean, has Korean letters "
                                      f"in {korean:.0%} of its rows and {target_side} in {other:.0%}; read the other "
                                      f"way round, {target_side} is the Korean side")
    if korean < KOREAN_ROWS:
        line = next(line for source, _, line in rows if not has_hangul(source))
        raise DataError(file.path, f"the Korean side has no Korean: only {korean:.0%} of the rows of {source_side} "
                                   f"have Korean letters, and the English side is not Korean either", line)
    line = next(line for _, target, line in rows if has_hangul(target))
    raise DataError(file.path, f"the English side is mostly Korean: {other:.0%} of the rows of {target_side} have "
                               f"Korean letters", line)


def _hangul_share(texts: Iterable[str]) -> float:
    flags = [has_hangul(text) for text in texts]
    return sum(flags) / len(flags) if flags else 0.0


def _without_duplicates(pairs: list[Pair]) -> list[Pair]:
    origins = {}
    for pair in pairs:
        origins.setdefault((pair.source, pair.target), pair.origin)
    return [Pair(s, t, origins[(s, t)]) for s, t in dedupe_pairs((p.source, p.target) for p in pairs)]


def _report(paths: list[Path], pairs: list[Pair], dropped: Counter, notes: list[str]) -> DataReport:
    return DataReport(files=[path.name for path in paths], pairs=len(pairs), dropped=dict(dropped),
                      duplicates=dropped[DUPLICATE], first_rows=[(p.source, p.target) for p in pairs[:PREVIEW_ROWS]],
                      source_chars=_char_range(len(p.source) for p in pairs),
                      target_chars=_char_range(len(p.target) for p in pairs), notes=notes)


def _char_range(lengths: Iterable[int]) -> tuple[int, int, int]:
    lengths = sorted(lengths)
    return (lengths[0], statistics.median_low(lengths), lengths[-1]) if lengths else (0, 0, 0)


def _cell(text: str, limit: int = 0) -> str:
    """`text` for a Markdown table cell: Markdown's own characters escaped, cut at `limit` characters."""
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return re.sub(r"([\\`*_\[\]<>|~#])", r"\\\1", text)
