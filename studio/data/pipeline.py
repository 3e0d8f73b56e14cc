"""From text pairs to training batches: normalize, deduplicate, tokenize, filter by length, split
deterministically into train/dev, and batch by length buckets with dynamic padding.

Batches have one fixed shape per bucket (batch size x bucket length): the XLA-compiled train step then
compiles once per bucket instead of once per batch. A bucket's last, partial batch is filled with
all-padding rows, which carry no loss weight.
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from studio.data.readers import Pair
from studio.text import TextPipeline, TokenizerPair, dedupe_pairs, keep_pair


@dataclass
class Example:
    source: list[int]  # source ids followed by </s>
    target: list[int]  # target ids (no specials); the decoder sees <s>+target, predicts target+</s>
    weight: float = 1.0  # expected appearances per epoch (per-source weights)


def parse_source_weights(spec: str) -> dict[str, float]:
    """`"wmt24pp=3,bible_krv_web=0.5"` -> {"wmt24pp": 3.0, "bible_krv_web": 0.5}; names are file stems."""
    weights = {}
    for part in filter(None, (p.strip() for p in (spec or "").split(","))):
        name, sep, value = part.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not name.strip() or not math.isfinite(number) or number < 0:
            raise ValueError(f"source weight {part!r} is not NAME=NUMBER (a finite NUMBER >= 0)")
        weights[name.strip()] = number
    return weights


def check_source_weights(weights: dict[str, float], names: set[str], known: set[str] = frozenset()) -> None:
    """A weight for a name that is neither in the data nor a `known` source (the bundled ones, which a preset's
    weights may name when training on other files) is a typo: say so instead of ignoring it."""
    unknown = sorted(set(weights) - names - set(known))
    if unknown:
        raise ValueError(f"source weights name {', '.join(unknown)}, which the training data does not have; "
                         f"its sources are {', '.join(sorted(names))}")


def source_name(origin: str) -> str:
    """A pair's origin file name as a source name: `wmt24pp.tsv` -> `wmt24pp`."""
    return origin.split(".", 1)[0]


