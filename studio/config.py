"""Configuration dataclasses. A bundle stores all of them in `config.json`, so a trained model loads
without code changes (the architecture is rebuilt from `ModelConfig`)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from studio.errors import StudioError

FORMAT_VERSION = 1

ACTIVATIONS = ("relu", "swish", "gelu-sigmoid")
POSITIONAL_LAYOUTS = ("interleaved", "halves")


@dataclass
class ModelConfig:
    src_vocab_size: int = 8000
    tgt_vocab_size: int = 8000
    num_layers: int = 2  # encoder layers (and decoder layers unless num_decoder_layers is set)
    num_decoder_layers: int = 0  # 0 = num_layers; a deep encoder with a shallow decoder decodes faster
    d_model: int = 256
    num_heads: int = 8
    d_ff: int = 512
    dropout: float = 0.1
    norm: str = "post"  # "post" = the paper's LayerNorm(x + f(x)); "pre" = x + f(LayerNorm(x))
    share_embeddings: bool = True  # one embedding for source and target (needs a shared vocabulary)
    tie_output: bool = True  # output projection = target embedding transposed
    max_source_len: int = 40  # tokens, including </s> where the tokenizer adds it
    max_target_len: int = 40  # decoder positions, including <s>: also the decode cache capacity
    layer_norm_epsilon: float = 1e-6
    # > 1: an ensemble of this many models of this architecture, trained apart (other seeds) on one vocabulary,
    # their next-token log-probabilities averaged at every step (`studio.model.ensemble`, `studio ensemble`)
    members: int = 1
    pad_id: int = 0
    bos_id: int = 1  # the decoder's start token (an imported Marian model's has a zero embedding row)
    eos_id: int = 2
    # what an imported model (`studio.importers`) may need; the defaults are the studio's own Transformer
    activation: str = "relu"  # the feed-forward's: relu, swish (x * sigmoid(x)) or gelu-sigmoid (x * sigmoid(1.702x))
    positional: str = "interleaved"  # sinusoids: sin/cos interleaved (ours) or "halves" [sin | cos] (Marian)
    scale_embeddings: bool = True  # embeddings times sqrt(d_model) before the positions are added
    logits_bias: bool = False  # a tied output projection adds a learned bias (an untied one always has its own)

    def validate(self) -> None:
        if self.members < 1:
            raise ValueError("members must be >= 1")
        if self.num_layers < 1 or self.num_decoder_layers < 0:
            raise ValueError("num_layers must be >= 1 and num_decoder_layers >= 0 (0 = as many as num_layers)")
        if self.d_model % self.num_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by num_heads ({self.num_heads})")
        if self.norm not in ("pre", "post"):
            raise ValueError(f"norm must be 'pre' or 'post', not {self.norm!r}")
        if self.share_embeddings and self.src_vocab_size != self.tgt_vocab_size:
            raise ValueError("share_embeddings needs one vocabulary for source and target")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {self.activation!r}")
        if self.positional not in POSITIONAL_LAYOUTS:
            raise ValueError(f"positional must be one of {', '.join(POSITIONAL_LAYOUTS)}, not {self.positional!r}")
        if self.positional == "halves" and self.d_model % 2:
            raise ValueError(f"positional 'halves' needs an even d_model, not {self.d_model}")
        if self.logits_bias and not self.tie_output:
            raise ValueError("logits_bias is for a tied output projection: an untied one has its own bias")
        for name in ("pad_id", "bos_id", "eos_id"):
            if not 0 <= getattr(self, name) < self.tgt_vocab_size:
                raise ValueError(f"{name} ({getattr(self, name)}) must be a target id below tgt_vocab_size "
                                 f"({self.tgt_vocab_size})")
        if self.pad_id >= self.src_vocab_size:
            raise ValueError(f"pad_id ({self.pad_id}) must also be a source id below src_vocab_size "
                             f"({self.src_vocab_size}): sources are padded with it")
        if self.bos_id == self.pad_id:
            raise ValueError(f"bos_id and pad_id must differ ({self.bos_id}): the decoder masks padding, and its "
                             "start token would be masked")

    @property
    def decoder_depth(self) -> int:
        return self.num_decoder_layers or self.num_layers

    @property
    def cache_depth(self) -> int:
        """The decoder layers whose self-attention cache and cross K/V a decode step carries: every member's."""
        return self.decoder_depth * self.members

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads


