"""Our bundle's weights as a CTranslate2 model directory, written through its Python spec API, so
CTranslate2's speed is measured on the very same model (`studio bench --backends ctranslate2`).
CTranslate2's own sinusoidal table differs from ours (halves vs. interleaved sin/cos), so our
positional-encoding table (in the bundle's layout: an imported Marian model's is CTranslate2's own) and LayerNorm
epsilon are passed explicitly, as are the feed-forward activation, the embedding scaling and a tied output's bias. `export_variant` is the ctranslate2
format's converter (`studio.variants.MODEL_FORMATS`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _dense(arrays, prefix):
    """Keras Dense kernel [in, out] -> CTranslate2 weight [out, in]."""
    return arrays[f"{prefix}/kernel"].T.astype(np.float32), arrays[f"{prefix}/bias"].astype(np.float32)


def _set_linear(spec, weight, bias=None):
    spec.weight = np.ascontiguousarray(weight)
    if bias is not None:
        spec.bias = np.ascontiguousarray(bias)


def _set_norm(spec, arrays, prefix):
    spec.gamma = arrays[f"{prefix}/gamma"].astype(np.float32)
    spec.beta = arrays[f"{prefix}/beta"].astype(np.float32)


def _attention(spec, arrays, prefix, fused_qkv: bool):
    q, k, v = (_dense(arrays, f"{prefix}/{name}") for name in ("query", "key", "value"))
    out = _dense(arrays, f"{prefix}/output")
    if fused_qkv:
        _set_linear(spec.linear[0], np.concatenate([q[0], k[0], v[0]]), np.concatenate([q[1], k[1], v[1]]))
        _set_linear(spec.linear[1], *out)
    else:  # encoder-decoder attention: query, then fused key/value
        _set_linear(spec.linear[0], *q)
        _set_linear(spec.linear[1], np.concatenate([k[0], v[0]]), np.concatenate([k[1], v[1]]))
        _set_linear(spec.linear[2], *out)


def _ffn(spec, arrays, prefix):
    _set_linear(spec.linear_0, *_dense(arrays, f"{prefix}/ffn/inner"))
    _set_linear(spec.linear_1, *_dense(arrays, f"{prefix}/ffn/outer"))


def convert(bundle, output_dir: Path, quantization: str = "none") -> Path:
    """Write a CTranslate2 model directory for `bundle` (SentencePiece vocabularies only)."""
    from ctranslate2.specs import common_spec, transformer_spec  # deferred: CTranslate2 only for `studio bench`

    from studio.model.positional import positional_encoding  # deferred: the model package imports Keras

    c = bundle.config.model
    if c.members > 1:
        raise ValueError("CTranslate2 runs one model, not an ensemble (`studio ensemble`)")
    if bundle.config.tokenizer.kind != "sentencepiece":
        raise ValueError("the CTranslate2 comparison needs a SentencePiece bundle (its vocabulary is by piece)")
    pre = c.norm == "pre"
    activation = {"relu": common_spec.Activation.RELU, "swish": common_spec.Activation.SWISH,
                  "gelu-sigmoid": common_spec.Activation.GELUSigmoid}[c.activation]
    spec = transformer_spec.TransformerSpec.from_config((c.num_layers, c.decoder_depth), c.num_heads, pre_norm=pre,
                                                        activation=activation)
    spec.config.layer_norm_epsilon = c.layer_norm_epsilon
    spec.encoder.scale_embeddings = spec.decoder.scale_embeddings = c.scale_embeddings
    arrays = {name.removeprefix("transformer/"): value.astype(np.float32) for name, value in bundle.weights.items()}
    table = positional_encoding(max(c.max_source_len, c.max_target_len) + 2, c.d_model, c.positional)
    source_embedding = arrays["source_embedding/embeddings"]
    target_embedding = arrays["source_embedding/embeddings" if c.share_embeddings else "target_embedding/embeddings"]
    spec.encoder.embeddings[0].weight = source_embedding
    spec.decoder.embeddings.weight = target_embedding
    spec.encoder.position_encodings.encodings = table
    spec.decoder.position_encodings.encodings = table
    # our post-LN layers norm after each residual, pre-LN layers before each sublayer (+ a final norm);
    # CTranslate2 keeps one LayerNorm per sublayer spec and applies it on the side `pre_norm` says
    for i, layer in enumerate(spec.encoder.layer):
        _attention(layer.self_attention, arrays, f"encoder_{i}/self_attention", fused_qkv=True)
        _set_norm(layer.self_attention.layer_norm, arrays, f"encoder_{i}/norm_0")
        _ffn(layer.ffn, arrays, f"encoder_{i}")
        _set_norm(layer.ffn.layer_norm, arrays, f"encoder_{i}/norm_1")
    for i, layer in enumerate(spec.decoder.layer):
        _attention(layer.self_attention, arrays, f"decoder_{i}/self_attention", fused_qkv=True)
        _set_norm(layer.self_attention.layer_norm, arrays, f"decoder_{i}/norm_0")
        _attention(layer.attention, arrays, f"decoder_{i}/cross_attention", fused_qkv=False)
        _set_norm(layer.attention.layer_norm, arrays, f"decoder_{i}/norm_1")
        _ffn(layer.ffn, arrays, f"decoder_{i}")
        _set_norm(layer.ffn.layer_norm, arrays, f"decoder_{i}/norm_2")
    if pre:
        _set_norm(spec.encoder.layer_norm, arrays, "encoder_norm")
        _set_norm(spec.decoder.layer_norm, arrays, "decoder_norm")
    if c.tie_output:
        spec.decoder.projection.weight = target_embedding
        if c.logits_bias:
            spec.decoder.projection.bias = arrays["logits_bias"]
    else:
        _set_linear(spec.decoder.projection, *_dense(arrays, "output_projection"))
    source_vocab = [bundle.tokenizers.source.id_to_piece(i) for i in range(c.src_vocab_size)]
    target_vocab = [bundle.tokenizers.target.id_to_piece(i) for i in range(c.tgt_vocab_size)]
    spec.register_source_vocabulary(source_vocab)
    spec.register_target_vocabulary(target_vocab)
    spec.validate()
    if quantization != "none":
        spec.optimize(quantization=quantization)
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    spec.save(str(output_dir))
    return output_dir


def export_variant(job, variant) -> dict[str, dict]:
    """Write `variant`'s model folder into `job.work` (`exporters.ExportJob`); its manifest entry is its model.bin."""
    folder = variant.files[0].split("/")[0]
    job.progress(f"Converting {folder}/ (CTranslate2, quantization: {variant.quantization})...")
    convert(job.bundle, job.work / folder, variant.quantization)
    return {variant.files[0]: {}}
