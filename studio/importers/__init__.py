"""Pretrained models made elsewhere, converted into the bundle the trainer writes (`studio import`): the one model
definition with the options they need, never a second model class (docs: DESIGN.md, "Imported models").

- `marian`: a Marian / OPUS-MT release (`decoder.yml`, the `.npz` weights, the vocabulary `.yml`,
  `source.spm` and `target.spm`), or its zip.
- `marian_vocab`: Marian's vocabulary and SentencePiece models as the bundle's own SentencePiece tokenizers.
"""