@dataclass
class TokenizerConfig:
    kind: str = "sentencepiece"  # or "subword" (tfds SubwordTextEncoder, the chatbot tutorials' choice)
    shared: bool = True  # one vocabulary for both sides
    vocab_size: int = 8000
    model_type: str = "unigram"  # SentencePiece model type
    character_coverage: float = 0.9995
    byte_fallback: bool = True  # SentencePiece: unknown characters become byte pieces instead of <unk>


@dataclass
class TrainConfig:
    epochs: int = 30
    batch_size: int = 64  # sentences per batch for the longest bucket; shorter buckets get more
    bucket_width: int = 8
    warmup_steps: int = 4000
    lr_scale: float = 1.0
    # a flat learning rate after a linear warm-up of warmup_steps (fine-tuning a trained model); 0: the paper's
    # schedule. lr_scale multiplies either.
    learning_rate: float = 0.0
    # a fine-tune leaves out this share of its training pairs, those the starting model finds least likely
    # (misaligned pairs; studio.train.cleaning); 0 = none
    filter_share: float = 0.0
    # a fine-tune also trains on this many pairs of the task's own training data (what the shipped models learned
    # from, when this computer has it) per pair of the user's, so that it keeps what it knew; 0 = none
    rehearsal: float = 0.0
    label_smoothing: float = 0.1
    dev_fraction: float = 0.05
    patience: int = 5  # epochs without dev-loss improvement before early stopping (0 = never)
    seed: int = 1234  # initial weights, dropout masks and batch order
    split_seed: int = 1234  # which pairs are held out for dev: runs with other seeds keep the same dev split
    jit_compile: bool = True
    keep_checkpoints: int = 5
    average_last: int = 5  # ship the mean of the last N checkpoints when its dev loss beats the best epoch's
    strategy: str = "default"  # default | mirrored | multiworker
    batch_tokens: int = 0  # if set, each bucket batches about this many tokens instead of batch_size sentences
    max_minutes: float = 0.0  # stop (checkpointed, resumable) after this much training time; 0 = no limit
    eval_minutes: float = 0.0  # also evaluate on dev every this many training minutes (a learning curve)
    dev_max_pairs: int = 0  # cap the dev split (0 = no cap) to keep evaluation cheap
    chrf_pairs: int = 0  # after each epoch, greedy chrF on this many dev pairs (the Train tab's curve; 0 = off)
    threads: int = 0  # CPU threads for TensorFlow ops; 0 = all cores
    subword_alpha: float = 0.0  # SentencePiece subword sampling while training (0 = off; ~0.1 typical)
    source_weights: str = ""  # per training file, e.g. "wmt24pp=3,bible_krv_web=0.5" (resampled every epoch)
    # how pairs were split into train/dev (`studio.data.pipeline.SPLIT_KEYS`): new runs use letters-digits; a
    # config without the field comes from before it existed, when the split hashed the pipeline's text
    dev_split: str = "pipeline-text"
    # which weights the bundle gets (the last, the best epoch, the mean of the last checkpoints): the lowest
    # dev_loss, the highest dev_token_accuracy (a chatbot's replies keep improving after its dev loss
    # turns up: docs/chatbot-training.md), or the highest greedy dev_chrf (fine-tunes: the dev loss on a
    # small set can fall while the translations get worse; the starting model is a candidate too)
    select_by: str = "dev_loss"


