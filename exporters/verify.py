"""Do the exported graphs compute what TensorFlow computes? Two checks per exported backend:
max |logit difference| along teacher-forced decode steps, and the share of sample inputs whose greedy
output is identical to TF's. Quantized variants report both; only fp32 graphs are expected to match."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from studio.generate import greedy_decode, pad_batch

CHATBOT_SAMPLES = ["영화 볼래?", "넌 누구야?", "오늘 날씨는 어때?", "지칠때 어떡하면 좋을까?", "너 좋아하는 사람 있어?",
                   "대학원 합격 하겠지?", "배고파", "오늘 너무 힘들었어", "주말에 뭐 하지?", "고마워"]
TRANSLATOR_SAMPLES = ["오바마는 대통령이다.", "시민들은 도시 속에 산다.", "커피는 필요 없다.", "일곱 명의 사망자가 발생했다.",
                      "나는 학교에 간다.", "이 파일을 저장하시겠습니까?", "그는 책을 읽고 있었다.", "날씨가 좋다."]


def _logit_difference(reference, candidate, sources, targets) -> float:
    worst = 0.0
    ref_state, cand_state = reference.encode(sources), candidate.encode(sources)
    for position in range(targets.shape[1]):
        ref_logits, ref_state = reference.step(ref_state, targets[:, position], position)
        cand_logits, cand_state = candidate.step(cand_state, targets[:, position], position)
        worst = max(worst, float(np.max(np.abs(ref_logits - cand_logits))))
    return worst


def verify_exports(bundle, export_dir: Path, samples: list[str] | None = None) -> dict:
    from studio.inference import TextGenerator
    from studio.runtimes import EXPORTED_FILES, load_runtime

    samples = samples or (CHATBOT_SAMPLES if bundle.config.task.task == "chatbot" else TRANSLATOR_SAMPLES)
    config = bundle.config.model
    model = bundle.build_model()
    reference = TextGenerator(bundle, "tf", model=model)
    sources = [reference.encode_source(text)[0] for text in samples]
    max_new = config.max_target_len
    tf_outputs = greedy_decode(reference.runtime, sources, config.bos_id, config.eos_id, max_new, config.pad_id)
    # teacher-force TF's own greedy outputs so every step is compared on the same prefix
    targets = pad_batch([[config.bos_id] + out for out in tf_outputs], config.pad_id)[:, :max_new]
    source_batch = pad_batch(sources, config.pad_id)
    results = {}
    for backend, files in EXPORTED_FILES.items():
        if not all((Path(export_dir) / f).is_file() for f in files):
            continue
        runtime = load_runtime(bundle, backend, export_dir=export_dir)
        outputs = greedy_decode(runtime, sources, config.bos_id, config.eos_id, max_new, config.pad_id)
        results[backend] = {
            "max_abs_logit_diff": _logit_difference(reference.runtime, runtime, source_batch, targets),
            "greedy_match_rate": sum(a == b for a, b in zip(outputs, tf_outputs)) / len(samples),
            "samples": len(samples),
        }
    return results
