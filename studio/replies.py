"""Where a chatbot's reply comes from: a stored reply — the answer of the training question most like the message,
found by `studio.text.retrieval` (TF-IDF over character n-grams) — or the model's own words.

Stored replies are the default (`Task.reply_modes`): on ChatbotData's held-out questions they score 27.79 chrF
against 22.35 for the shipped model's greedy replies, and no ranker trained to choose among the retrieved replies
beat retrieval alone by the 2 chrF asked of it (docs/chatbot-training.md). A chatbot bundle keeps them in
`replies.npz`: the index over its training pairs as they were written (never its dev split), built when it is
trained. A message that shares no character n-gram with any training question has no stored reply: the model
writes that one.

An export package (python, android, ios, web) carries the index in its portable form (`PORTABLE_FILES`:
`RetrievalIndex.portable`), named in its manifest's `replies` section, which `studio.packaged` and the ports read."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from studio.data.pipeline import SPLIT_KEYS, Pair, dedupe_pairs
from studio.text.inputs import InputError
from studio.text.retrieval import PORTABLE, RetrievalIndex

REPLIES_FILE = "replies.npz"
PORTABLE_FILES = {"index": "replies.json", "arrays": "replies.bin"}  # a package's: manifest `replies` names them
RETRIEVE, GENERATE = "retrieve", "generate"
MODES = {RETRIEVE: "a stored reply: the answer to the training question most like the message (the model writes "
                   "the reply when none is alike)",
         GENERATE: "the model writes every reply"}
FROM_THE_MODEL = "written by the model"
NONE_STORED = "No stored reply is like this message: the model wrote this one."
NO_INDEX = "This chatbot has no stored replies (trained before they were kept): the model wrote this one."


@dataclass(frozen=True)
class StoredReply:
    text: str
    match: float  # the cosine of the message with the training question (0 to 1)
    question: str  # the training question it answers
    ms: float  # how long finding it took

    def summary(self) -> str:
        """The line shown beside the reply: where it came from, how alike the questions are, the time."""
        return f"stored reply · match {self.match:.2f} · answers “{self.question}” · {self.ms:.1f} ms"


def portable_replies(index: RetrievalIndex, prefix: str = "") -> dict[str, bytes]:
    """{path in a package: content} of `index`'s portable form, under `prefix` (the web page's model folder)."""
    meta, arrays = index.portable()
    return {prefix + PORTABLE_FILES["index"]: meta, prefix + PORTABLE_FILES["arrays"]: arrays}


def manifest_section(index: RetrievalIndex, modes: Sequence[str], prefix: str = "") -> dict:
    """A package manifest's `replies`: where the portable index lies, its size, and the task's reply modes (the
    default first)."""
    return {**{role: prefix + name for role, name in PORTABLE_FILES.items()}, "format": PORTABLE,
            "analyzer": index.analyzer, "rows": len(index.questions), "terms": len(index.vocabulary),
            "modes": list(modes)}


def load_portable(folder, section: dict) -> RetrievalIndex:
    """The index a package's manifest `replies` section (`manifest_section`) names, read from `folder`."""
    return RetrievalIndex.from_portable((Path(folder) / section["index"]).read_bytes(),
                                        (Path(folder) / section["arrays"]).read_bytes())


def check_mode(mode: str, modes: Sequence[str]) -> str:
    """`mode` if the task's chatbot can reply that way, else an InputError naming the choices."""
    if mode not in modes:
        choices = ", ".join(f"{name} ({MODES[name]})" for name in modes)
        raise InputError(f"Unknown reply mode {mode!r}: choose {choices}.")
    return mode


def training_side(written: Sequence[Pair], train: Sequence[Pair], split_key: str) -> list[Pair]:
    """The pairs as written (`written`) whose question is on the training side of a run's split (`train`, the
    pipeline's normalized pairs): stored replies keep the writers' spacing and punctuation, and never answer a
    dev question with its own answer. A pair whose question is the same as another's up to the split key keeps
    both answers (retrieval returns the first)."""
    key = SPLIT_KEYS[split_key]
    kept = {key(p.source) for p in train}
    pairs = dedupe_pairs((p.source.strip(), p.target.strip()) for p in written if key(p.source) in kept)
    return [Pair(source, target) for source, target in pairs if source and target]


def build_replies(pairs: Sequence[Pair]) -> RetrievalIndex:
    return RetrievalIndex.build([p.source for p in pairs], [p.target for p in pairs], "char")


def find_reply(index: RetrievalIndex, message: str) -> StoredReply | None:
    """The stored reply to `message`, or None when no training question shares a character n-gram with it."""
    started = time.perf_counter()
    row, match = index.query(message, 1)[0] if index.questions else (0, 0.0)
    if match <= 0.0:
        return None
    return StoredReply(index.answers[row], match, index.questions[row], (time.perf_counter() - started) * 1000)


def stored_reply(index: RetrievalIndex | None, message: str, mode: str, modes: Sequence[str]
                 ) -> tuple[StoredReply | None, str]:
    """(the stored reply, "") when `mode` asks for one and one is alike; else (None, why the model writes it: ""
    when the mode asked for the model). InputError for a mode not in `modes`."""
    check_mode(mode, modes)
    if mode != RETRIEVE:
        return None, ""
    if index is None:
        return None, NO_INDEX
    found = find_reply(index, message)
    return found, "" if found else NONE_STORED
