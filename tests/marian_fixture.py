"""Tiny random Marian models in the layout Marian writes (a release folder as OPUS-MT ships it: decoder.yml, the
.npz with `special:model.yml`, a vocabulary .yml, source.spm and target.spm, README.md, LICENSE), with SentencePiece
models trained on the fly on generated sentences. Deterministic for a seed."""

from __future__ import annotations

import collections
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from helpers import generated_pairs

# Marian's options as OPUS-MT's models write them into `special:model.yml` (those CTranslate2's converter reads)
BASE_OPTIONS = {"type": "transformer", "transformer-decoder-autoreg": "self-attention",
                "transformer-no-projection": False, "transformer-postprocess-emb": "d",
                "transformer-guided-alignment-layer": "last", "transformer-ffn-depth": 2,
                "transformer-train-position-embeddings": False, "transformer-tied-layers": [], "right-left": False,
                "transformer-aan-depth": 2, "transformer-aan-activation": "swish", "transformer-depth-scaling": False,
                "lemma-dim-emb": 0, "factors-dim-emb": 0, "guided-alignment": "none"}


@dataclass(frozen=True)
class Variant:
    """One Marian architecture, as Marian's options define it."""
    name: str
    preprocess: str = ""  # transformer-preprocess: "" for post-norm, "n" for pre-norm
    postprocess: str = "dan"  # transformer-postprocess: "dan" for post-norm, "da" for pre-norm
    top: str = ""  # transformer-postprocess-top: "n" for pre-norm (a final layer norm)
    tied_all: bool = True  # tied-embeddings-all: one matrix for source, target and output
    tied_output: bool = False  # tied-embeddings: the target embedding is the output projection
    activation: str = "swish"
    enc_depth: int = 2
    dec_depth: int = 2
    d_model: int = 16
    heads: int = 2
    d_ff: int = 32
    # a random model's outputs tend to end at once or never: this seed and </s> bias were picked (on CTranslate2)
    # for outputs of several tokens that end, on a share of the generated sentences
    seed: int = 0
    eos_bias: float = 3.0

    def options(self, vocabulary_size: int) -> dict:
        return {**BASE_OPTIONS, "dim-vocabs": [vocabulary_size, vocabulary_size], "dim-emb": self.d_model,
                "enc-depth": self.enc_depth, "dec-depth": self.dec_depth, "transformer-heads": self.heads,
                "transformer-dim-ffn": self.d_ff, "transformer-ffn-activation": self.activation,
                "transformer-preprocess": self.preprocess, "transformer-postprocess": self.postprocess,
                "transformer-postprocess-top": self.top, "tied-embeddings-all": self.tied_all,
                "tied-embeddings": self.tied_output, "tied-embeddings-src": False}


POST_NORM = Variant("post-norm, tied", seed=4, eos_bias=4.5)
PRE_NORM = Variant("pre-norm, tied", preprocess="n", postprocess="da", top="n", activation="relu", dec_depth=1)
UNTIED = Variant("post-norm, untied", tied_all=False, seed=5, eos_bias=4.5)
TIED_OUTPUT = Variant("pre-norm, target tied to output", preprocess="n", postprocess="da", top="n",
                      tied_all=False, tied_output=True, seed=4, eos_bias=2.0)
VARIANTS = (POST_NORM, PRE_NORM, UNTIED, TIED_OUTPUT)


def sentences(count: int = 120, seed: int = 0) -> tuple[list[str], list[str]]:
    """Korean sources and English targets (the generated pairs), with some punctuation and digits."""
    pairs = generated_pairs(count, seed)
    korean = [q if i % 3 else f"{q} ({i}원)" for i, (q, _, _) in enumerate(pairs)]
    english = [e.capitalize() if i % 2 else f'"{e}" {i}: ok!' for i, (_, _, e) in enumerate(pairs)]
    return korean, english


def train_spm(texts: list[str], vocab_size: int) -> bytes:
    """A SentencePiece model as OPUS-MT trains them: <unk> 0, <s> 1, </s> 2, no <pad>, no byte fallback."""
    import sentencepiece as spm

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_writer=buffer, vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=1.0, hard_vocab_limit=False,
                                   minloglevel=2, num_threads=1, seed_sentencepiece_size=10000)
    return buffer.getvalue()


# pieces of the spm models the vocabulary leaves out (Marian reads them as <unk>), one it has that neither writes,
# and a character neither knows that the training data had (marian-vocab counts it as the segmentation spells it)
DROPPED = 3
VOCABULARY_ONLY = "▁zebra"
RARE_CHARACTER = "鑫"


