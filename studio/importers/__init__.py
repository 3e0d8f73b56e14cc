"""Pretrained models made elsewhere, converted into the bundle the trainer writes (`studio import`): the one model
definition with the options they need, never a second model class (docs/import.md).

- `pretrained`: the import itself: the reader of the source's layout, then the one conversion.
- `marian`: a Marian / OPUS-MT release (`decoder.yml`, the `.npz` weights, the vocabulary `.yml`,
  `source.spm` and `target.spm`), and the conversion of what any reader finds into a bundle.
- `huggingface`: a Hugging Face MarianMT folder (`config.json`, `model.safetensors`, `vocab.json`, the `.spm`
  files), read without PyTorch; `hub`: a model id downloaded from the Hugging Face Hub into the user cache.
- `marian_vocab`: Marian's vocabulary and SentencePiece models as the bundle's own SentencePiece tokenizers.
"""
