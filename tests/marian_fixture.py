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


def write_release(folder: Path, variant: Variant = POST_NORM, seed: int | None = None, spm_size: int = 100,
                  languages: tuple[str, str] = ("ko", "en")) -> Path:
    """A Marian release folder of `variant` with a shared vocabulary (its sentences and weights drawn with `seed`,
    by default the variant's), its README naming `languages` (source, target) as OPUS-MT's do; returns the
    folder."""
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
    readme = README.replace("source language(s): ko", f"source language(s): {languages[0]}")
    (folder / "README.md").write_text(readme.replace("target language(s): en", f"target language(s): {languages[1]}"),
                                      encoding="utf-8")
    (folder / "LICENSE").write_text(LICENSE, encoding="utf-8")
    return folder


# a variant only a Hugging Face folder needs besides the others: separate source and target embeddings with the
# output tied to the target's, post-norm (MarianMTModel has no pre-norm layers)
TIED_OUTPUT_POST = Variant("post-norm, target tied to output", tied_all=False, tied_output=True, seed=5,
                           eos_bias=4.5)
HF_VARIANTS = (POST_NORM, UNTIED, TIED_OUTPUT_POST)  # those transformers' MarianMTModel computes
HF_ACTIVATIONS = {"swish": "swish", "relu": "relu", "gelu": "quick_gelu"}  # Marian's -> transformers'
HF_README = """---
language:
- ko
- en
tags:
- translation
license: cc-by-4.0
---

### opus-mt-ko-en

* source languages: ko
* target languages: en
* dataset: opus
* model: transformer-align

## Benchmarks

| testset               | BLEU  | chr-F |
|-----------------------|-------|-------|
| Tatoeba-test.ko.en 	| 12.3 	| 0.345 |
"""


