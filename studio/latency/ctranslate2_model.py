"""CTranslate2 running our bundle's weights (converted by `exporters.ctranslate2`), for `studio bench`."""

from __future__ import annotations

from pathlib import Path


class CTranslate2Model:
    """Greedy decoding with CTranslate2 over token ids (through their pieces)."""

    def __init__(self, model_dir: Path, bundle, threads: int):
        import ctranslate2  # deferred: CTranslate2 only for `studio bench`

        self.bundle = bundle
        self.translator = ctranslate2.Translator(str(model_dir), device="cpu", inter_threads=1,
                                                 intra_threads=threads)
        self._piece = bundle.tokenizers.source.id_to_piece
        self._target_index = {bundle.tokenizers.target.id_to_piece(i): i
                              for i in range(bundle.config.model.tgt_vocab_size)}

    def tokens(self, source_ids: list[int]) -> list[str]:
        return [self._piece(i) for i in source_ids]

    def greedy(self, sources: list[list[int]], max_new_tokens: int, min_new_tokens: int = 0) -> list[list[int]]:
        results = self.translator.translate_batch([self.tokens(s) for s in sources], beam_size=1,
                                                  max_decoding_length=max_new_tokens,
                                                  min_decoding_length=min_new_tokens)
        return [[self._target_index[t] for t in r.hypotheses[0]] for r in results]

    def stream(self, source_ids: list[int], steps: int):
        """Yields once per generated token (for first-token and per-token timing), exactly `steps` tokens."""
        yield from self.translator.generate_tokens(self.tokens(source_ids), max_decoding_length=steps,
                                                   min_decoding_length=steps)
