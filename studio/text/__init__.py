from studio.text.normalize import dedupe_pairs, keep_pair, normalize, tidy
from studio.text.tokenizers import (SentencePieceTokenizer, SubwordTokenizer, Tokenizer, TokenizerPair,
                                    train_tokenizer)

__all__ = ["normalize", "tidy", "dedupe_pairs", "keep_pair", "Tokenizer", "TokenizerPair",
           "SentencePieceTokenizer", "SubwordTokenizer", "train_tokenizer"]
