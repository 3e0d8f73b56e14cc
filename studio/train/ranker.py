"""Training the chatbot's reply ranker (`studio.train.ranker_model`, run at reply time by `studio.text.ranking`).

Each training question's own answer is scored against hard negatives: the answers retrieval finds for the most
similar *other* training questions (`RetrievalIndex.nearest_excluding`), never one equal to the question's own
answer (compared as the index normalizes text), filled with random answers where retrieval finds too few. The
loss is listwise: a softmax over [own answer, negatives] with the own answer as the label. The encoder starts
from a chatbot generator's encoder (it already knows this data); the embedding stays frozen (the generator's),
the encoder layers and a new scoring head learn. Checkpoints (`studio.train.checkpoints`) let a run resume where
it stopped, down to the batch.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.text.ranking import (TOKENIZER_DIR, WEIGHTS_FILE, RankerConfig, pad_batch, pair_ids,
                                 save_config, text_encoder)
from studio.text.retrieval import RetrievalIndex, normalize


@dataclass
class RankerTraining:
    epochs: int = 3
    questions_per_batch: int = 32
    group: int = 16  # candidates per question: its own answer and group - 1 negatives
    negatives_from: int = 20  # hard negatives: the distinct answers of the nearest other questions, this many
    learning_rate: float = 1e-4
    warmup_steps: int = 200
    seed: int = 1234
    checkpoint_steps: int = 100
    max_minutes: float = 0.0  # stop (resumable) after this much training time; 0: no limit
    stop_at_step: int = 0  # stop (resumable) at this step; 0: no limit
    compiled: bool = True  # the step traced and compiled with XLA (a few steps of a test run faster eagerly)
    save_every: int = 1  # write the ranker's files (`epoch-N/`) every this many epochs


def tune_test_split(pairs, salt: str = "ranker-tune-test") -> tuple[list, list]:
    """Held-out pairs in two halves by a hash of the normalized question (a question asked twice stays on one
    side): (tune, test). Weights are chosen on tune; test is only reported."""
    tune, test = [], []
    for pair in pairs:
        digest = hashlib.sha1(f"{salt}:{normalize(pair.source)}".encode("utf-8")).digest()
        (tune if digest[0] % 2 == 0 else test).append(pair)
    return tune, test


def hard_negatives(index: RetrievalIndex, row: int, count: int) -> list[str]:
    """Up to `count` distinct answers of the rows nearest to training row `row` (other questions only), none
    equal to the row's own answer."""
    own = normalize(index.answers[row])
    found: dict[str, None] = {}
    for other, _ in index.nearest_excluding(row, 4 * count):
        answer = index.answers[other]
        if normalize(answer) != own:
            found.setdefault(answer, None)
        if len(found) == count:
            break
    return list(found)


def all_hard_negatives(index: RetrievalIndex, count: int, cache: Path | None = None) -> list[list[str]]:
    """`hard_negatives` of every row, read from / written to `cache` (JSON) when given: it takes a minute."""
    if cache is not None and cache.is_file():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        if saved["rows"] == len(index.questions) and saved["count"] == count:
            return saved["negatives"]
    negatives = [hard_negatives(index, row, count) for row in range(len(index.questions))]
    if cache is not None:
        cache.write_text(json.dumps({"rows": len(index.questions), "count": count, "negatives": negatives},
                                    ensure_ascii=False), encoding="utf-8")
    return negatives


def group_for(rng: np.random.Generator, row: int, answers: list[str], negatives: list[str], size: int) -> list[str]:
    """[own answer, size - 1 negatives]: a random choice of the hard ones, random answers where they run out."""
    chosen = list(rng.permutation(negatives)[: size - 1]) if negatives else []
    own = normalize(answers[row])
    while len(chosen) < size - 1:
        other = answers[int(rng.integers(len(answers)))]
        if normalize(other) != own and other not in chosen:
            chosen.append(other)
    return [answers[row], *chosen]


def epoch_batches(epoch: int, pairs, negatives, config: RankerConfig, settings: RankerTraining, encode):
    """The batches of one epoch, in a fixed order for (seed, epoch): lists of (ids, segments) rows, each
    question's group together, the own answer first."""
    rng = np.random.default_rng([settings.seed, epoch])
    answers = [p.target for p in pairs]
    order = rng.permutation(len(pairs))
    cached: dict[str, list[int]] = {}
    encode_cached = lambda text: cached.setdefault(text, encode(text))  # noqa: E731
    for start in range(0, len(order) - settings.questions_per_batch + 1, settings.questions_per_batch):
        rows = []
        for row in order[start:start + settings.questions_per_batch]:
            for answer in group_for(rng, int(row), answers, negatives[row], settings.group):
                rows.append(pair_ids(encode_cached, pairs[row].source, answer, config))
        yield rows


