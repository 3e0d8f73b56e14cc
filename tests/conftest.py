import os
import random

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

SUBJECTS = ["나는", "너는", "그는", "우리는", "친구는", "엄마는", "동생은"]
OBJECTS = ["사과를", "책을", "영화를", "커피를", "음악을", "운동을", "여행을"]
VERBS = ["좋아해", "싫어해", "샀어", "봤어", "원해", "했어"]
ENGLISH = {"나는": "i", "너는": "you", "그는": "he", "우리는": "we", "친구는": "my friend", "엄마는": "mom",
           "동생은": "my brother", "사과를": "apples", "책을": "books", "영화를": "movies", "커피를": "coffee",
           "음악을": "music", "운동을": "exercise", "여행을": "travel", "좋아해": "likes", "싫어해": "hates",
           "샀어": "bought", "봤어": "saw", "원해": "wants", "했어": "did"}


def generated_pairs(count=40, seed=0):
    """Tiny Korean chat pairs and a matching English translation of each question."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        s, o, v = rng.choice(SUBJECTS), rng.choice(OBJECTS), rng.choice(VERBS)
        rows.append((f"{s} {o} {v}?", f"{o} {v}? 정말요!", f"{ENGLISH[s]} {ENGLISH[v]} {ENGLISH[o]} ?"))
    return rows


@pytest.fixture(scope="session")
def chat_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "ChatbotData.csv"
    lines = ["Q,A,label"] + [f"{q},{a},0" for q, a, _ in generated_pairs()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def koen_tsv(tmp_path_factory):
    path = tmp_path_factory.mktemp("data") / "pairs.tsv"
    path.write_text("".join(f"{q}\t{e}\n" for q, _, e in generated_pairs()), encoding="utf-8")
    return path


TINY = {"model.d_model": 32, "model.num_heads": 4, "model.d_ff": 64, "model.num_layers": 2, "model.num_decoder_layers": 1,
        "model.max_source_len": 16, "model.max_target_len": 16, "tokenizer.vocab_size": 300,
        "train.epochs": 2, "train.warmup_steps": 10, "train.batch_size": 8, "train.dev_fraction": 0.2}


@pytest.fixture(scope="session")
def tiny_bundle(tmp_path_factory, chat_csv):
    """A chatbot bundle trained for two tiny epochs on the generated corpus."""
    from rich.console import Console

    from studio.train.run import train_task

    out = tmp_path_factory.mktemp("bundle") / "chat"
    train_task("chatbot", out, data_files=[chat_csv], overrides=dict(TINY), console=Console(quiet=True))
    return out


@pytest.fixture
def bundle_copy(tiny_bundle, tmp_path):
    """A private copy of the tiny bundle's shipped files, for tests that change or damage them."""
    import shutil

    target = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, target,
                    ignore=shutil.ignore_patterns("exports", "checkpoints", "tensorboard", "best.npz"))
    return target