@dataclass
class TaskConfig:
    task: str = "chatbot"  # or "translator"
    source_lang: str = "ko"
    target_lang: str = "ko"
    lowercase_target: bool = False  # tutorial pipeline only
    text_pipeline: str = "tutorial"  # "tutorial" (the tutorials' normalization) or "translator" (text as written)
    sources: list[str] = field(default_factory=list)  # data files the model was trained on
    # a model made elsewhere and converted (`studio import`): where it came from, e.g. "Marian: opus-2020-01-16.zip"
    imported_from: str = ""


@dataclass
class BundleConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    task: TaskConfig = field(default_factory=TaskConfig)
    format_version: int = FORMAT_VERSION

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BundleConfig":
        def build(kind, values, strict=False):
            names = {f.name for f in dataclasses.fields(kind)}
            unknown = set(values) - names
            if unknown and strict:  # an unknown model field could mean a different architecture
                raise ValueError(f"unknown {kind.__name__} fields: {sorted(unknown)}")
            # settings from a newer version that do not change the architecture are ignored
            return kind(**{k: v for k, v in values.items() if k in names})

        return cls(
            model=build(ModelConfig, data.get("model", {}), strict=True),
            tokenizer=build(TokenizerConfig, data.get("tokenizer", {})),
            # before split_seed existed the training seed also drew the split
            train=build(TrainConfig, {"split_seed": data.get("train", {}).get("seed", TrainConfig.seed),
                                      **data.get("train", {})}),
            task=build(TaskConfig, data.get("task", {})),
            format_version=data.get("format_version", FORMAT_VERSION),
        )

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> "BundleConfig":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def chatbot_preset() -> BundleConfig:
    """The chatbot tutorials' model: 2 layers, d_model 256, 8 heads, d_ff 512, 8k vocabulary.
    What was measured on its dev split (docs/chatbot-training.md) sets the rest: no dropout (the tutorials' 0.1
    scored 1 chrF lower, 0.3 far lower), the translator text pipeline (answers as written), 90 epochs without
    early stopping (replies keep improving after the dev loss turns up), the bundle's weights chosen by dev
    token accuracy."""
    return BundleConfig(
        model=ModelConfig(num_layers=2, d_model=256, num_heads=8, d_ff=512, dropout=0.0, norm="post",
                          max_source_len=40, max_target_len=40),
        tokenizer=TokenizerConfig(kind="sentencepiece", shared=True, vocab_size=8000),
        train=TrainConfig(epochs=90, batch_size=64, warmup_steps=1500, patience=0, select_by="dev_token_accuracy"),
        task=TaskConfig(task="chatbot", source_lang="ko", target_lang="ko", text_pipeline="translator"),
    )



def chatbot_small_preset() -> BundleConfig:
    """A chatbot that learns something recognisable in about ten minutes on a 2-core CPU from ChatbotData-sized
    data (~11k pairs): the chatbot preset at half the width (d_model 128, d_ff 256, 4 heads), a 4k vocabulary and a
    10-minute budget (the Train tab's first choice). Its peak learning rate is the full preset's (lr_scale 0.7
    makes up for the narrower model's larger d_model^-0.5): with a 400-step warm-up (2.7x the peak) it answered
    every question with one stock reply after 40 epochs (docs/chatbot-training.md)."""
    config = chatbot_preset()
    config.model = dataclasses.replace(config.model, d_model=128, num_heads=4, d_ff=256)
    config.tokenizer = dataclasses.replace(config.tokenizer, vocab_size=4000)
    config.train = dataclasses.replace(config.train, epochs=40, lr_scale=0.7, max_minutes=10.0)
    return config


def translator_small_preset() -> BundleConfig:
    """A translator for a small parallel corpus (a translation memory, a few thousand pairs) on a 2-core CPU: the
    translator preset's text pipeline and shared vocabulary at d_model 128, 2 layers, an 8k vocabulary, sentences
    of up to 64 tokens, a 20-minute budget."""
    config = translator_preset()
    config.model = dataclasses.replace(config.model, num_layers=2, d_model=128, num_heads=4, d_ff=512,
                                       max_source_len=64, max_target_len=64)
    config.tokenizer = dataclasses.replace(config.tokenizer, vocab_size=8000)
    config.train = dataclasses.replace(config.train, epochs=40, batch_tokens=0, warmup_steps=800, patience=0,
                                       source_weights="", max_minutes=20.0)
    return config

