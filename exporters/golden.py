"""Golden data: what another runtime (the web page, a phone) must compute to be equal to Python.

`<export>/golden/golden.json` lists the task's golden sentences (`studio.tasks`) with their normalized text,
source ids (ending in `</s>`), the greedy output ids of each exported `.tflite` file as Python LiteRT
decodes them, and the text shown; `beam_ids` are beam search's ids (`BEAM`: size 4, length penalty 1.0, no
length caps) on the fp32 `model.tflite`, and `beam_ids_by_file` those of each dynamic-batch `.tflite` (Python
steps a source's hypotheses as one batch, which the batch-1 graphs cannot run). `step0_logits.f32` holds the
fp32 graph's logits at step 0 (little-endian float32, one row per sentence). `normalization.json` pairs tricky
strings with what each text pipeline makes of them. Tests of the JS package (`web/`) read these files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from studio.files import atomic_write_bytes
from studio.generate import Beam, DecodeSpec, TokenByToken, decode, decode_steps
from studio.generate.strategies import Forced
from studio.runtimes.tflite_runtime import TFLiteRuntime
from studio.tasks import task_named
from studio.text.pipelines import PIPELINES, TextPipeline
from studio.variants import VARIANTS

FOLDER = "golden"
FORMAT = "transformer-studio-golden/1"
BEAM = {"size": 4, "length_penalty": 1.0}  # the beam search whose ids golden.json holds

# strings whose normalization is easy to get wrong in another language's Unicode library
NORMALIZATION_CASES = (
    "영화 볼래?", "  공백이   많은   문장  ", "tab\there\nnew line\r\nand\u2028separators\u2029end",
    "\u1112\u1161\u11ab\u1100\u1173\u11af",  # decomposed Hangul (macOS, some IMEs) -> NFC
    "ㅋㅋㅋ ㅠㅠ ㄱㄴㄷ", "ＡＢＣ１２３！？（全角）", "zero\u200bwidth\u200cjoiner\u200dmarks\ufeff",
    "bidi \u202eoverride\u202c and \u2066isolate\u2069", "control\x00\x07\x1b[31mchars", "soft\u00adhyphen",
    "no-break\u00a0space and\u3000ideographic space", "emoji 😀👍🏽🇰🇷 family 👨‍👩‍👧", "“curly” ‘quotes’ «guillemets»",
    "(brackets) [square] {curly} <angle>", "$999 · 5% ~ 10:30 #tag @user & a+b=c", "Don't stop — it's e-mail",
    "Café naïve façade résumé", "Ωμέγα Кириллица עברית العربية", "漢字 かな カナ", "e\u0301 vs \u00e9",
    "ﬁ ligature ² superscript ① circled", "...!!!???,,,", "mixed English and 한국어 text.",
    "private\ue000use", "line1\x85line2\x0bline3\x0cline4", "",
    "unassigned \U000e0001 tag char", "Hangul filler \u3164 and \u115f",
    "`` Solar Tree '' is the film 's 1995 --2005 hit, 'House '' and film 's Nike' premiere `` open",
    "한국·미국·일본 《기생충》 〈뉴스룸〉 「인용」 『책』 6·25 전쟁 · 항목 ①·②",
    "Obama says: “Do not think it is a solution.\" and `` fine ''",
)


def normalization_cases(texts=NORMALIZATION_CASES) -> list[dict]:
    tutorial, lower, translator = (TextPipeline(PIPELINES[0]), TextPipeline(PIPELINES[0], lowercase_target=True),
                                   TextPipeline(PIPELINES[1]))
    return [{"text": text, "tutorial": tutorial.source(text), "tutorial_lower": lower.target(text),
             "translator": translator.source(text), "tutorial_output": tutorial.output(text),
             "translator_output": translator.output(text)} for text in texts]


def write_golden(bundle, export_dir: Path) -> Path:
    """Write `golden/` for the `.tflite` files present in `export_dir`; returns golden.json's path."""
    export_dir = Path(export_dir)
    config, preprocessor = bundle.config.model, bundle.preprocessor
    texts = task_named(bundle.config.task.task).golden
    encoded = [preprocessor.encode(text) for text in texts]
    sources = [ids for ids, _ in encoded]
    spec = DecodeSpec.for_model(config)
    greedy: dict[str, list[list[int]]] = {}
    beam: dict[str, list[list[int]]] = {}
    step0 = None
    for variant in VARIANTS.values():
        if variant.format != "tflite" or not (export_dir / variant.files[0]).is_file():
            continue
        runtime = TFLiteRuntime(export_dir / variant.files[0], config, threads=1, pool_size=1)
        greedy[variant.files[0]] = [decode(runtime, [ids], spec, TokenByToken())[0] for ids in sources]
        if variant.batch != 1:
            beam[variant.files[0]] = [decode(runtime, [ids], spec, Beam(BEAM["size"], BEAM["length_penalty"]))[0]
                                      for ids in sources]
        if variant.quantization == "none":
            step0 = np.stack([next(decode_steps(runtime, [ids], spec, Forced(np.array([[config.bos_id]]))))[0]
                              for ids in sources]).astype("<f4")
    if "model.tflite" not in greedy:
        raise ValueError(f"{export_dir}: golden data needs model.tflite (the fp32 graph)")
    task = bundle.config.task
    sentences = [{"text": text, "normalized": preprocessor.pipeline.source(text), "source_ids": ids,
                  "warnings": warnings, "greedy_ids": greedy["model.tflite"][i],
                  "greedy_ids_by_file": {name: outputs[i] for name, outputs in greedy.items()},
                  "beam_ids": beam["model.tflite"][i],
                  "beam_ids_by_file": {name: outputs[i] for name, outputs in beam.items()},
                  "output": preprocessor.decode(greedy["model.tflite"][i])}
                 for i, (text, (ids, warnings)) in enumerate(zip(texts, encoded))]
    golden = {"format": FORMAT, "task": task.task,
              "pipeline": {"name": preprocessor.pipeline.name, "lowercase_target": preprocessor.pipeline.lowercase_target},
              "special_ids": {"pad": config.pad_id, "bos": config.bos_id, "eos": config.eos_id},
              "max_source_len": config.max_source_len, "max_target_len": config.max_target_len,
              "vocab_size": config.tgt_vocab_size,
              "tokenizer": {side: f"tokenizer/{name}" for side, name in bundle.tokenizers.model_files().items()},
              "reference": "model.tflite (Python LiteRT, greedy, batch 1)",
              "beam": {**BEAM, "reference": "model.tflite (Python LiteRT, studio.generate.Beam, no length caps)"},
              "sentences": sentences,
              "step0_logits": {"file": "step0_logits.f32", "shape": list(step0.shape), "dtype": "float32-le"}}
    folder = export_dir / FOLDER
    folder.mkdir(exist_ok=True)
    atomic_write_bytes(folder / "step0_logits.f32", step0.tobytes())
    atomic_write_bytes(folder / "normalization.json", _json(normalization_cases()))
    atomic_write_bytes(folder / "golden.json", _json(golden))
    return folder / "golden.json"


def _json(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
