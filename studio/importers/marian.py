"""Pretrained Marian Transformers as studio bundles: the Marian reader, and the one conversion every reader's
`Pretrained` goes through (`write_bundle`; `studio.importers.pretrained` chooses the reader).

A reader finds a `Pretrained`: the weights under Marian's names, Marian's options, the two vocabularies and the
SentencePiece models. This module reads a Marian / OPUS-MT release, a folder with `decoder.yml` (naming the model
`.npz` and the vocabularies), the `.npz` (Marian's names: `encoder_l1_self_Wq`, `Wemb`, `decoder_ff_logit_out_b`...;
its options as `special:model.yml`), the vocabulary `.yml` (or `.spm` files used as vocabularies), `source.spm` and
`target.spm`, and usually README.md and LICENSE; `studio.importers.huggingface` reads a Hugging Face MarianMT folder
into the same.

Marian's options map onto `ModelConfig`'s (CTranslate2's converter, `ctranslate2/converters/marian.py`, is the peer
this follows and the tests compare with):

- post-norm: `transformer-preprocess ''`, `transformer-postprocess dan` (our "post"); pre-norm: `n`, `da` and
  `transformer-postprocess-top n` (our "pre", with its final layer norms `*_top_ln_*`);
- `transformer-ffn-activation` relu, swish, or gelu (Marian's x * sigmoid(1.702x): our "gelu-sigmoid");
- sinusoids as [sin | cos] halves, embeddings scaled by sqrt(d_model), layer norm epsilon 1e-9 (Marian's; a reader
  may say otherwise: `Pretrained.epsilon`, `scale_embeddings`);
- `Wemb` shared by source and target (`share_embeddings`); an output tied to the target embedding with Marian's
  `decoder_ff_logit_out_b` as `logits_bias`, or its own `decoder_ff_logit_out_W` (an untied `output_projection`);
- the ids of `studio.importers.marian_vocab`: Marian's vocabulary, then `<pad>` and the decoder start (zero rows:
  Marian starts decoding from a zero embedding), then the pieces Marian reads as `<unk>` (with `<unk>`'s row);
  the output never writes an id past the vocabulary (a bias of `NEVER`).

What the model definition cannot represent is refused in one sentence (`refusals`). Guided alignment is ignored: it
trains an attention head to align words and changes nothing a translation computes.
"""

from __future__ import annotations

import os
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.config import BundleConfig, ModelConfig, TaskConfig, TokenizerConfig, TrainConfig
from studio.errors import StudioError
from studio.importers.marian_vocab import IdSpace, marian_tokenizers, read_vocabulary
from studio.tasks import TRANSLATOR

NEVER = -1e4  # the logits bias of ids past the vocabulary: far below any real logit, and exact in float16
EPSILON = 1e-9  # Marian's layer norm epsilon
ACTIVATIONS = {"relu": "relu", "swish": "swish", "gelu": "gelu-sigmoid"}
NORMS = {("", "dan", ""): "post", ("n", "da", "n"): "pre"}  # (preprocess, postprocess, postprocess-top) -> ours


@dataclass(frozen=True)
class Release:
    """The files of a Marian release."""
    folder: Path
    name: str  # the folder's or the zip's name
    model: Path
    vocabularies: tuple[Path, Path]
    source_spm: Path
    target_spm: Path


@dataclass(frozen=True)
class Pretrained:
    """A pretrained Marian Transformer as a reader found it, whatever its layout: what the import converts."""
    folder: Path
    name: str  # the folder's or the zip's name, or the model id
    layout: str  # "Marian" or "Hugging Face": the card and the bundle's `imported_from` say it
    arrays: dict[str, np.ndarray]  # the weights by Marian's names
    options: dict  # Marian's options
    vocabularies: tuple[list[str], list[str]]  # source, target: Marian's pieces by id
    source_spm: bytes
    target_spm: bytes
    epsilon: float = EPSILON
    scale_embeddings: bool = True
    languages: tuple[str, str] = ("", "")  # (source, target), where the files say
    notes: tuple[str, ...] = ()  # what the reader changed, for the card's "What the import changed"

    def text(self, name: str) -> str:
        return text(self.folder, name)