def hf_positions(rows: int, dim: int) -> np.ndarray:
    """MarianSinusoidalPositionalEmbedding's table, as transformers computes it."""
    angles = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(rows)])
    table = np.zeros((rows, dim))
    table[:, : dim // 2] = np.sin(angles[:, 0::2])
    table[:, dim // 2:] = np.cos(angles[:, 1::2])
    return table.astype(np.float32)


def hf_tensors(arrays: dict[str, np.ndarray], variant: Variant, positions: bool = False) -> dict[str, np.ndarray]:
    """A Marian model's weights as transformers' converter stores them: PyTorch's names, [out, in] matrices, a zero
    row (and a zero bias) for the `<pad>` added after the vocabulary."""
    def padded(matrix):
        return np.concatenate([matrix, np.zeros((1, matrix.shape[1]), np.float32)])

    suffix = "_pre" if variant.preprocess == "n" else ""
    tensors = {}
    if variant.tied_all:
        tensors["model.shared.weight"] = padded(arrays["Wemb"])
    else:
        tensors["model.encoder.embed_tokens.weight"] = padded(arrays["encoder_Wemb"])
        tensors["model.decoder.embed_tokens.weight"] = padded(arrays["decoder_Wemb"])
    if "decoder_ff_logit_out_W" in arrays:
        tensors["lm_head.weight"] = padded(arrays["decoder_ff_logit_out_W"].T)
    tensors["final_logits_bias"] = np.concatenate([arrays["decoder_ff_logit_out_b"], np.zeros((1, 1), np.float32)], 1)
    for side, depth in (("encoder", variant.enc_depth), ("decoder", variant.dec_depth)):
        blocks = [("self_attn", "self")] + ([("encoder_attn", "context")] if side == "decoder" else [])
        for i in range(depth):
            hf, marian = f"model.{side}.layers.{i}", f"{side}_l{i + 1}"
            for block, ours in blocks:
                for x, projection in zip("qkvo", ("q_proj", "k_proj", "v_proj", "out_proj")):
                    tensors[f"{hf}.{block}.{projection}.weight"] = arrays[f"{marian}_{ours}_W{x}"].T
                    tensors[f"{hf}.{block}.{projection}.bias"] = arrays[f"{marian}_{ours}_b{x}"].reshape(-1)
                tensors[f"{hf}.{block}_layer_norm.weight"] = arrays[f"{marian}_{ours}_Wo_ln_scale{suffix}"][0]
                tensors[f"{hf}.{block}_layer_norm.bias"] = arrays[f"{marian}_{ours}_Wo_ln_bias{suffix}"][0]
            for n in "12":
                tensors[f"{hf}.fc{n}.weight"] = arrays[f"{marian}_ffn_W{n}"].T
                tensors[f"{hf}.fc{n}.bias"] = arrays[f"{marian}_ffn_b{n}"].reshape(-1)
            tensors[f"{hf}.final_layer_norm.weight"] = arrays[f"{marian}_ffn_ffn_ln_scale{suffix}"][0]
            tensors[f"{hf}.final_layer_norm.bias"] = arrays[f"{marian}_ffn_ffn_ln_bias{suffix}"][0]
        if variant.top == "n":
            tensors[f"model.{side}.layer_norm.weight"] = arrays[f"{side}_top_ln_scale"][0]
            tensors[f"model.{side}.layer_norm.bias"] = arrays[f"{side}_top_ln_bias"][0]
        if positions:
            tensors[f"model.{side}.embed_positions.weight"] = hf_positions(512, variant.d_model)
    # safetensors (0.8) writes a Fortran-ordered array's memory as if it were in C order
    return {name: np.ascontiguousarray(value) for name, value in tensors.items()}


def hf_config(variant: Variant, pad: int) -> dict:
    """config.json as transformers (4.4x) writes a converted OPUS-MT model's; `tie_word_embeddings` only when false
    (it writes the base class's settings only where they differ from the defaults)."""
    pre = variant.preprocess == "n"
    config = {"_name_or_path": "Helsinki-NLP/opus-mt-ko-en", "activation_dropout": 0.0,
              "activation_function": HF_ACTIVATIONS[variant.activation], "architectures": ["MarianMTModel"],
              "attention_dropout": 0.0, "bad_words_ids": [[pad]], "bos_token_id": 0, "classifier_dropout": 0.0,
              "d_model": variant.d_model, "decoder_attention_heads": variant.heads, "decoder_ffn_dim": variant.d_ff,
              "decoder_layerdrop": 0.0, "decoder_layers": variant.dec_depth, "decoder_start_token_id": pad,
              "decoder_vocab_size": pad + 1, "dropout": 0.1, "encoder_attention_heads": variant.heads,
              "encoder_ffn_dim": variant.d_ff, "encoder_layerdrop": 0.0, "encoder_layers": variant.enc_depth,
              "eos_token_id": 0, "forced_eos_token_id": 0, "init_std": 0.02, "is_encoder_decoder": True,
              "max_length": 512, "max_position_embeddings": 512, "model_type": "marian", "normalize_before": pre,
              "add_final_layer_norm": pre, "normalize_embedding": False, "num_beams": 6,
              "num_hidden_layers": variant.enc_depth, "pad_token_id": pad, "scale_embedding": True,
              "share_encoder_decoder_embeddings": variant.tied_all, "static_position_embeddings": True,
              "torch_dtype": "float32", "transformers_version": "4.45.0", "use_cache": True, "vocab_size": pad + 1}
    if not (variant.tied_all or variant.tied_output):
        config["tie_word_embeddings"] = False
    return config


def write_huggingface(release: Path, folder: Path, variant: Variant, positions: bool = False) -> Path:
    """The model of the Marian release `release` (of `variant`) as transformers' Marian converter and
    `save_pretrained` write it: config.json, model.safetensors, vocab.json (the vocabulary, then `<pad>`), the
    release's .spm files, tokenizer_config.json, generation_config.json and a model card; `positions`: with the
    sinusoid tables older conversions stored. A pre-norm variant is written as a converter that did not know
    MarianMTModel has only post-norm layers would (`normalize_before`, final layer norms). Returns the folder."""
    from safetensors.numpy import save_file

    from studio.importers.marian_vocab import read_vocabulary

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with np.load(release / MODEL_FILE) as archive:
        arrays = {name: archive[name] for name in archive.files if not name.startswith("special:")}
    vocabulary = read_vocabulary(release / VOCABULARY_FILE)
    pad = len(vocabulary)
    save_file(hf_tensors(arrays, variant, positions), str(folder / "model.safetensors"), metadata={"format": "pt"})
    files = {"config.json": hf_config(variant, pad),
             "vocab.json": {**{piece: i for i, piece in enumerate(vocabulary)}, "<pad>": pad},
             "tokenizer_config.json": {"source_lang": "ko", "target_lang": "en", "separate_vocabs": False,
                                       "model_max_length": 512, "tokenizer_class": "MarianTokenizer",
                                       "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>"},
             "generation_config.json": {"bad_words_ids": [[pad]], "bos_token_id": 0, "decoder_start_token_id": pad,
                                        "eos_token_id": 0, "forced_eos_token_id": 0, "max_length": 512,
                                        "num_beams": 6, "pad_token_id": pad}}
    for name, value in files.items():
        (folder / name).write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes((release / name).read_bytes())
    (folder / "README.md").write_text(HF_README, encoding="utf-8")
    return folder


def write_shards(folder: Path, target: Path, count: int = 2) -> Path:
    """A copy of the Hugging Face `folder` with its model.safetensors saved in `count` shards, as `save_pretrained`
    writes a model over its shard size: model-0000I-of-0000N.safetensors (the tensors in order, split evenly) and
    model.safetensors.index.json with their `weight_map`. Returns `target`."""
    import shutil

    from safetensors.numpy import load_file, save_file

    shutil.copytree(folder, target)
    tensors = load_file(str(target / "model.safetensors"))
    (target / "model.safetensors").unlink()
    names = sorted(tensors)
    weight_map = {}
    for i in range(count):
        shard = f"model-{i + 1:05d}-of-{count:05d}.safetensors"
        part = names[i * len(names) // count: (i + 1) * len(names) // count]
        save_file({name: tensors[name] for name in part}, str(target / shard), metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(part, shard))
    index = {"metadata": {"total_size": sum(value.nbytes for value in tensors.values())}, "weight_map": weight_map}
    (target / "model.safetensors.index.json").write_text(json.dumps(index, indent=2), encoding="utf-8")
    return target
