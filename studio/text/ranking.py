"""Choosing a chatbot's reply among candidates: a trained ranker's score, combined with other features.

The ranker is a cross-encoder: a small Transformer encoder (the project's post-LN layers) reads
`<s> question </s> candidate </s>` (a segment embedding marks the two sides), averages its outputs over the tokens
and a two-layer head turns that into one score. It is trained (`studio.train.ranker`) to put a question's own
answer above the answers retrieval finds for similar questions. This module runs it in plain NumPy, so a reply
needs no TensorFlow and the forward pass can be ported to the web page and the phone as it is; the Keras model
that trains it is `studio.train.ranker_model` and a test holds the two to the same scores.

A ranker's files: `ranker.json` (the architecture, the text pipeline and the feature weights chosen on a tuning
split), `ranker.npz` (weights as bundles store them: int8 embedding rows, float16 elsewhere) and `tokenizer/`.

Features of a candidate (each one number; `combined` adds them with the chosen weights):
- `ranker`: the ranker's score (a logit);
- `cosine`: the retrieval cosine of the best training question with that answer (`studio.text.retrieval`);
- `votes`: the sum of the cosines of the nearest training questions (4k read) with that answer;
- `backward`: a backward model's mean log p(question | answer) per token (mutual information, Li et al. 2016),
  where one is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from studio.weights import load_npz

FORMAT = 1
CONFIG_FILE, WEIGHTS_FILE, TOKENIZER_DIR = "ranker.json", "ranker.npz", "tokenizer"
FEATURES = ("ranker", "cosine", "votes", "backward")
PREFIX = "ranker/"  # how the Keras model's variable paths begin


@dataclass
class RankerConfig:
    vocab_size: int = 8000
    d_model: int = 256
    num_heads: int = 8
    d_ff: int = 512
    num_layers: int = 2
    head_units: int = 256
    max_question: int = 30  # tokens of each side read (the rest is cut)
    max_answer: int = 36
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    epsilon: float = 1e-6
    text_pipeline: str = "translator"
    kind: str = "pair"  # "pair": one encoder reads both sides; "sides": each side alone, a head on the two vectors
    weights: dict = field(default_factory=lambda: {"ranker": 1.0})  # feature -> weight in `combined`
    format: int = FORMAT

    @property
    def max_len(self) -> int:
        return self.max_question + self.max_answer + 3

    @classmethod
    def from_dict(cls, data: dict) -> "RankerConfig":
        if data.get("format") != FORMAT:
            raise ValueError(f"ranker format {data.get('format')}, expected {FORMAT}")
        return cls(**data)


def pair_ids(encode: Callable[[str], list[int]], question: str, answer: str,
             config: RankerConfig) -> tuple[list[int], list[int]]:
    """(ids, segments) of `<s> question </s> answer </s>`; segment 0 is the question's side, 1 the answer's.
    `encode` is the text pipeline and tokenizer together (text -> ids, no specials)."""
    q, a = encode(question)[: config.max_question], encode(answer)[: config.max_answer]
    ids = [config.bos_id, *q, config.eos_id, *a, config.eos_id]
    return ids, [0] * (len(q) + 2) + [1] * (len(a) + 1)


def pad_batch(rows: Sequence[tuple[list[int], list[int]]], multiple: int = 8, pad_id: int = 0):
    """Rows of (ids, segments) -> int32 arrays [B, T], T the longest row rounded up to `multiple`."""
    longest = max(len(ids) for ids, _ in rows)
    length = -(-longest // multiple) * multiple
    ids = np.full((len(rows), length), pad_id, np.int32)
    segments = np.zeros((len(rows), length), np.int32)
    for i, (row_ids, row_segments) in enumerate(rows):
        ids[i, : len(row_ids)], segments[i, : len(row_segments)] = row_ids, row_segments
    return ids, segments


# ---- the forward pass in NumPy (the same arithmetic as studio.train.ranker_model) ---------------------------------
def positional_table(length: int, d_model: int) -> np.ndarray:
    """The sinusoidal table of `studio.model.positional` (copied: this layer may not import the model's)."""
    positions = np.arange(length, dtype=np.float64)[:, None]
    dims = np.arange(d_model, dtype=np.float64)[None, :]
    angles = positions / np.power(10000.0, (2 * (dims // 2)) / d_model)
    table = np.where(dims % 2 == 0, np.sin(angles), np.cos(angles))
    return table.astype(np.float32)


def _layer_norm(x, w, name, epsilon):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon) * w[name + "/gamma"] + w[name + "/beta"]


def _dense(x, w, name):
    return x @ w[name + "/kernel"] + w[name + "/bias"]


def _self_attention(x, pad, w, name, heads):
    batch, length, d_model = x.shape
    split = lambda t: t.reshape(batch, length, heads, -1).transpose(0, 2, 1, 3)  # noqa: E731
    q, k, v = (split(_dense(x, w, f"{name}/{part}")) for part in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d_model // heads) + pad[:, None, None, :] * -1e9
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    context = (scores / scores.sum(-1, keepdims=True)) @ v
    return _dense(context.transpose(0, 2, 1, 3).reshape(batch, length, d_model), w, f"{name}/output")


def pooled_states(w: dict[str, np.ndarray], config: RankerConfig, ids: np.ndarray,
                  segments: np.ndarray | None = None) -> np.ndarray:
    """The encoder's outputs averaged over the tokens of each padded row: [B, T] ids -> [B, D]."""
    pad = (ids == config.pad_id).astype(np.float32)
    x = w["source_embedding/embeddings"][ids] * np.float32(np.sqrt(config.d_model))
    x = x + positional_table(ids.shape[1], config.d_model)[None]
    if segments is not None:
        x = x + w["segment_embedding/embeddings"][segments]
    for i in range(config.num_layers):
        name = f"encoder_{i}"
        x = _layer_norm(x + _self_attention(x, pad, w, f"{name}/self_attention", config.num_heads), w,
                        f"{name}/norm_0", config.epsilon)
        inner = np.maximum(_dense(x, w, f"{name}/ffn/inner"), 0.0)
        x = _layer_norm(x + _dense(inner, w, f"{name}/ffn/outer"), w, f"{name}/norm_1", config.epsilon)
    keep = 1.0 - pad
    return (x * keep[..., None]).sum(1) / np.maximum(keep.sum(1, keepdims=True), 1.0)


def forward(w: dict[str, np.ndarray], config: RankerConfig, ids: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """A pair ranker's scores [B] of padded rows `ids`/`segments` [B, T]; `w` maps variable paths (without
    "ranker/") to arrays."""
    return _dense(np.tanh(_dense(pooled_states(w, config, ids, segments), w, "head_hidden")), w, "head_score")[:, 0]


def interaction(question: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """A sides ranker's head input: [a, q * a, |q - a|] of a question's vector [D] and its answers' [N, D]."""
    return np.concatenate([answers, question * answers, np.abs(question - answers)], axis=-1)


def side_scores(w: dict[str, np.ndarray], question: np.ndarray, answers: np.ndarray) -> np.ndarray:
    return _dense(np.tanh(_dense(interaction(question, answers), w, "head_hidden")), w, "head_score")[..., 0]


def side_ids(encode: Callable[[str], list[int]], text: str, config: RankerConfig) -> list[int]:
    """A side read alone, as the generator's encoder reads a source: its ids and `</s>`."""
    return encode(text)[: config.max_answer] + [config.eos_id]


# ---- a ranker's files ---------------------------------------------------------------------------------------
def text_encoder(tokenizer, text_pipeline: str) -> Callable[[str], list[int]]:
    """text -> ids as the ranker reads it: the chatbot's text pipeline, then its tokenizer."""
    from studio.text.pipelines import pipeline_for

    class _Task:  # pipeline_for reads only these two fields
        lowercase_target = False

    _Task.text_pipeline = text_pipeline
    normalize = pipeline_for(_Task).source
    return lambda text: list(tokenizer.encode(normalize(text)))


class Ranker:
    """A trained ranker loaded from its folder: `scores(question, answers)` and `combined(...)`."""

    def __init__(self, config: RankerConfig, weights: dict[str, np.ndarray], tokenizer):
        self.config, self.tokenizer = config, tokenizer
        self.weights = {name[len(PREFIX):] if name.startswith(PREFIX) else name: value.astype(np.float32)
                        for name, value in weights.items()}
        self.encode = text_encoder(tokenizer, config.text_pipeline)

    @classmethod
    def load(cls, directory: str | Path) -> "Ranker":
        from studio.text.tokenizers import TokenizerPair

        directory = Path(directory)
        config = RankerConfig.from_dict(json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8")))
        return cls(config, load_npz(directory / WEIGHTS_FILE), TokenizerPair.load(directory / TOKENIZER_DIR).source)

    def scores(self, question: str, answers: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """The ranker's score of each answer to `question` (higher: a better reply)."""
        if not answers:
            return np.zeros(0, np.float32)
        if self.config.kind == "sides":
            rows = [(side_ids(self.encode, text, self.config), []) for text in [question, *answers]]
            vectors = pooled_states(self.weights, self.config, pad_batch(rows, pad_id=self.config.pad_id)[0])
            return side_scores(self.weights, vectors[0], vectors[1:])
        rows = [pair_ids(self.encode, question, answer, self.config) for answer in answers]
        out = [forward(self.weights, self.config, *pad_batch(rows[i:i + batch_size], pad_id=self.config.pad_id))
               for i in range(0, len(rows), batch_size)]
        return np.concatenate(out)

    def combined(self, features: dict[str, np.ndarray]) -> np.ndarray:
        return combine(features, self.config.weights)


def combine(features: dict[str, np.ndarray], weights: dict[str, float]) -> np.ndarray:
    """Σ weight × feature over the weighted features (each an array over the candidates)."""
    missing = [name for name, weight in weights.items() if weight and name not in features]
    if missing:
        raise ValueError(f"the combination needs the feature(s) {', '.join(missing)}")
    length = len(next(iter(features.values())))
    total = np.zeros(length, np.float64)
    for name, weight in weights.items():
        if weight:
            total += weight * np.asarray(features[name], np.float64)
    return total


@dataclass
class Candidates:
    """A question's candidate replies: distinct answers of its nearest training questions, best first."""
    answers: list[str]
    cosines: list[float]  # the best cosine among the rows with that answer
    rows: list[int]  # the best row with that answer
    votes: list[float]  # the sum of the cosines of the rows read with that answer (stock replies gather votes)


def candidates(index, question: str, k: int, exclude_rows: Sequence[int] = ()) -> Candidates:
    """The first `k` distinct answers among the `index`'s best 4k rows for `question` (rows in `exclude_rows`
    never count), each with its best cosine and the votes of every row read."""
    excluded = set(exclude_rows)
    found: dict[str, list] = {}
    for row, cosine in index.query(question, 4 * k + len(excluded)):
        if row in excluded or cosine <= 0:
            continue
        entry = found.setdefault(index.answers[row], [cosine, row, 0.0])
        entry[2] += cosine
    chosen = list(found.items())[:k]
    return Candidates([a for a, _ in chosen], [e[0] for _, e in chosen], [e[1] for _, e in chosen],
                      [e[2] for _, e in chosen])


def choose(ranker: Ranker, question: str, found: Candidates, extra: dict[str, Sequence[float]] | None = None):
    """(the best candidate's index, its combined score, the combined scores) for `question`; `extra` holds
    features computed elsewhere (a backward model's scores)."""
    features = {"ranker": ranker.scores(question, found.answers), "cosine": np.asarray(found.cosines),
                "votes": np.asarray(found.votes)}
    features.update({name: np.asarray(values) for name, values in (extra or {}).items()})
    total = ranker.combined(features)
    best = int(np.argmax(total))
    return best, float(total[best]), total


def save_config(directory: Path, config: RankerConfig) -> None:
    from studio.files import atomic_write_bytes

    text = json.dumps(asdict(config), indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(Path(directory) / CONFIG_FILE, text.encode("utf-8"))
