from studio.data.pipeline import BucketedBatches, Example, clean_pairs, encode_pairs, split_train_dev
from studio.data.readers import (Pair, read_chatbot_csv, read_pairs, read_parallel_files, read_park_tarball,
                                 read_tsv_pairs)

__all__ = ["Pair", "read_chatbot_csv", "read_tsv_pairs", "read_parallel_files", "read_park_tarball", "read_pairs",
           "clean_pairs", "split_train_dev", "encode_pairs", "BucketedBatches", "Example"]
