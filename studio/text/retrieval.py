"""A small TF-IDF retrieval index over a chatbot's training questions -> their answers, in plain NumPy.

The scoring is kept simple so that the web page can reproduce it exactly in JavaScript:

- normalize: Unicode NFC, lower case, every character that is not a letter or a digit becomes a space, runs of
  spaces become one, trimmed (`str.isalnum` here; `/[\\p{L}\\p{N}]/u` in JS);
- analyzers: `char` = character n-grams (1..3) of `" " + text + " "` (n-grams that are only spaces are dropped:
  the spaces mark word starts and ends), `char-nospace` = the same n-grams of the text with its spaces removed
  (Korean chat text is spaced inconsistently: 지칠때 / 지칠 때), `word` = the words and word bigrams;
- weights: sublinear tf (1 + ln tf) x smooth idf (ln((1 + N) / (1 + df)) + 1), each vector L2-normalized;
- score: the cosine (a dot product of the normalized vectors); ties go to the lower row index.

Every training pair is one row (a question asked twice with two answers is two rows). `nearest_excluding(i)`
answers a training question from the other rows, never from a row whose normalized question equals its own.

A query's weights are computed as NumPy 2 computes them: float32(float32(1 + ln tf) x idf), the L2 norm in float64,
each weight divided by it in float64 and rounded to float32; a row's score adds its terms' float32 products in float32,
term ids ascending. `portable()` writes the index as the ports read it without NumPy (`PORTABLE`): a JSON file and a
binary file of little-endian arrays, which `from_portable` reads back.
"""

from __future__ import annotations

import io
import json
import math
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np

from studio.files import atomic_write_bytes

ANALYZERS = ("char", "char-nospace", "word")
FORMAT = 1
PORTABLE = "transformer-studio-replies/1"
# the binary file's arrays, back to back in this order: (name, dtype, little-endian)
PORTABLE_ARRAYS = (("idf", "float32"), ("indptr", "int32"), ("indices", "int32"), ("data", "float32"))


def normalize(text: str) -> str:
    """NFC, lower case, letters and digits only, single spaces."""
    text = unicodedata.normalize("NFC", text).lower()
    return " ".join("".join(c if c.isalnum() else " " for c in text).split())


def _char_ngrams(text: str, low: int = 1, high: int = 3) -> list[str]:
    return [text[i:i + n] for n in range(low, high + 1) for i in range(len(text) - n + 1)
            if text[i:i + n].strip()]


def terms(text: str, analyzer: str = "char") -> list[str]:
    """The terms (with repeats) that `analyzer` reads in `text`."""
    text = normalize(text)
    if analyzer == "char":
        return _char_ngrams(f" {text} ") if text else []
    if analyzer == "char-nospace":
        return _char_ngrams(text.replace(" ", ""))
    if analyzer == "word":
        words = text.split()
        return words + [f"{a} {b}" for a, b in zip(words, words[1:])]
    raise ValueError(f"unknown analyzer {analyzer!r}; choose from {', '.join(ANALYZERS)}")


