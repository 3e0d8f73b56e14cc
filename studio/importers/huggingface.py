"""A Hugging Face MarianMT folder read without PyTorch: the second reader of the one Marian importer
(`studio.importers.marian`), which finds in it what the first finds in a Marian release.

The folder is what transformers' `save_pretrained` writes for a MarianMTModel and its tokenizer: config.json,
model.safetensors (or, for weights saved in shards, model.safetensors.index.json and the shards its `weight_map`
names), source.spm, target.spm, vocab.json (and target_vocab.json for separate vocabularies), and
tokenizer_config.json, generation_config.json and README.md where present. Its tensors get Marian's names (PyTorch's
[out, in] matrices transposed) and config.json's settings Marian's options, so that the bundle computes what
transformers' MarianMTModel computes:

- post-norm layers, the only ones MarianMTModel has (`normalize_before`, `normalize_embedding` or
  `add_final_layer_norm` set are refused: it ignores them, so the weights were not made for it);
- `activation_function` swish (silu), relu or quick_gelu (x * sigmoid(1.702x), Marian's gelu); transformers' gelu
  (erf) and its tanh approximations are refused;
- layer norm epsilon 1e-5 (PyTorch's default, which MarianMTModel keeps; Marian computes with 1e-9), embeddings
  scaled as `scale_embedding` says, sinusoids as [sin | cos] halves (a stored `embed_positions` table must be those:
  MarianMTModel loads one the file has);
- vocab.json is Marian's vocabulary with `<pad>` last (`pad_token_id`), whose zero row starts the decoder
  (`decoder_start_token_id`): the import's own padding and start pieces replace it (CTranslate2's converter drops
  it too);
- `final_logits_bias` is Marian's output bias; `lm_head.weight` counts only when `tie_word_embeddings` is false.

config.json leaves out nothing this reads but `tie_word_embeddings` and `share_encoder_decoder_embeddings` when
true (transformers writes every MarianConfig setting, and the base class's only where they differ from its defaults).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from studio.errors import StudioError
from studio.importers.marian import Pretrained, languages, text

EPSILON = 1e-5  # PyTorch's LayerNorm default, which MarianMTModel's layer norms keep
WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"  # weights saved in shards: which shard holds each tensor (`weight_map`)
FILES = ("config.json", WEIGHTS, "vocab.json", "source.spm", "target.spm")
OTHER_WEIGHTS = ("pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack")
SHARD = re.compile(r"[\w.-]+\.safetensors")  # a shard's file name, in the index's folder: no path
ACTIVATIONS = {"swish": "swish", "silu": "swish", "relu": "relu", "quick_gelu": "gelu"}  # -> Marian's names
REQUIRED = ("d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads", "decoder_attention_heads",
            "encoder_ffn_dim", "decoder_ffn_dim", "vocab_size", "pad_token_id")
PAD = "<pad>"
NOTE = ("- Read from Hugging Face's MarianMT layout: PyTorch's [out, in] matrices transposed, its `<pad>` (the "
        "decoder start, a zero embedding) replaced by the padding and decoder start pieces above, and the layer "
        "norms' epsilon transformers' 1e-5 (Marian computes with 1e-9: a translation may differ very slightly "
        "from the original Marian model's).")


def is_folder(folder: Path) -> bool:
    return (folder / "config.json").is_file() and not (folder / "decoder.yml").is_file()


def read_folder(folder: Path, name: str) -> Pretrained:
    """The MarianMT model in `folder`, refused in one sentence when the studio cannot compute what transformers
    computes of it."""
    config = _json(folder / "config.json", name)
    problems = refusals(config)
    if problems:
        raise StudioError(f"{name} cannot be imported: {'; '.join(problems)}")
    _check_files(folder, name)
    tokenizer = _json(folder / "tokenizer_config.json", name, missing={})
    generation = _json(folder / "generation_config.json", name, missing={})
    vocabularies = _vocabularies(folder, config, bool(tokenizer.get("separate_vocabs")), name)
    start = generation.get("decoder_start_token_id", config.get("decoder_start_token_id", config["pad_token_id"]))
    file = WEIGHTS if (folder / WEIGHTS).is_file() else f"{INDEX} with its shards"
    arrays = marian_arrays(load_weights(folder, name), config, vocabularies, start, name, file)
    found = languages(text(folder, "README.md"))
    langs = tuple(found[i] or str(tokenizer.get(f"{side}_lang") or "") for i, side in enumerate(("source", "target")))
    return Pretrained(folder, name, "Hugging Face", arrays, marian_options(config), vocabularies,
                      (folder / "source.spm").read_bytes(), (folder / "target.spm").read_bytes(), epsilon=EPSILON,
                      scale_embeddings=bool(config.get("scale_embedding", False)), languages=langs, notes=(NOTE,))


def refusals(config: dict) -> list[str]:
    """What the studio's Transformer cannot compute of the MarianMT model config.json describes, in words."""
    o = config.get
    if o("model_type") != "marian":
        return [f"it is a {o('model_type')!r} model (config.json's model_type), and only MarianMT models (marian) "
                "can be imported"]
    found = []
    missing = [key for key in REQUIRED if not isinstance(o(key), int)]
    if missing:
        found.append(f"its config.json does not give {', '.join(missing)} (transformers writes them all)")
    flags = [key for key in ("normalize_before", "normalize_embedding", "add_final_layer_norm") if o(key)]
    if flags:
        found.append(f"its config.json sets {', '.join(flags)}, which transformers' MarianMTModel ignores (its layers "
                     "are post-norm, without embedding or final layer norms): the weights were not made for it; "
                     "import the Marian release instead")
    activation = o("activation_function", "gelu")
    if activation not in ACTIVATIONS:
        found.append(f"its activation_function is {activation!r} (swish, silu, relu or quick_gelu can be imported; "
                     "transformers' gelu is the erf GELU, which the studio's Transformer does not compute)")
    if o("encoder_attention_heads") != o("decoder_attention_heads"):
        found.append(f"its encoder has {o('encoder_attention_heads')} attention heads and its decoder "
                     f"{o('decoder_attention_heads')}")
    return found