def batches_per_epoch(pairs, settings: RankerTraining) -> int:
    return len(pairs) // settings.questions_per_batch


def listwise_loss(scores, group: int):
    """Mean softmax cross-entropy over each question's group of scores, its own answer (first) the label; and
    the share of questions whose own answer scores highest."""
    import tensorflow as tf

    grouped = tf.reshape(scores, (-1, group))
    loss = tf.reduce_mean(tf.reduce_logsumexp(grouped, axis=1) - grouped[:, 0])
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(grouped, axis=1), 0), tf.float32))
    return loss, accuracy


def make_train_step(model, optimizer, group: int, compiled: bool = True):
    import tensorflow as tf

    def step(ids, segments):
        with tf.GradientTape() as tape:
            loss, accuracy = listwise_loss(model((ids, segments), training=True), group)
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss, accuracy

    return tf.function(step, jit_compile=True, reduce_retracing=True) if compiled else step


def build_ranker(config: RankerConfig, generator_weights: dict | None = None):
    """A PairRanker, its encoder and embedding from `generator_weights` (a chatbot bundle's) where given; the
    embedding frozen."""
    from studio.train.ranker_model import PairRanker, generator_arrays

    model = PairRanker(config).build_weights()
    if generator_weights is not None:
        arrays = generator_arrays(model, generator_weights)
        for variable in model.weights:
            if variable.path in arrays:
                variable.assign(arrays[variable.path].astype(np.float32))
        model.embedding.trainable = False
    return model


def make_optimizer(settings: RankerTraining, total_steps: int):
    import keras

    schedule = keras.optimizers.schedules.CosineDecay(
        0.0, max(total_steps - settings.warmup_steps, 1), alpha=0.1, warmup_target=settings.learning_rate,
        warmup_steps=settings.warmup_steps)
    return keras.optimizers.Adam(schedule, beta_1=0.9, beta_2=0.98, epsilon=1e-9, clipnorm=1.0)


def save_ranker(out: Path, model, config: RankerConfig, tokenizers, weights: dict | None = None) -> Path:
    """The ranker's files in `out` (`studio.text.ranking.Ranker.load` reads them): weights compact, as bundles
    store theirs."""
    from studio.weights import compact_arrays, save_npz, variables_to_arrays

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    save_npz(out / WEIGHTS_FILE, compact_arrays(weights if weights is not None else variables_to_arrays(model.weights)))
    save_config(out, config)
    tokenizers.save(out / TOKENIZER_DIR)
    return out


def train_ranker(pairs, out: Path, config: RankerConfig, tokenizers, settings: RankerTraining,
                 generator_weights: dict | None = None, log=print) -> Path:
    """Train on `pairs` (a chatbot's training pairs) into `out` (checkpoints under `out/checkpoints`, the
    ranker's files in `out` when done); a run with checkpoints resumes from the newest. Returns `out`."""
    from studio.train.checkpoints import CheckpointStore, TrainState

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    index = RetrievalIndex.build([p.source for p in pairs], [p.target for p in pairs], "char")
    negatives = all_hard_negatives(index, settings.negatives_from, out / "negatives.json")
    per_epoch = batches_per_epoch(pairs, settings)
    import keras

    keras.utils.set_random_seed(settings.seed)  # the same start for a run and its resumed copy
    model = build_ranker(config, generator_weights)
    optimizer = make_optimizer(settings, per_epoch * settings.epochs)
    optimizer.build(model.trainable_variables)
    store = CheckpointStore(out / "checkpoints", keep=3)
    state = store.restore(model, optimizer) if store.latest() else TrainState()
    log(f"{len(pairs):,} questions, {per_epoch} batches an epoch; from step {state.step} (epoch {state.epoch}, "
        f"batch {state.batch_in_epoch})")
    step = make_train_step(model, optimizer, settings.group, settings.compiled)
    encode = text_encoder(tokenizers.source, config.text_pipeline)
    if run_epochs(model, optimizer, step, store, state, pairs, negatives, config, settings, encode, tokenizers, log):
        save_ranker(out, model, config, tokenizers)
        log(f"ranker written to {out}")
    return out