def text(folder: Path, name: str) -> str:
    """A text file of the folder ("" when it has none)."""
    path = folder / name
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def read_release(folder: Path, name: str) -> Pretrained:
    """A Marian release's model, refused in one sentence when the studio cannot compute it."""
    release = find_release(folder, name)
    arrays, options = load_weights(release.model)
    problems = refusals(options, arrays)
    if problems:
        raise StudioError(f"{name} cannot be imported: {'; '.join(problems)}")
    vocabularies = (_vocabulary(release.vocabularies[0]), _vocabulary(release.vocabularies[1]))
    return Pretrained(folder, name, "Marian", arrays, options, vocabularies, release.source_spm.read_bytes(),
                      release.target_spm.read_bytes(), languages=languages(text(folder, "README.md")))


def find_release(folder: Path, name: str) -> Release:
    """The release's files, as its decoder.yml names them (or the one .npz and vocabulary of a folder without it)."""
    import yaml  # deferred: only imports read YAML

    decoder_path = folder / "decoder.yml"
    if decoder_path.is_file():
        try:
            decoder = yaml.safe_load(decoder_path.read_text(encoding="utf-8")) or {}
            models, vocabularies = list(decoder["models"]), list(decoder["vocabs"])
        except (yaml.YAMLError, KeyError, TypeError, UnicodeDecodeError):
            raise StudioError(f"{decoder_path} does not name the model and vocabularies (models:, vocabs:)") from None
    else:
        models = [p.name for p in folder.glob("*.npz") if not p.name.endswith(".optimizer.npz")]
        vocabularies = [p.name for p in folder.glob("*.yml")] * 2
        if len(models) != 1 or len(vocabularies) != 2:
            raise StudioError(f"{folder} has no decoder.yml, and not exactly one .npz and one vocabulary .yml either: "
                              "is it a Marian release?")
    if len(models) != 1:
        raise StudioError(f"{decoder_path} names an ensemble of {len(models)} models; import one model at a time")
    if len(vocabularies) != 2:
        raise StudioError(f"{decoder_path} names {len(vocabularies)} vocabularies; a translation model has two "
                          "(source and target: multi-source models cannot be imported)")
    paths = [folder / models[0], folder / vocabularies[0], folder / vocabularies[1],
             folder / "source.spm", folder / "target.spm"]
    for path in paths:
        if not path.is_file():
            raise StudioError(f"{path.name} is missing from {name} (a Marian release has the .npz and vocabularies "
                              "its decoder.yml names, source.spm and target.spm)")
    return Release(folder, name, paths[0], (paths[1], paths[2]), paths[3], paths[4])