def marian_options(config: dict) -> dict:
    """config.json's architecture as Marian's options (those the import reads)."""
    return {"type": "transformer", "enc-depth": config["encoder_layers"], "dec-depth": config["decoder_layers"],
            "transformer-heads": config["encoder_attention_heads"],
            "transformer-ffn-activation": ACTIVATIONS[config.get("activation_function", "gelu")],
            "transformer-preprocess": "", "transformer-postprocess": "dan", "transformer-postprocess-top": ""}


def _json(path: Path, name: str, missing=None) -> dict:
    if not path.is_file() and missing is not None:
        return missing
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        raise StudioError(f"{path.name} of {name} is not readable JSON") from None
    if not isinstance(value, dict):
        raise StudioError(f"{path.name} of {name} is not a JSON object")
    return value


def _check_files(folder: Path, name: str) -> None:
    if not (folder / WEIGHTS).is_file() and not (folder / INDEX).is_file():
        other = next((other for other in OTHER_WEIGHTS if (folder / other).is_file()), None)
        if other:
            raise StudioError(f"{name} holds its weights as {other}, not {WEIGHTS} (or its shards with {INDEX}), "
                              "the weights the studio reads (a .bin needs PyTorch, and unpickling one can run code): "
                              "convert it where "
                              "transformers and PyTorch are installed (MarianMTModel.from_pretrained(FOLDER)"
                              ".save_pretrained(NEW_FOLDER)) and import NEW_FOLDER, or import the model's Marian "
                              "release (its OPUS-MT zip) instead")
    for file in FILES:
        if not (folder / file).is_file() and not (file == WEIGHTS and (folder / INDEX).is_file()):
            raise StudioError(f"{file} is missing from {name} (a Hugging Face MarianMT folder has "
                              f"{', '.join(FILES)}; its weights may be in shards, with {INDEX})")


def _vocabulary(path: Path, name: str) -> list[str]:
    """A vocab.json ({piece: id}) as its pieces by id."""
    entries = _json(path, name)
    ids = sorted(entries.values(), key=lambda i: i if isinstance(i, int) else -1)
    if ids != list(range(len(entries))):
        raise StudioError(f"{path.name} of {name}: its ids are not 0..{len(entries) - 1} without gaps")
    pieces = [""] * len(entries)
    for piece, index in entries.items():
        pieces[index] = piece
    return pieces