def run_epochs(model, optimizer, step, store, state, pairs, negatives, config, settings, encode, tokenizers,
               log) -> bool:
    """Train from `state` to the end of `settings.epochs`; False where `max_minutes` stopped it first."""
    while state.epoch < settings.epochs:
        losses, accuracies = [], []
        for number, rows in enumerate(epoch_batches(state.epoch, pairs, negatives, config, settings, encode)):
            if number < state.batch_in_epoch:
                continue
            started = time.monotonic()
            ids, segments = pad_batch(rows, pad_id=config.pad_id)
            loss, accuracy = step(ids, segments)
            losses.append(float(loss))
            accuracies.append(float(accuracy))
            batch_tokens = int((ids != config.pad_id).sum())
            state.train_seconds += time.monotonic() - started
            state.step, state.batch_in_epoch = state.step + 1, number + 1
            state.target_tokens += batch_tokens
            if state.step % settings.checkpoint_steps == 0:
                store.save(model, optimizer, state)
                log(f"step {state.step} epoch {state.epoch + 1} batch {number + 1}: loss {np.mean(losses[-100:]):.4f} "
                    f"accuracy {np.mean(accuracies[-100:]):.3f} ({state.train_seconds / 60:.1f} min)")
            if (settings.max_minutes and state.train_seconds >= settings.max_minutes * 60) or \
                    state.step == settings.stop_at_step:
                store.save(model, optimizer, state)
                log(f"stopped at step {state.step} after {state.train_seconds / 60:.1f} training minutes (resumable)")
                return False
        state.history.append({"epoch": state.epoch + 1, "loss": float(np.mean(losses)) if losses else math.nan,
                              "accuracy": float(np.mean(accuracies)) if accuracies else math.nan,
                              "step": state.step, "train_seconds": state.train_seconds})
        state.epoch, state.batch_in_epoch = state.epoch + 1, 0
        store.save(model, optimizer, state)
        if state.epoch % settings.save_every == 0:
            save_ranker(store.directory.parent / f"epoch-{state.epoch}", model, config, tokenizers)
        log(f"epoch {state.epoch} done: {state.history[-1]}")
    return True


# ---- a "sides" ranker: the generator's encoder frozen, each side read alone; only the head learns ------------
def side_vectors(weights: dict, config: RankerConfig, encode, texts: list[str], batch_size: int = 256) -> np.ndarray:
    """The frozen encoder's mean-pooled vector [N, D] of each text read alone (`studio.text.ranking.side_ids`)."""
    from studio.text.ranking import pooled_states, side_ids

    out = []
    for start in range(0, len(texts), batch_size):
        rows = [(side_ids(encode, text, config), []) for text in texts[start:start + batch_size]]
        out.append(pooled_states(weights, config, pad_batch(rows, pad_id=config.pad_id)[0]).astype(np.float32))
    return np.concatenate(out) if out else np.zeros((0, config.d_model), np.float32)


def encoder_arrays(config: RankerConfig, generator_weights: dict, member: int = 0) -> dict[str, np.ndarray]:
    """The generator's embedding and encoder layers, named as a ranker's (without "ranker/")."""
    prefix = f"member_{member}/" if any(name.startswith("member_") for name in generator_weights) else ""
    wanted = ["source_embedding/embeddings"] + [name[len(prefix):] for name in generator_weights
                                                if name.startswith(prefix + "encoder_")
                                                and int(name[len(prefix) + 8:].split("/")[0]) < config.num_layers]
    return {name: np.asarray(generator_weights[prefix + name], np.float32) for name in wanted}


def side_head(config: RankerConfig):
    import keras

    head = keras.Sequential([keras.layers.Dense(config.head_units, activation="tanh", name="head_hidden"),
                             keras.layers.Dense(1, name="head_score")], name="ranker")
    head.build((None, 3 * config.d_model))
    return head


def side_batches(epoch: int, answers: list[str], negatives, answer_row: dict[str, int], settings: RankerTraining):
    """(question rows [Q], answer-vector rows [Q, group]) per batch of one epoch, in a fixed order for (seed, epoch)."""
    rng = np.random.default_rng([settings.seed, epoch])
    order = rng.permutation(len(answers))
    for start in range(0, len(order) - settings.questions_per_batch + 1, settings.questions_per_batch):
        rows = order[start:start + settings.questions_per_batch]
        groups = [[answer_row[a] for a in group_for(rng, int(r), answers, negatives[r], settings.group)] for r in rows]
        yield rows, np.array(groups, np.int32)


