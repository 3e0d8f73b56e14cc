from studio.text.normalize import dedupe_pairs, keep_pair, normalize, tidy
from studio.text.pipelines import TextPipeline, clean_text, pipeline_for
from studio.text.tokenizers import (SentencePieceTokenizer, SubwordTokenizer, Tokenizer, TokenizerPair,
                                    train_tokenizer)

__all__ = ["normalize", "tidy", "clean_text", "TextPipeline", "pipeline_for", "dedupe_pairs", "keep_pair", "Tokenizer", "TokenizerPair",
           "SentencePieceTokenizer", "SubwordTokenizer", "train_tokenizer"]