def _vocabularies(folder: Path, config: dict, separate: bool, name: str) -> tuple[list[str], list[str]]:
    """(source, target) vocabularies as Marian's: without the `<pad>` transformers' converter adds last."""
    if separate and not (folder / "target_vocab.json").is_file():
        raise StudioError(f"target_vocab.json is missing from {name} (its tokenizer_config.json says separate_vocabs)")
    files = ("vocab.json", "target_vocab.json" if separate else "vocab.json")
    found = []
    for file, pad in zip(files, (config["pad_token_id"], None)):
        pieces = _vocabulary(folder / file, name)
        if not pieces or pieces[-1] != PAD or pad not in (None, len(pieces) - 1):
            raise StudioError(f"{file} of {name} does not end with {PAD} at pad_token_id ({config['pad_token_id']}), "
                              "as transformers' Marian converter writes it")
        found.append(pieces[:-1])
    return found[0], found[1]


def load_weights(folder: Path, name: str) -> dict[str, np.ndarray]:
    """The model's tensors by name: model.safetensors, or the shards model.safetensors.index.json names, merged by
    its `weight_map` (each tensor from the shard it names); StudioError naming a shard that is missing or lacks a
    tensor the index puts in it."""
    if (folder / WEIGHTS).is_file():
        return load_tensors(folder / WEIGHTS)
    weight_map = read_index(folder / INDEX, name)
    missing = [shard for shard in shards(weight_map) if not (folder / shard).is_file()]
    if missing:
        raise StudioError(f"{name}: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing (a shard of "
                          f"its weights that {INDEX} names)")
    tensors = {}
    for shard in shards(weight_map):
        stored = load_tensors(folder / shard)
        for tensor in (tensor for tensor, where in weight_map.items() if where == shard):
            if tensor not in stored:
                raise StudioError(f"{name}: {shard} has no {tensor}, which {INDEX} says it holds")
            tensors[tensor] = stored[tensor]
    return tensors


def read_index(path: Path, name: str) -> dict[str, str]:
    """The `weight_map` of a sharded model's index ({tensor: shard file}); StudioError for one that is not an index
    of shards beside it."""
    weight_map = _json(path, name).get("weight_map")
    if not isinstance(weight_map, dict) or not weight_map:
        raise StudioError(f"{INDEX} of {name} has no weight_map (which shard holds each tensor)")
    odd = next((shard for shard in weight_map.values() if not (isinstance(shard, str) and SHARD.fullmatch(shard)
                                                               and ".." not in shard)), None)
    if odd is not None:
        raise StudioError(f"{INDEX} of {name} names {odd!r} as a shard: not a .safetensors file beside it")
    return weight_map


def shards(weight_map: dict[str, str]) -> list[str]:
    """The shard files an index's `weight_map` names, in order."""
    return sorted(set(weight_map.values()))


def load_tensors(path: Path) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file  # deferred: only this reader needs it

    try:
        return load_file(str(path))
    except Exception as error:  # noqa: BLE001 - safetensors' own error, or one for a dtype numpy lacks
        raise StudioError(f"{path.name} is not a readable safetensors file ({type(error).__name__}: {error})") from None


class _Tensors:
    """The file's tensors by name (without a "model." prefix), counting those read: any left over is a layout
    this reader does not know. `file`: what messages call the file ("model.safetensors", or its shards)."""

    def __init__(self, tensors: dict[str, np.ndarray], name: str, file: str = WEIGHTS):
        self.tensors = {key.removeprefix("model."): value for key, value in tensors.items()}
        self.name, self.file, self.read = name, file, set()

    def get(self, key: str) -> np.ndarray | None:
        self.read.add(key)
        value = self.tensors.get(key)
        return None if value is None else np.ascontiguousarray(value, dtype=np.float32)

    def take(self, key: str) -> np.ndarray:
        value = self.get(key)
        if value is None:
            raise StudioError(f"{self.name}: {self.file} has no {key}, which its config.json implies")
        return value

    def left(self) -> list[str]:
        return sorted(set(self.tensors) - self.read)