def load_weights(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    """(the weights by Marian's names, the model's options from `special:model.yml`)."""
    import yaml  # deferred: only imports read YAML

    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
        raise StudioError(f"{path.name} is not a readable Marian model ({type(error).__name__})") from None
    if "special:model.yml" not in arrays:
        raise StudioError(f"{path.name} has no special:model.yml (the options Marian stores with a model): it is not "
                          "a Marian model, or one too old to say its architecture")
    try:
        options = yaml.safe_load(arrays.pop("special:model.yml").tobytes().rstrip(b"\0").decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        raise StudioError(f"{path.name}: its special:model.yml is not readable YAML") from None
    weights = {name: value for name, value in arrays.items() if not name.startswith("special:")}
    return weights, options if isinstance(options, dict) else {}


def refusals(options: dict, arrays: dict[str, np.ndarray]) -> list[str]:
    """What the studio's Transformer cannot compute of this model, in words (empty: it can)."""
    o = options.get
    process = (o("transformer-preprocess", ""), o("transformer-postprocess", "dan"),
               o("transformer-postprocess-top", ""))
    found = []
    if o("type", "transformer") != "transformer":
        found.append(f"it is a Marian {o('type')!r} model, and only Transformers (type: transformer) can be imported")
    if o("transformer-decoder-autoreg", "self-attention") != "self-attention":
        found.append(f"its decoder uses {o('transformer-decoder-autoreg')} instead of self-attention")
    if process not in NORMS:
        found.append(f"its layers process as preprocess {process[0]!r}, postprocess {process[1]!r}, top "
                     f"{process[2]!r}; only post-norm ('', 'dan', '') and pre-norm ('n', 'da', 'n') can be imported")
    if o("transformer-postprocess-emb", "d") not in ("", "d"):
        found.append("it normalizes its embeddings (transformer-postprocess-emb with n)")
    if o("transformer-ffn-activation", "swish") not in ACTIVATIONS:
        found.append(f"its feed-forward activation is {o('transformer-ffn-activation')!r} (relu, swish or gelu can be "
                     "imported)")
    if o("transformer-ffn-depth", 2) != 2 or o("transformer-decoder-ffn-depth", 0) not in (0, 2):
        found.append("its feed-forward blocks are not two layers deep")
    if o("transformer-tied-layers") or o("transformer-no-projection") or o("right-left"):
        found.append("it ties layers, has no attention output projection, or decodes right to left")
    if o("transformer-train-position-embeddings") or "Wpos" in arrays:
        found.append("it learned its position embeddings")
    if o("factors-dim-emb") or o("lemma-dim-emb") or any("factor" in name.lower() for name in arrays):
        found.append("it uses factored vocabularies")
    if "encoder_l1_self_Wq" not in arrays or "decoder_l1_context_Wq" not in arrays:
        found.append("its weights have no Transformer encoder and decoder (encoder_l1_self_Wq, decoder_l1_context_Wq)")
    return found


def _depth(arrays: dict, side: str) -> int:
    depth = 0
    while f"{side}_l{depth + 1}_self_Wq" in arrays:
        depth += 1
    return depth


def model_config(pretrained: Pretrained, source: IdSpace, target: IdSpace, max_length: int) -> ModelConfig:
    """The ModelConfig of a model `refusals` accepts."""
    options, arrays = pretrained.options, pretrained.arrays
    shared = "Wemb" in arrays
    embedding = arrays["Wemb" if shared else "encoder_Wemb"]
    d_model, d_ff = embedding.shape[1], arrays["encoder_l1_ffn_W1"].shape[1]
    depths = _depth(arrays, "encoder"), _depth(arrays, "decoder")
    for side, depth in zip(("enc", "dec"), depths):
        if options.get(f"{side}-depth", depth) != depth:
            raise StudioError(f"its options say {side}-depth {options[f'{side}-depth']}, its weights have {depth} "
                              "layers")
    if arrays["decoder_l1_ffn_W1"].shape[1] != d_ff:
        raise StudioError("its decoder's feed-forward size differs from its encoder's, which cannot be imported")
    norm = NORMS[(options.get("transformer-preprocess", ""), options.get("transformer-postprocess", "dan"),
                  options.get("transformer-postprocess-top", ""))]
    tied = "decoder_ff_logit_out_W" not in arrays
    config = ModelConfig(
        src_vocab_size=source.size, tgt_vocab_size=target.size, num_layers=depths[0],
        num_decoder_layers=depths[1] if depths[1] != depths[0] else 0, d_model=d_model,
        num_heads=int(options.get("transformer-heads", 8)), d_ff=d_ff, dropout=0.0, norm=norm,
        share_embeddings=shared, tie_output=tied, max_source_len=max_length, max_target_len=max_length,
        layer_norm_epsilon=pretrained.epsilon, pad_id=target.pad_id, bos_id=target.bos_id, eos_id=target.eos_id,
        activation=ACTIVATIONS[options.get("transformer-ffn-activation", "swish")], positional="halves",
        scale_embeddings=pretrained.scale_embeddings, logits_bias=tied)
    try:
        config.validate()
    except ValueError as error:
        raise StudioError(f"its architecture cannot be imported: {error}") from None
    return config


def _rows(matrix: np.ndarray, space: IdSpace) -> np.ndarray:
    """An embedding over Marian's vocabulary extended to `space`: zero rows for padding and the decoder start (and
    any filler), `<unk>`'s row for the pieces Marian reads as `<unk>`."""
    if len(matrix) != space.vocabulary_size:
        raise StudioError(f"an embedding has {len(matrix)} rows, the vocabulary {space.vocabulary_size} pieces")
    rows = np.zeros((space.size, matrix.shape[1]), np.float32)
    rows[: space.vocabulary_size] = matrix
    rows[space.unknown_from:] = matrix[space.unk_id]
    return rows


def _columns(vector: np.ndarray, space: IdSpace, fill: float) -> np.ndarray:
    out = np.full((space.size, *vector.shape[1:]), fill, np.float32)
    out[: space.vocabulary_size] = vector
    return out


def _layer(arrays: dict, marian: str, ours: str, attention: tuple[str, ...], suffix: str) -> dict:
    """One encoder or decoder layer's weights under our names (Marian's matrices are [in, out], as Keras kernels)."""
    def get(name):
        if name not in arrays:
            raise StudioError(f"the weights have no {name}: not the layer layout its options describe")
        return arrays[name].astype(np.float32)

    out = {}
    for index, (block, ours_block) in enumerate(zip(attention, ("self_attention", "cross_attention"))):
        for x, dense in zip("qkvo", ("query", "key", "value", "output")):
            out[f"{ours}/{ours_block}/{dense}/kernel"] = get(f"{marian}_{block}_W{x}")
            out[f"{ours}/{ours_block}/{dense}/bias"] = get(f"{marian}_{block}_b{x}").reshape(-1)
        out[f"{ours}/norm_{index}/gamma"] = get(f"{marian}_{block}_Wo_ln_scale{suffix}").reshape(-1)
        out[f"{ours}/norm_{index}/beta"] = get(f"{marian}_{block}_Wo_ln_bias{suffix}").reshape(-1)
    for n, dense in (("1", "inner"), ("2", "outer")):
        out[f"{ours}/ffn/{dense}/kernel"] = get(f"{marian}_ffn_W{n}")
        out[f"{ours}/ffn/{dense}/bias"] = get(f"{marian}_ffn_b{n}").reshape(-1)
    last = len(attention)
    out[f"{ours}/norm_{last}/gamma"] = get(f"{marian}_ffn_ffn_ln_scale{suffix}").reshape(-1)
    out[f"{ours}/norm_{last}/beta"] = get(f"{marian}_ffn_ffn_ln_bias{suffix}").reshape(-1)
    return out


def studio_arrays(arrays: dict, config: ModelConfig, source: IdSpace, target: IdSpace) -> dict[str, np.ndarray]:
    """Marian's weights under the variable paths of the Transformer `config` describes."""
    suffix = "_pre" if config.norm == "pre" else ""
    out = {}
    if config.share_embeddings:
        out["source_embedding/embeddings"] = _rows(arrays["Wemb"], source)
    else:
        out["source_embedding/embeddings"] = _rows(arrays["encoder_Wemb"], source)
        out["target_embedding/embeddings"] = _rows(arrays["decoder_Wemb"], target)
    for i in range(config.num_layers):
        out.update(_layer(arrays, f"encoder_l{i + 1}", f"encoder_{i}", ("self",), suffix))
    for i in range(config.decoder_depth):
        out.update(_layer(arrays, f"decoder_l{i + 1}", f"decoder_{i}", ("self", "context"), suffix))
    if config.norm == "pre":
        for side in ("encoder", "decoder"):
            out[f"{side}_norm/gamma"] = arrays[f"{side}_top_ln_scale"].reshape(-1).astype(np.float32)
            out[f"{side}_norm/beta"] = arrays[f"{side}_top_ln_bias"].reshape(-1).astype(np.float32)
    bias = arrays.get("decoder_ff_logit_out_b", np.zeros((1, target.vocabulary_size), np.float32)).reshape(-1)
    bias = _columns(bias, target, NEVER)
    if config.tie_output:
        out["logits_bias"] = bias
    else:
        out["output_projection/kernel"] = _columns(arrays["decoder_ff_logit_out_W"].T, target, 0.0).T
        out["output_projection/bias"] = bias
    return {f"transformer/{name}": value for name, value in out.items()}


def published_scores(readme: str) -> dict[str, dict]:
    """The release README's benchmark table (`| testset | BLEU | chr-F |`) as {test set: {"bleu", "chrf"}}, chr-F
    on the 0-100 scale studio uses (OPUS-MT writes it as 0-1)."""
    scores, columns = {}, None
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.lstrip().startswith("|") and [c.lower() for c in cells[:1]] == ["testset"]:
            columns = [c.lower().replace("-", "") for c in cells]
        elif columns and line.lstrip().startswith("|") and not set(cells[0]) <= set("-: "):
            values = dict(zip(columns, cells))
            try:
                row = {"bleu": float(values["bleu"])} if "bleu" in values else {}
                if "chrf" in values:
                    chrf = float(values["chrf"])
                    row["chrf"] = round(chrf * 100, 2) if chrf <= 1 else chrf
            except ValueError:
                continue
            if row:
                scores[cells[0]] = row
        elif not line.strip():
            columns = None if columns and scores else columns
    return scores


def licence(pretrained: Pretrained) -> str:
    """The model's licence in a line: its LICENSE file's first line, else what its README says of one (a Hugging
    Face model card's `license:` field included)."""
    for name in ("LICENSE", "LICENSE.txt", "LICENCE"):
        first = next((line.strip() for line in pretrained.text(name).splitlines() if line.strip()), "")
        if first:
            return first
    readme = pretrained.text("README.md")
    field = re.match(r"---\s*\n(?:.*\n)*?license:\s*(\S+)", readme)
    if field:
        return f"{field.group(1)} (the license its model card states)"
    said = next((line.strip(" *-") for line in readme.splitlines() if "licen" in line.lower()), "")
    return said or ("not stated in the release (OPUS-MT models are published under CC-BY 4.0: check the source "
                    "you took this one from)")


def languages(readme: str) -> tuple[str, str]:
    """(source, target) languages as an OPUS-MT README (or a Hugging Face card copied from one) lists them."""
    found = {}
    for side in ("source", "target"):
        match = re.search(rf"{side} language(?:s|\(s\))?:\s*([\w\- ]+)", readme)
        found[side] = match.group(1).strip().split()[0] if match else ""
    return found["source"], found["target"]


def model_card(pretrained: Pretrained, config: ModelConfig, parameters: int, scores: dict, source_text: str) -> str:
    """MODEL_CARD.md of an imported model: where it came from, its licence, its published scores, and what the import
    changed."""
    layers = (f"{config.num_layers}-layer encoder, {config.decoder_depth}-layer decoder"
              if config.num_decoder_layers else f"{config.num_layers} layers")
    layout = ("a Marian release (decoder.yml, the .npz, the vocabulary .yml)" if pretrained.layout == "Marian" else
              f"a {pretrained.layout} MarianMT folder (config.json, model.safetensors, vocab.json)")
    lines = [f"# {pretrained.name} (imported Marian model)", "",
             f"A Marian Transformer ({layers}, d_model {config.d_model}, {config.num_heads} heads, d_ff {config.d_ff}, "
             f"{config.norm}-norm, {config.activation} feed-forward, {parameters:,} parameters) **imported** into "
             "Transformer Studio by `studio import`; not trained by it.", "",
             "## Source", f"- Imported from: `{source_text}`, {layout}", f"- Licence: {licence(pretrained)}",
             "- Attribution: OPUS-MT models are the work of the Helsinki-NLP team (Tiedemann & Thottingal, 2020, "
             "\"OPUS-MT — Building open translation services for the World\"), trained with Marian NMT.", ""]
    if scores:
        lines += ["## Published scores", "As the model's README states them (not measured here):", "",
                  "| test set | BLEU | chrF |", "|---|---|---|"]
        lines += [f"| {name} | {row.get('bleu', '')} | {row.get('chrf', '')} |" for name, row in scores.items()]
        lines.append("")
    lines += ["## What the import changed",
              "- The weights are the model's, as float32, under the studio's names; the tokenizers are its "
              "source.spm and target.spm, renumbered so that a piece's id is its id in the model's vocabulary.",
              f"- Added ids: padding and the decoder start (zero embeddings: Marian starts decoding from a zero "
              f"embedding), and pieces the vocabulary lacks (read as `<unk>`, as Marian reads them); the model never "
              f"writes them. Sources and outputs are at most {config.max_source_len} tokens.",
              *pretrained.notes,
              "- The release's own pre- and post-processing scripts (if any) are not run: the studio's translator text "
              "pipeline (Unicode normalization and whitespace) prepares the input instead.", "",
              "## Intended use", "Translation with the studio's runtimes (TensorFlow, TFLite, ONNX) and exports, "
              "under the licence above."]
    return "\n".join(lines) + "\n"


def write_bundle(pretrained: Pretrained, out: Path, max_length: int, compact: bool, source_text: str,
                 progress) -> Path:
    """The bundle of `pretrained` written to `out` (whole, or not at all)."""
    from studio.bundle import save_bundle  # deferred: it imports the text package
    from studio.model import build_model  # deferred: Keras
    from studio.weights import assign_arrays

    name, arrays = pretrained.name, pretrained.arrays
    if "Wemb" in arrays and pretrained.vocabularies[0] != pretrained.vocabularies[1]:
        raise StudioError(f"{name} shares one embedding between two different vocabularies")
    tokenizers, source_space, target_space = marian_tokenizers(pretrained.vocabularies, pretrained.source_spm,
                                                               pretrained.target_spm)
    if source_space.pad_id != target_space.pad_id:
        raise StudioError(f"{name}: its vocabularies put <pad> at different ids")
    config = model_config(pretrained, source_space, target_space, max_length)
    model = build_model(config).build_weights()
    try:
        assign_arrays(model.weights, studio_arrays(arrays, config, source_space, target_space))
    except ValueError as error:
        raise StudioError(f"{name}: its weights do not fit its options ({error})") from None
    scores = published_scores(pretrained.text("README.md"))
    source_lang, target_lang = pretrained.languages
    bundle_config = BundleConfig(
        model=config, train=TrainConfig(epochs=0),
        tokenizer=TokenizerConfig(kind="sentencepiece", shared=False, vocab_size=target_space.size,
                                  byte_fallback=False),
        task=TaskConfig(task=TRANSLATOR.name, source_lang=source_lang or "ko", target_lang=target_lang or "en",
                        text_pipeline="translator", imported_from=f"{pretrained.layout}: {source_text}"))
    parameters = model.parameter_count()
    metrics = {"task": TRANSLATOR.name, "parameters": parameters, "imported_from": source_text,
               "licence": licence(pretrained),
               "evaluation": {f"{test_set} (published)": {"as published": row} for test_set, row in scores.items()}}
    card = model_card(pretrained, config, parameters, scores, source_text)
    progress(f"Writing the bundle to {out}...")
    temporary = out.with_name(f".importing-{out.name}")  # a failed import leaves no half-written bundle
    shutil.rmtree(temporary, ignore_errors=True)
    try:
        save_bundle(temporary, bundle_config, tokenizers, model, metrics, card, compact=compact)
        os.replace(temporary, out)
    except OSError as error:
        raise StudioError(f"{out}: cannot write the bundle here ({error.strerror or error})") from None
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return out


def _vocabulary(path: Path) -> list[str]:
    """A vocabulary .yml, or a SentencePiece model used as the vocabulary (its pieces in order)."""
    if path.suffix != ".spm":
        return read_vocabulary(path)
    from sentencepiece import sentencepiece_model_pb2  # deferred: sentencepiece's protobuf module

    model = sentencepiece_model_pb2.ModelProto()
    try:
        model.ParseFromString(path.read_bytes())
    except Exception:  # noqa: BLE001 - protobuf's DecodeError
        raise StudioError(f"{path.name} is not a SentencePiece model") from None
    return [piece.piece for piece in model.pieces]