def fine_tuning(config: BundleConfig) -> BundleConfig:
    """Fine-tuning a trained model on a small set of the user's pairs (its architecture and tokenizer come from
    that model): a flat learning rate after a short warm-up instead of the paper's schedule, few epochs, a tenth
    of the pairs held out, the pairs the model finds least likely left out (misaligned ones), every file
    weighted alike, and the weights chosen by dev chrF (decoded as the app decodes the task: beam search for the
    translator, `studio.train.run.selection_chrf`) with the starting model among the candidates, so a
    fine-tune that makes translations worse on the user's own dev pairs leaves the model as it was
    (docs/translator-training.md, "Fine-tuning ... on a translation memory")."""
    config.train = dataclasses.replace(config.train, learning_rate=FINE_TUNE_RATE, warmup_steps=50, epochs=10,
                                       patience=3, dev_fraction=0.1, source_weights="", max_minutes=20.0,
                                       select_by="dev_chrf", filter_share=FINE_TUNE_FILTER)
    return config


FINE_TUNE_RATE = 6e-5  # measured with 2e-5: the same loss on the general sets, less gained in the domain
FINE_TUNE_REHEARSAL = 1.0  # general pairs per pair of the user's (the translator's preset; the Train tab's box)
FINE_TUNE_FILTER = 0.3  # the share of pairs the starting model finds least likely, left out (misaligned pairs)


def chatbot_fine_tune_preset() -> BundleConfig:
    return fine_tuning(chatbot_preset())


def translator_fine_tune_preset() -> BundleConfig:
    """`fine_tuning`, mixing in as many general pairs as the user's (docs/translator-training.md: on 560 news
    pairs it halved what the general dev sets lost)."""
    config = fine_tuning(translator_preset())
    config.train = dataclasses.replace(config.train, rehearsal=FINE_TUNE_REHEARSAL)
    return config


def translator_tutorial_preset() -> BundleConfig:
    """The translator tutorial's model: 2 layers, d_model 512, 8 heads, d_ff 2048, dropout 0.3, pre-LN,
    a 20k SentencePiece vocabulary per language, target embedding tied to the output projection, pairs of
    at most 50 tokens, batches of 64 sentences. (~35M parameters: too big to ship under 25 MB.)"""
    return BundleConfig(
        model=ModelConfig(num_layers=2, d_model=512, num_heads=8, d_ff=2048, dropout=0.3, norm="pre",
                          share_embeddings=False, tie_output=True, max_source_len=50, max_target_len=50),
        tokenizer=TokenizerConfig(kind="sentencepiece", shared=False, vocab_size=20000),
        train=TrainConfig(epochs=15, batch_size=64, warmup_steps=4000, dev_fraction=0.02),
        task=TaskConfig(task="translator", source_lang="ko", target_lang="en", lowercase_target=True),
    )


def translator_preset() -> BundleConfig:
    """The translator's CPU recipe: sized to train on a 2-core CPU in hours and ship under 25 MB (the shipped
    translator has this vocabulary, pipeline and source weighting in the GPU recipe's deeper shape, 6 encoder /
    3 decoder layers, 4 heads, 128 tokens: `studio.train.accelerated`, its config.json). One shared
    Korean+English SentencePiece vocabulary (shared embeddings, tied output: one matrix instead of three),
    a deeper but narrower stack than the tutorial's, pre-LN, token-based batches; the translator text
    pipeline (cased text as written), news-like and modern sources weighted up, Bible and UI strings down."""
    return BundleConfig(
        model=ModelConfig(num_layers=3, d_model=256, num_heads=8, d_ff=1024, dropout=0.2, norm="pre",
                          share_embeddings=True, tie_output=True, max_source_len=96, max_target_len=96),
        tokenizer=TokenizerConfig(kind="sentencepiece", shared=True, vocab_size=16000),
        train=TrainConfig(epochs=30, batch_size=64, batch_tokens=3072, warmup_steps=2000, dev_fraction=0.02,
                          patience=4, source_weights="wmt24pp=3,korsts=1.5,bible_krv_web=0.5,libreoffice_ui=0.5,"
                                                     "gimp_help=0.5"),
        task=TaskConfig(task="translator", source_lang="ko", target_lang="en", text_pipeline="translator"),
    )