def _layers(t: _Tensors, config: dict) -> dict[str, np.ndarray]:
    """The encoder and decoder layers under Marian's names ([in, out] matrices, [1, n] biases and norms)."""
    arrays = {}
    for side in ("encoder", "decoder"):
        blocks = (("self_attn", "self"),) + ((("encoder_attn", "context"),) if side == "decoder" else ())
        for i in range(config[f"{side}_layers"]):
            hf, marian = f"{side}.layers.{i}", f"{side}_l{i + 1}"
            for block, ours in blocks:
                for x, projection in zip("qkvo", ("q_proj", "k_proj", "v_proj", "out_proj")):
                    arrays[f"{marian}_{ours}_W{x}"] = t.take(f"{hf}.{block}.{projection}.weight").T
                    arrays[f"{marian}_{ours}_b{x}"] = t.take(f"{hf}.{block}.{projection}.bias")[None]
                arrays[f"{marian}_{ours}_Wo_ln_scale"] = t.take(f"{hf}.{block}_layer_norm.weight")[None]
                arrays[f"{marian}_{ours}_Wo_ln_bias"] = t.take(f"{hf}.{block}_layer_norm.bias")[None]
            for n in "12":
                arrays[f"{marian}_ffn_W{n}"] = t.take(f"{hf}.fc{n}.weight").T
                arrays[f"{marian}_ffn_b{n}"] = t.take(f"{hf}.fc{n}.bias")[None]
            arrays[f"{marian}_ffn_ffn_ln_scale"] = t.take(f"{hf}.final_layer_norm.weight")[None]
            arrays[f"{marian}_ffn_ffn_ln_bias"] = t.take(f"{hf}.final_layer_norm.bias")[None]
    return arrays


def _rows(matrix: np.ndarray, vocabulary: list[str], what: str, name: str) -> np.ndarray:
    """An embedding (or output) matrix over Marian's vocabulary: without the row of transformers' `<pad>`."""
    if matrix.shape[0] != len(vocabulary) + 1:
        raise StudioError(f"{name}: its {what} has {matrix.shape[0]} rows, and its vocabulary {len(vocabulary) + 1} "
                          f"pieces with {PAD}")
    return matrix[:-1]


def marian_arrays(tensors: dict, config: dict, vocabularies: tuple[list[str], list[str]], start: int,
                  name: str, file: str = WEIGHTS) -> dict[str, np.ndarray]:
    """The model's tensors under Marian's names, as a Marian release's `.npz` holds them (`file`: what holds them,
    for messages)."""
    from studio.model.positional import positional_encoding  # deferred: the model package imports Keras

    t = _Tensors(tensors, name, file)
    source, target = vocabularies
    if config.get("share_encoder_decoder_embeddings", True):
        found = [t.get(key) for key in ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight")]
        encoder = decoder = next((value for value in found if value is not None), None)
        if encoder is None:
            raise StudioError(f"{name}: {t.file} has no shared embedding (shared.weight)")
        arrays = {"Wemb": _rows(encoder, source, "embedding", name)}
    else:
        t.get("shared.weight")  # transformers keeps none when the embeddings are not shared, and ignores one
        encoder, decoder = t.take("encoder.embed_tokens.weight"), t.take("decoder.embed_tokens.weight")
        arrays = {"encoder_Wemb": _rows(encoder, source, "encoder embedding", name),
                  "decoder_Wemb": _rows(decoder, target, "decoder embedding", name)}
    if not 0 <= start < len(decoder) or np.any(decoder[start]):
        raise StudioError(f"{name} cannot be imported: its decoder starts from token {start}, whose embedding is not "
                          "all zeros (the studio starts an imported Marian decoder from a zero embedding)")
    head = t.get("lm_head.weight")
    if not config.get("tie_word_embeddings", True):
        if head is None:
            raise StudioError(f"{name}: {t.file} has no lm_head.weight, and its config.json unties it")
        arrays["decoder_ff_logit_out_W"] = _rows(head, target, "lm_head", name).T
    bias = t.get("final_logits_bias")  # transformers starts from zeros when the file has none
    if bias is not None:
        arrays["decoder_ff_logit_out_b"] = _rows(bias.reshape(-1), target, "final_logits_bias", name)[None]
    for side in ("encoder", "decoder"):
        table = t.get(f"{side}.embed_positions.weight")
        if table is not None and (table.shape[1] != config["d_model"] or not np.allclose(
                table, positional_encoding(len(table), table.shape[1], "halves"), atol=1e-6)):
            raise StudioError(f"{name} cannot be imported: its {side}'s position embeddings are not the sinusoids "
                              "MarianMTModel computes (learned positions cannot be imported)")
    arrays.update(_layers(t, config))
    if t.left():
        left = t.left()
        raise StudioError(f"{name} cannot be imported: {t.file} holds {len(left)} tensors a MarianMTModel does not "
                          f"have ({', '.join(left[:3])}{', ...' if len(left) > 3 else ''})")
    return arrays
