"""The app's outputs as golden data: what a package's full pipeline must give — `studio translate` / `studio chat`
with their default decoding, protection on — for the task's golden sentences and `exporters/golden_texts/<task>.txt`
(original sentences with numbers, amounts, dates, times, URLs and names), each line as one request, and all the
first DOCUMENT_LINES lines as one text (a name introduced in one line is remembered in a later one). `golden/golden.json` keeps the raw
model's ids apart: the decode loop's own check. For a chatbot with stored replies each case holds both replies a port
must give: `output`, the default (`studio chat`: the stored reply, or the model's when no training question is
alike), with `stored` (its `match` and the `question` it answers; null when the model wrote it), and `generated`,
the model's reply (`studio chat --reply generate`).

They are computed by `studio.packaged.PackagedModel` on the package's own files and kept beside the export
(`golden/app.<variant>.json`), named by a hash of those files and of the code that made them, so a package of an
unchanged model and code reuses them. A package of a batch-1 graph, which cannot run batches (the app batches a
text's sentences and a beam's hypotheses), decodes each source and each hypothesis alone, as a port on a phone does
(`studio.runtimes.one_row`): the outputs are the app's pipeline on that very graph."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from exporters.portable import runtime_files
from studio.files import atomic_write_bytes, sha256_of
from studio.packaged import PackagedModel
from studio.replies import GENERATE
from studio.tasks import task_named

FORMAT = "transformer-studio-app-golden/3"
# the lines decoded again as one text: enough for names remembered across lines (WHO at lines 18 and 68), while
# every package's export and the Android library's test decode each golden text once more only for these
DOCUMENT_LINES = 70
TEXTS = Path(__file__).resolve().parent / "golden_texts"


def golden_texts(task: str) -> list[str]:
    """The task's golden sentences, then the lines of golden_texts/<task>.txt."""
    path = TEXTS / f"{task}.txt"
    extra = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return list(dict.fromkeys([*task_named(task).golden, *filter(str.strip, extra)]))


def identity(payload: dict[str, Path | bytes], task: str) -> str:
    """A hash of what the outputs follow: the package's model, config and tokenizer files, the app's code (the
    python package's `studio_runtime/`, `OneRowAtATime` among it) and the texts."""
    digest = hashlib.sha256()
    for name, content in sorted(payload.items()):
        if not _read_by_the_model(name):
            continue
        digest.update(name.encode())
        # a file's hex sha256, whether it is given as a Path or as its bytes: an unzipped package names the same
        sha = sha256_of(content) if isinstance(content, Path) else hashlib.sha256(content).hexdigest()
        digest.update(sha.encode())
    for name, source in sorted(runtime_files().items()):
        digest.update(name.encode() + hashlib.sha256(source).digest())
    digest.update("\n".join(golden_texts(task)).encode("utf-8"))
    digest.update(FORMAT.encode())
    return digest.hexdigest()


def _read_by_the_model(name: str) -> bool:
    """Whether the outputs follow the file: the graphs, config.json, the tokenizer and the stored replies (not
    golden/, a port's data and fixtures, the docs, the manifest, which says the same for every target: its
    `package.batch_1`, which has a batch-1 graph decoded one row at a time, goes with the graph's file name)."""
    if name.startswith(("golden/", "studio_runtime/", "fixtures/", "text/")) or name == "manifest.json":
        return False
    return name.endswith((".tflite", ".onnx", ".json", ".model", ".bin"))


def app_golden(payload: dict[str, Path | bytes], task: str, cache: Path, progress=print) -> bytes:
    """golden/app.json for a package whose files (by their path in it, `manifest.json` among them) are
    `payload`: read from `cache` when made from the same files and code, else computed and kept there. A batch-1
    graph decodes one row at a time (`studio.runtimes.one_row`)."""
    made_by = identity(payload, task)
    try:
        kept = cache.read_bytes()
        if json.loads(kept).get("identity") == made_by:
            return kept
    except (OSError, ValueError):
        pass
    progress(f"Writing the app's outputs on {len(golden_texts(task))} golden texts (once per model and code)...")
    content = (json.dumps(_computed(payload, task, made_by), indent=1, ensure_ascii=False)
               + "\n").encode("utf-8")
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(cache, content)
    except OSError:  # a read-only export folder: computed again next time
        pass
    return content


def _computed(payload: dict[str, Path | bytes], task: str, made_by: str) -> dict:
    texts = golden_texts(task)
    with tempfile.TemporaryDirectory(prefix="studio-app-golden-") as scratch:
        for name, content in payload.items():  # the package's layout, its large files linked, not copied
            target = Path(scratch) / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                os.symlink(content.resolve(), target)
            else:
                target.write_bytes(content)
        model = PackagedModel(scratch)  # a batch-1 graph's rows decoded alone (`package.batch_1`)
        cases = [_replies(model, text) if model.replies is not None else {"text": text, "output": model(text)}
                 for text in texts]
        whole = "\n".join(texts[:DOCUMENT_LINES])
        document = {"text": whole, "output": model(whole)} if task_named(task).translates else None
    replies = {"replies": {"modes": list(model.task.reply_modes), "rows": len(model.replies.questions)}
               } if model.replies is not None else {}
    return {"format": FORMAT, "identity": made_by, "task": task, "decoding": task_named(task).default_decoding,
            "protection": task_named(task).translates, **replies, "cases": cases,
            **({"document": document} if document else {})}


def _replies(model: PackagedModel, text: str) -> dict:
    """A chatbot case with stored replies: the default reply (`output`: the stored one, else the model's), where it
    came from (`stored`), and the model's (`generated`); the model decodes each text once."""
    found, _ = model.stored_reply(text)  # the package's default mode: a stored reply
    generated = model.reply(text, GENERATE)
    stored = {"match": found.match, "question": found.question} if found else None
    return {"text": text, "output": found.text if found else generated, "stored": stored, "generated": generated}