# every preset by name (`studio train --preset`, the Train tab's sizes)
CONFIGS = {"chatbot": chatbot_preset, "translator": translator_preset,
           "translator-tutorial": translator_tutorial_preset,
           "chatbot-small": chatbot_small_preset, "translator-small": translator_small_preset,
           "chatbot-finetune": chatbot_fine_tune_preset, "translator-finetune": translator_fine_tune_preset}


def preset_config(task: str, preset: str | None = None) -> BundleConfig:
    """A fresh copy of `preset` (default: the task's own), refused in plain words when it is not one of `task`'s."""
    chosen = preset or task
    if chosen not in CONFIGS or not chosen.startswith(task):
        raise StudioError(f"unknown preset {chosen!r} for {task}; choose from "
                          f"{', '.join(k for k in CONFIGS if k.startswith(task))}")
    return CONFIGS[chosen]()


def apply_overrides(config: BundleConfig, overrides: dict) -> BundleConfig:
    """Overrides like {"model.d_model": 128, "train.epochs": 3}; a value of the wrong kind is refused by name."""
    for key, value in (overrides or {}).items():
        section, _, name = key.partition(".")
        target = getattr(config, section, None)
        if target is None or not hasattr(target, name):
            raise StudioError(f"unknown setting {key!r}")
        current = getattr(target, name)
        if isinstance(current, bool) and isinstance(value, str):
            value = value.lower() in ("1", "true", "yes", "on")
        elif current is not None and not isinstance(current, (list, bool)) and isinstance(value, str):
            value = _typed(key, type(current), value)
        setattr(target, name, value)
    return config


def _typed(key: str, kind: type, value: str):
    try:
        return kind(float(value)) if kind is int and float(value).is_integer() else kind(value)
    except ValueError:
        wanted = {int: "a whole number", float: "a number"}.get(kind, kind.__name__)
        raise StudioError(f"{key} must be {wanted}, not {value!r}") from None


# (setting, what it is, lowest, highest): the bounds a training can start with
SHAPE_BOUNDS = (("model.num_layers", "encoder layers", 1, 24), ("model.num_decoder_layers", "decoder layers", 0, 24),
                ("model.d_model", "d_model (the width)", 8, 2048), ("model.num_heads", "attention heads", 1, 64),
                ("model.d_ff", "the feed-forward size", 8, 16384), ("model.dropout", "dropout", 0.0, 0.9),
                ("model.max_source_len", "the longest source (tokens)", 4, 1024),
                ("model.max_target_len", "the longest target (tokens)", 4, 1024),
                ("tokenizer.vocab_size", "the vocabulary size", 64, 256000),
                ("train.epochs", "epochs", 1, 100000), ("train.batch_size", "the batch size", 1, 65536),
                ("train.max_minutes", "minutes", 0.0, 100000.0))


def check_settings(config: BundleConfig) -> BundleConfig:
    """`config` when a training can start with it, else a StudioError saying which setting is wrong and why, in the
    words the Train tab and `--set` use (before any job or process starts)."""
    for key, label, low, high in SHAPE_BOUNDS:
        section, name = key.split(".")
        value = getattr(getattr(config, section), name)
        if not low <= value <= high:
            raise StudioError(f"{label} ({key}) must be between {low:g} and {high:g}, not {value:g}")
    model = config.model
    if model.d_model % model.num_heads:
        raise StudioError(f"d_model ({model.d_model}) must be a multiple of the attention heads "
                          f"({model.num_heads}): each head gets d_model / heads dimensions")
    try:
        model.validate()
    except ValueError as error:
        raise StudioError(str(error)) from None
    return config