def side_loss(head, question_vectors, answer_vectors, group: int):
    """`listwise_loss` of a sides head: question vectors [Q, D], their groups' answer vectors [Q, group, D]."""
    import tensorflow as tf

    q = tf.expand_dims(question_vectors, 1)
    features = tf.concat([answer_vectors, q * answer_vectors, tf.abs(q - answer_vectors)], axis=-1)
    scores = tf.reshape(head(tf.reshape(features, (-1, features.shape[-1]))), (-1,))
    return listwise_loss(scores, group)


def side_head_arrays(head, encoder: dict) -> dict[str, np.ndarray]:
    """The files' weights of a sides ranker: the frozen encoder's and the head's, named as `Ranker` reads them."""
    arrays = {"ranker/" + name: value for name, value in encoder.items()}
    for layer in head.layers:
        arrays[f"ranker/{layer.name}/kernel"] = np.asarray(layer.kernel.numpy())
        arrays[f"ranker/{layer.name}/bias"] = np.asarray(layer.bias.numpy())
    return arrays


def train_side_ranker(pairs, out: Path, config: RankerConfig, tokenizers, settings: RankerTraining,
                      generator_weights: dict, log=print) -> Path:
    """A "sides" ranker (`RankerConfig.kind`): the generator's encoder reads each question and each answer once;
    a head learns, listwise, to put a question's own answer above its hard negatives. Minutes, not hours, on a
    CPU; checkpoints at each epoch's end, resumable."""
    import tensorflow as tf

    from studio.train.checkpoints import CheckpointStore, TrainState

    out, config = Path(out), RankerConfig(**{**config.__dict__, "kind": "sides"})
    out.mkdir(parents=True, exist_ok=True)
    index = RetrievalIndex.build([p.source for p in pairs], [p.target for p in pairs], "char")
    negatives = all_hard_negatives(index, settings.negatives_from, out / "negatives.json")
    encoder, encode = encoder_arrays(config, generator_weights), text_encoder(tokenizers.source, config.text_pipeline)
    answers = [p.target for p in pairs]
    distinct = list(dict.fromkeys(answers))
    answer_row = {a: i for i, a in enumerate(distinct)}
    questions = tf.constant(side_vectors(encoder, config, encode, [p.source for p in pairs]))
    answer_vectors = tf.constant(side_vectors(encoder, config, encode, distinct))
    import keras

    keras.utils.set_random_seed(settings.seed)
    head = side_head(config)
    optimizer = make_optimizer(settings, batches_per_epoch(pairs, settings) * settings.epochs)
    optimizer.build(head.trainable_variables)
    store = CheckpointStore(out / "checkpoints", keep=2)
    state = store.restore(head, optimizer) if store.latest() else TrainState()
    log(f"{len(pairs):,} questions, {len(distinct):,} distinct answers read; from epoch {state.epoch}")

    @tf.function(jit_compile=settings.compiled)
    def step(rows, groups):
        with tf.GradientTape() as tape:
            loss, accuracy = side_loss(head, tf.gather(questions, rows), tf.gather(answer_vectors, groups),
                                       settings.group)
        optimizer.apply_gradients(zip(tape.gradient(loss, head.trainable_variables), head.trainable_variables))
        return loss, accuracy

    while state.epoch < settings.epochs:
        started, results = time.monotonic(), []
        for rows, groups in side_batches(state.epoch, answers, negatives, answer_row, settings):
            results.append([float(v) for v in step(rows, groups)])
        state.epoch, state.step = state.epoch + 1, state.step + len(results)
        state.train_seconds += time.monotonic() - started
        loss, accuracy = np.mean(results, axis=0)
        state.history.append({"epoch": state.epoch, "loss": float(loss), "accuracy": float(accuracy)})
        store.save(head, optimizer, state)
        if state.epoch % settings.save_every == 0 or state.epoch == settings.epochs:
            save_ranker(out / f"epoch-{state.epoch}", None, config, tokenizers, side_head_arrays(head, encoder))
        log(f"epoch {state.epoch}: loss {loss:.4f} accuracy {accuracy:.3f} ({state.train_seconds:.0f} s)")
    save_ranker(out, None, config, tokenizers, side_head_arrays(head, encoder))
    return out