def _weights(counts: Counter, vocabulary: dict[str, int], idf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(term ids ascending, L2-normalized sublinear tf-idf weights) of the known terms in `counts`."""
    known = sorted((vocabulary[t], c) for t, c in counts.items() if t in vocabulary)
    ids = np.array([i for i, _ in known], dtype=np.int32)
    values = np.array([(1.0 + math.log(c)) * idf[i] for i, c in known], dtype=np.float64)
    norm = math.sqrt(float(values @ values)) if len(values) else 0.0
    return ids, (values / norm if norm else values).astype(np.float32)


class RetrievalIndex:
    """Rows of (question, answer); a CSR matrix of their questions' tf-idf vectors and its inverted copy."""

    def __init__(self, analyzer: str, vocabulary: list[str], idf: np.ndarray, questions: list[str],
                 answers: list[str], indptr: np.ndarray, indices: np.ndarray, data: np.ndarray):
        self.analyzer, self.vocabulary = analyzer, list(vocabulary)
        self.term_id = {term: i for i, term in enumerate(self.vocabulary)}
        self.idf, self.questions, self.answers = np.asarray(idf, np.float32), list(questions), list(answers)
        self.indptr, self.indices, self.data = (np.asarray(indptr, np.int64), np.asarray(indices, np.int32),
                                                np.asarray(data, np.float32))
        self._invert()
        keys = [normalize(q) for q in self.questions]
        groups: dict[str, list[int]] = {}
        for row, key in enumerate(keys):
            groups.setdefault(key, []).append(row)
        self._same_question = [groups[key] for key in keys]

    def _invert(self) -> None:
        """Postings per term (rows ascending), for scoring a query against every row at once."""
        rows = np.repeat(np.arange(len(self.questions), dtype=np.int32), np.diff(self.indptr))
        order = np.argsort(self.indices, kind="stable")
        self._post_rows, self._post_values = rows[order], self.data[order]
        self._post_ptr = np.searchsorted(self.indices[order], np.arange(len(self.vocabulary) + 1)).astype(np.int64)

    @classmethod
    def build(cls, questions: list[str], answers: list[str], analyzer: str = "char") -> "RetrievalIndex":
        counts = [Counter(terms(q, analyzer)) for q in questions]
        df = Counter(t for c in counts for t in c)
        vocabulary = sorted(df)
        idf = np.array([math.log((1 + len(questions)) / (1 + df[t])) + 1.0 for t in vocabulary], dtype=np.float64)
        term_id = {t: i for i, t in enumerate(vocabulary)}
        rows = [_weights(c, term_id, idf) for c in counts]
        indptr = np.cumsum([0] + [len(ids) for ids, _ in rows])
        indices = np.concatenate([ids for ids, _ in rows]) if rows else np.zeros(0, np.int32)
        data = np.concatenate([v for _, v in rows]) if rows else np.zeros(0, np.float32)
        return cls(analyzer, vocabulary, idf, questions, answers, indptr, indices, data)

    def vector(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        return _weights(Counter(terms(text, self.analyzer)), self.term_id, self.idf)

    def scores(self, ids: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The cosine of a query vector with every row."""
        total = np.zeros(len(self.questions), dtype=np.float32)
        for term, weight in zip(ids, values):
            start, end = self._post_ptr[term], self._post_ptr[term + 1]
            total[self._post_rows[start:end]] += weight * self._post_values[start:end]
        return total

    @staticmethod
    def _top(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        order = np.argsort(-scores, kind="stable")[:k]
        return [(int(i), float(scores[i])) for i in order]

    def query(self, text: str, k: int = 1) -> list[tuple[int, float]]:
        """The k best rows for `text`: (row, cosine), best first."""
        return self._top(self.scores(*self.vector(text)), k)

    def nearest_excluding(self, row: int, k: int = 1) -> list[tuple[int, float]]:
        """The k best other rows for training row `row`, leaving out every row with the same normalized question."""
        start, end = self.indptr[row], self.indptr[row + 1]
        scores = self.scores(self.indices[start:end], self.data[start:end])
        scores[self._same_question[row]] = -np.inf
        return self._top(scores, k)

    def save(self, path: str | Path) -> Path:
        """One compressed .npz (no pickles): the strings as UTF-8 JSON, the arrays as they are."""
        meta = {"format": FORMAT, "analyzer": self.analyzer, "vocabulary": self.vocabulary,
                "questions": self.questions, "answers": self.answers}
        blob = np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, meta=blob, idf=self.idf, indptr=self.indptr.astype(np.int32),
                            indices=self.indices, data=self.data)
        atomic_write_bytes(Path(path), buffer.getvalue())  # a reader never finds half an index
        return Path(path)

    @classmethod
    def load(cls, path: str | Path) -> "RetrievalIndex":
        with np.load(path, allow_pickle=False) as arrays:
            meta = json.loads(arrays["meta"].tobytes().decode("utf-8"))
            if meta.get("format") != FORMAT:
                raise ValueError(f"{path}: retrieval index format {meta.get('format')}, expected {FORMAT}")
            return cls(meta["analyzer"], meta["vocabulary"], arrays["idf"], meta["questions"], meta["answers"],
                       arrays["indptr"], arrays["indices"], arrays["data"])

    def portable(self) -> tuple[bytes, bytes]:
        """(the JSON, the binary) a port reads without NumPy. The JSON (UTF-8, one line) holds `format` (PORTABLE),
        `analyzer`, `rows`, `terms`, `nonzeros`, `arrays` (each array's `name`, `dtype`, byte `offset` and `length`
        in the binary file), `vocabulary` (the terms by id), `questions` and `answers` (by row). The binary holds
        idf float32 [terms], indptr int32 [rows + 1], indices int32 [nonzeros] and data float32 [nonzeros], all
        little-endian: row r's term ids (ascending) are indices[indptr[r]:indptr[r + 1]], their weights data[...]."""
        if len(self.indices) >= 2**31:
            raise ValueError("an index of 2**31 or more nonzeros has no portable form (int32 offsets)")
        values = {"idf": self.idf, "indptr": self.indptr, "indices": self.indices, "data": self.data}
        blobs, layout, offset = [], [], 0
        for name, dtype in PORTABLE_ARRAYS:
            blob = np.ascontiguousarray(values[name], dtype=np.dtype(dtype).newbyteorder("<")).tobytes()
            layout.append({"name": name, "dtype": dtype, "offset": offset, "length": len(values[name])})
            blobs.append(blob)
            offset += len(blob)
        meta = {"format": PORTABLE, "analyzer": self.analyzer, "rows": len(self.questions),
                "terms": len(self.vocabulary), "nonzeros": len(self.indices), "byte_order": "little",
                "arrays": layout, "vocabulary": self.vocabulary, "questions": self.questions, "answers": self.answers}
        return json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), b"".join(blobs)

    @classmethod
    def from_portable(cls, meta: bytes, arrays: bytes) -> "RetrievalIndex":
        """The index `portable()` wrote; ValueError naming what does not fit."""
        info = json.loads(meta.decode("utf-8"))
        if info.get("format") != PORTABLE:
            raise ValueError(f"retrieval index format {info.get('format')!r}, expected {PORTABLE!r}")
        read = {}
        for entry in info["arrays"]:
            dtype = np.dtype(entry["dtype"]).newbyteorder("<")
            end = entry["offset"] + entry["length"] * dtype.itemsize
            if end > len(arrays):
                raise ValueError(f"the binary file ends before {entry['name']} does ({len(arrays)} < {end} bytes)")
            read[entry["name"]] = np.frombuffer(arrays, dtype, entry["length"], entry["offset"])
        sizes = {"idf": info["terms"], "indptr": info["rows"] + 1, "indices": info["nonzeros"],
                 "data": info["nonzeros"]}
        sizes.update(vocabulary=info["terms"], questions=info["rows"], answers=info["rows"])
        found = {**{name: len(info[name]) for name in ("vocabulary", "questions", "answers")},
                 **{name: len(array) for name, array in read.items()}}
        wrong = [name for name, size in sizes.items() if found.get(name) != size]
        if wrong:
            raise ValueError(f"the index's sizes do not agree: {', '.join(wrong)}")
        return cls(info["analyzer"], info["vocabulary"], read["idf"], info["questions"], info["answers"],
                   read["indptr"], read["indices"], read["data"])