def weighted_indices(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One epoch's draw: index i appears floor(w_i) times, plus once more with probability frac(w_i)."""
    whole = np.floor(weights)
    counts = whole.astype(int) + (rng.random(len(weights)) < (weights - whole)).astype(int)
    return np.repeat(np.arange(len(weights)), counts)


def clean_pairs(pairs: Sequence[Pair], pipeline: TextPipeline) -> list[Pair]:
    """Normalize both sides with the task's text pipeline, drop pairs that end up empty, deduplicate."""
    normalized = [(pipeline.source(p.source), pipeline.target(p.target)) for p in pairs]
    origins = {}
    for pair, (s, t) in zip(pairs, normalized):
        origins.setdefault((s, t), pair.origin)
    kept = dedupe_pairs((s, t) for s, t in normalized if s and t)
    return [Pair(s, t, origins[(s, t)]) for s, t in kept]


def split_key(text: str) -> str:
    """What decides a pair's side of the split: its letters and digits, case-folded. Sources that differ
    only in spacing, punctuation or case ("영화 볼래?" / "영화 볼래 ?") land on the same side, whichever text
    pipeline normalized them, so runs with different pipelines share one dev set."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


SPLIT_KEYS = {"letters-digits": split_key, "pipeline-text": lambda text: text}  # the second: runs before 2026-11
CURRENT_SPLIT = "letters-digits"


def split_train_dev(pairs: Sequence[Pair], dev_fraction: float, seed: int = 0,
                    key: str = CURRENT_SPLIT) -> tuple[list[Pair], list[Pair]]:
    """Deterministic split by a hash of the source's `split_key` (or, with key="pipeline-text", of the
    normalized source itself, as runs before it did), so one source sentence never lands on both sides and
    the split does not change when the file is reordered."""
    keyed = SPLIT_KEYS[key]
    train, dev = [], []
    for pair in pairs:
        digest = hashlib.sha1(f"{seed}:{keyed(pair.source)}".encode("utf-8")).digest()
        (dev if int.from_bytes(digest[:4], "big") / 2**32 < dev_fraction else train).append(pair)
    return train, dev


def encode_pairs(pairs: Sequence[Pair], tokenizers: TokenizerPair, max_source_len: int, max_target_len: int,
                 max_ratio: float | None = None, source_weights: dict[str, float] | None = None,
                 sampling_alpha: float = 0.0) -> list[Example]:
    """Tokenize and keep pairs that fit: source + </s> <= max_source_len, <s> + target <= max_target_len.
    Pairs whose source file has weight 0 are left out. With `sampling_alpha`, each side is segmented by
    SentencePiece subword sampling instead of the single best segmentation."""
    eos = tokenizers.source.eos_id
    source_weights = source_weights or {}
    if sampling_alpha:
        if not all(hasattr(t, "encode_sampled") for t in (tokenizers.source, tokenizers.target)):
            raise ValueError("subword sampling needs SentencePiece tokenizers")
        encode_source = lambda text: tokenizers.source.encode_sampled(text, sampling_alpha)  # noqa: E731
        encode_target = lambda text: tokenizers.target.encode_sampled(text, sampling_alpha)  # noqa: E731
    else:
        encode_source, encode_target = tokenizers.source.encode, tokenizers.target.encode
    examples = []
    for pair in pairs:
        weight = source_weights.get(source_name(pair.origin), 1.0)
        if weight <= 0:
            continue
        source = encode_source(pair.source)
        target = encode_target(pair.target)
        if keep_pair(len(source) + 1, len(target) + 1, max_source_len, max_target_len, max_ratio):
            examples.append(Example(source + [eos], target, weight))
    return examples


def bucket_length(example: Example, width: int, cap: int) -> int:
    longest = max(len(example.source), len(example.target) + 1)
    return min(cap, int(math.ceil(longest / width) * width))


class BucketedBatches:
    """Shuffled, length-bucketed, padded batches: (source [B,L], target_in [B,L], target_out [B,L]) int32."""

    def __init__(self, examples: Sequence[Example], batch_size: int, bucket_width: int, max_len: int,
                 bos_id: int, eos_id: int, pad_id: int = 0, batch_tokens: int = 0, seed: int = 0):
        if not examples:
            raise ValueError("no training examples left after length filtering")
        self.examples = list(examples)
        self.bos_id, self.eos_id, self.pad_id = bos_id, eos_id, pad_id
        self.seed = seed
        self.buckets: dict[int, list[int]] = {}
        for index, example in enumerate(self.examples):
            self.buckets.setdefault(bucket_length(example, bucket_width, max_len), []).append(index)
        weights = np.array([e.weight for e in self.examples], dtype=np.float64)
        self.weights = None if np.all(weights == 1.0) else weights
        self.batch_sizes = {}
        for length, members in self.buckets.items():
            size = max(8, batch_tokens // length // 8 * 8) if batch_tokens else batch_size
            self.batch_sizes[length] = min(size, max(1, math.ceil(self._expected(members))))

    def _expected(self, members) -> float:
        return len(members) if self.weights is None else float(self.weights[np.asarray(members)].sum())

    def _draw(self, members: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A bucket's members for one epoch, resampled by their weights."""
        return members if self.weights is None else members[weighted_indices(self.weights[members], rng)]

    def __len__(self) -> int:
        """Batches per epoch (the expected number when weights resample the epoch)."""
        return sum(math.ceil(self._expected(m) / self.batch_sizes[length]) for length, m in self.buckets.items())

    @property
    def target_tokens(self) -> int:
        """Real (non-padding) target tokens per epoch, including each </s>."""
        return round(sum((len(e.target) + 1) * e.weight for e in self.examples))

    def _pad(self, indices: Sequence[int], length: int, batch_size: int):
        source = np.full((batch_size, length), self.pad_id, np.int32)
        target_in = np.full((batch_size, length), self.pad_id, np.int32)
        target_out = np.full((batch_size, length), self.pad_id, np.int32)
        for row, index in enumerate(indices):
            example = self.examples[index]
            source[row, : len(example.source)] = example.source
            target_in[row, : len(example.target) + 1] = [self.bos_id] + example.target
            target_out[row, : len(example.target) + 1] = example.target + [self.eos_id]
        return source, target_in, target_out

    def epoch(self, epoch: int = 0, shuffle: bool = True) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        rng = np.random.default_rng([self.seed, epoch])
        plan = []
        for length in sorted(self.buckets):
            members = self._draw(np.array(self.buckets[length]), rng)
            if shuffle:
                rng.shuffle(members)
            size = self.batch_sizes[length]
            plan += [(length, size, members[i: i + size]) for i in range(0, len(members), size)]
        if shuffle:
            rng.shuffle(plan)
        for length, size, indices in plan:
            yield self._pad(indices, length, size)

    def dataset(self, epoch: int = 0, shuffle: bool = True):
        """The same batches as a prefetching `tf.data.Dataset`."""
        import tensorflow as tf  # deferred: TensorFlow only when training

        spec = tf.TensorSpec([None, None], tf.int32)
        return tf.data.Dataset.from_generator(lambda: self.epoch(epoch, shuffle),
                                              output_signature=(spec, spec, spec)).prefetch(2)


class SampledBatches:
    """`BucketedBatches` whose pairs are segmented anew every epoch by SentencePiece subword sampling.

    Batch order and weights are seeded by (seed, epoch) as in `BucketedBatches`, but SentencePiece's sampler
    cannot be seeded per call: a run resumed mid-epoch draws that epoch's segmentation anew (the same pairs, other
    pieces). Length and token count are those of the best segmentation (sampling changes them a little)."""

    def __init__(self, pairs: Sequence[Pair], tokenizers: TokenizerPair, alpha: float, encode_args: dict,
                 batch_args: dict, examples: Sequence[Example] | None = None):
        """`examples`: the pairs already encoded with `encode_args` (best segmentation), if the caller has them."""
        self.pairs, self.tokenizers, self.alpha = list(pairs), tokenizers, alpha
        self.encode_args, self.batch_args = encode_args, batch_args
        self.examples = list(examples) if examples is not None else encode_pairs(self.pairs, tokenizers, **encode_args)
        self.reference = BucketedBatches(self.examples, **batch_args)
        self._cached: tuple[int, BucketedBatches] | None = None

    def __len__(self) -> int:
        return len(self.reference)

    @property
    def target_tokens(self) -> int:
        return self.reference.target_tokens

    def batches_for(self, epoch: int) -> BucketedBatches:
        if self._cached is None or self._cached[0] != epoch:
            examples = encode_pairs(self.pairs, self.tokenizers, sampling_alpha=self.alpha, **self.encode_args)
            self._cached = (epoch, BucketedBatches(examples, **self.batch_args))
        return self._cached[1]

    def epoch(self, epoch: int = 0, shuffle: bool = True):
        return self.batches_for(epoch).epoch(epoch, shuffle)

    def dataset(self, epoch: int = 0, shuffle: bool = True):
        return self.batches_for(epoch).dataset(epoch, shuffle)