def vocabulary(source_spm: bytes, target_spm: bytes, korean: list[str], english: list[str]) -> list[str]:
    """A shared vocabulary as `marian-vocab` makes one: </s> 0, <unk> 1, then the pieces of the segmented corpora by
    frequency; without the DROPPED rarest, with VOCABULARY_ONLY."""
    import sentencepiece as spm

    counts = collections.Counter()
    for model, texts in ((source_spm, korean), (target_spm, english)):
        processor = spm.SentencePieceProcessor(model_proto=model)
        for text in texts:
            counts.update(processor.encode(text, out_type=str))
    ranked = [piece for piece, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return ["</s>", "<unk>", *ranked[:-DROPPED], VOCABULARY_ONLY, RARE_CHARACTER]


def write_vocabulary(path: Path, pieces: list[str]) -> None:
    """`piece: id` lines as yaml-cpp writes them: plain keys where YAML allows, double-quoted ones otherwise."""
    plain = re.compile(r"^[^\W_][\w▁]*$")

    def key(piece):
        if plain.match(piece) and piece.lower() not in ("yes", "no", "null", "true", "false", "on", "off"):
            return piece
        return json.dumps(piece, ensure_ascii=False)

    path.write_text("".join(f"{key(piece)}: {i}\n" for i, piece in enumerate(pieces)), encoding="utf-8")


# embeddings small beside what the layers add (scaled by sqrt(d_model), larger ones make a tied output repeat its
# input token); layers' weights twice Xavier's scale: larger ones made the model so sensitive that float32 alone
# (ours or CTranslate2's) moved log-probabilities by 1.5e-4 from a float64 run of the same model
EMBEDDING_STD = 0.4
LAYER_GAIN = 2.0


def weights(variant: Variant, vocabulary_size: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Random weights named and shaped as Marian stores them ([in, out] matrices, [1, n] biases and norms)."""
    rng = np.random.default_rng(seed)
    d, f, V = variant.d_model, variant.d_ff, vocabulary_size
    arrays = {}

    def add(name, shape, scale=None, centre=0.0):
        arrays[name] = (centre + rng.normal(0, scale or LAYER_GAIN * shape[0] ** -0.5, shape)).astype(np.float32)

    def norm(prefix):
        suffix = "_pre" if variant.preprocess == "n" else ""
        add(f"{prefix}_ln_scale{suffix}", (1, d), 0.1, 1.0)
        add(f"{prefix}_ln_bias{suffix}", (1, d), 0.1)

    def attention(prefix):
        for x in "qkvo":
            add(f"{prefix}_W{x}", (d, d))
            add(f"{prefix}_b{x}", (1, d), 0.1)
        norm(f"{prefix}_Wo")

    def ffn(prefix):
        add(f"{prefix}_W1", (d, f))
        add(f"{prefix}_b1", (1, f), 0.1)
        add(f"{prefix}_W2", (f, d))
        add(f"{prefix}_b2", (1, d), 0.1)
        norm(f"{prefix}_ffn")

    for name in (["Wemb"] if variant.tied_all else ["encoder_Wemb", "decoder_Wemb"]):
        add(name, (V, d), EMBEDDING_STD)
    for i in range(1, variant.enc_depth + 1):
        attention(f"encoder_l{i}_self")
        ffn(f"encoder_l{i}_ffn")
    for i in range(1, variant.dec_depth + 1):
        attention(f"decoder_l{i}_self")
        attention(f"decoder_l{i}_context")
        ffn(f"decoder_l{i}_ffn")
    if variant.top == "n":
        for side in ("encoder", "decoder"):
            add(f"{side}_top_ln_scale", (1, d), 0.1, 1.0)
            add(f"{side}_top_ln_bias", (1, d), 0.1)
    if not (variant.tied_all or variant.tied_output):
        add("decoder_ff_logit_out_W", (d, V), EMBEDDING_STD)
    add("decoder_ff_logit_out_b", (1, V), 0.5)
    arrays["decoder_ff_logit_out_b"][0, 0] += variant.eos_bias
    return arrays


def model_yml(options: dict) -> np.ndarray:
    """Marian's `special:model.yml`: the options as YAML, NUL-terminated, as an int8 array."""
    import yaml

    return np.frombuffer(yaml.safe_dump(options, sort_keys=False).encode() + b"\0", dtype=np.int8)


README = """# opus-2020-01-01.zip

* dataset: opus
* model: transformer-align
* source language(s): ko
* target language(s): en
* pre-processing: normalization + SentencePiece (spm32k,spm32k)

## Benchmarks

| testset               | BLEU  | chr-F |
|-----------------------|-------|-------|
| Tatoeba-test.ko.en 	| 12.3 	| 0.345 |
"""

LICENSE = "Creative Commons Attribution 4.0 International (CC-BY 4.0)\n\nA tiny random test model.\n"
MODEL_FILE = "opus.spm32k-spm32k.transformer-align.model1.npz.best-perplexity.npz"
VOCABULARY_FILE = "opus.spm32k-spm32k.vocab.yml"


def write_release(folder: Path, variant: Variant = POST_NORM, seed: int | None = None, spm_size: int = 100) -> Path:
    """A Marian release folder of `variant` with a shared vocabulary (its sentences and weights drawn with `seed`,
    by default the variant's); returns the folder."""
    import yaml

    seed = variant.seed if seed is None else seed
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    korean, english = sentences(seed=seed)
    # Korean text has some Latin script in it: the source model knows Latin letters as OPUS-MT's do
    source_spm, target_spm = train_spm(korean + english, spm_size), train_spm(english, spm_size)
    pieces = vocabulary(source_spm, target_spm, korean, english)
    (folder / "source.spm").write_bytes(source_spm)
    (folder / "target.spm").write_bytes(target_spm)
    write_vocabulary(folder / VOCABULARY_FILE, pieces)
    arrays = weights(variant, len(pieces), seed)
    np.savez(folder / MODEL_FILE, **arrays, **{"special:model.yml": model_yml(variant.options(len(pieces)))})
    decoder = {"models": [MODEL_FILE], "vocabs": [VOCABULARY_FILE, VOCABULARY_FILE], "beam-size": 6,
               "normalize": 0.6, "word-penalty": 0, "mini-batch": 1, "maxi-batch": 1, "maxi-batch-sort": "src",
               "relative-paths": True}
    (folder / "decoder.yml").write_text(yaml.safe_dump(decoder, sort_keys=False), encoding="utf-8")
    (folder / "README.md").write_text(README, encoding="utf-8")
    (folder / "LICENSE").write_text(LICENSE, encoding="utf-8")
    return folder
