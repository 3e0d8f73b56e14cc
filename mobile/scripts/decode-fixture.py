"""Writes mobile/android/src/test/resources/decode/<bundle>.json: what the app's own decode loop gives (studio.runtimes'
ONNX runtime, studio.generate, TextGenerator's rules) on the exported ONNX graphs of each shipped bundle, for the
golden sentences and ~60 more varied sources. The Kotlin decode loop (mobile/android, transformerstudio.decode) must
give the same ids (DecodeFixtureTest):

    PYTHONPATH=. .venv/bin/python mobile/scripts/decode-fixture.py

Per source: its ids (Preprocessor.encode's, `</s>` included), its numbers and years (facts.source_numbers and
source_years of the decoded source, as TextGenerator.spec reads them), and the app's outputs: greedy and beam search
(the task's beam settings; the chatbot's are DecodeOptions' defaults), each with the figure guard on and off, and a
seeded sample; the loop guard's retry included (`retried` names the outputs it replaced). For one sentence, the
eight best logits of each greedy step. Each file records a hash of the graphs, tokenizer and code it was made from
(`identity`): tests/unit/test_mobile_decode_fixture.py fails while a committed file's is not what they make now.
"""

import json
import random
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "mobile" / "android" / "src" / "test" / "resources" / "decode"
BUNDLES = ("translator", "chatbot")
TOP = 8  # logits kept per step

TEXTS = [
    "2018년 3월에 3조 5천억 원을 투자했다.", "삼성전자는 2023년 4분기에 매출 67조 7,800억 원을 기록했다.",
    "1995년부터 2005년까지 인구가 1,234,567명으로 늘었다.", "회의는 오후 3시 30분에 시작한다.",
    "그는 1.5킬로미터를 12분 만에 달렸다.", "2024년 7월 1일부터 요금이 5% 인상된다.", "가격은 9,900원이다.",
    "2018~2020년 사이에 300개의 학교가 문을 닫았다.", "제2차 세계대전은 1945년에 끝났다.", "전화번호는 010-1234-5678이다.",
    "0.25%의 금리 인상이 발표되었다.", "그 도시에는 약 3만 8천 명이 산다.", "1조 2천억 달러 규모의 예산안이 통과됐다.",
    "지난 2일 정부는 새 정책을 발표했다.", "세 명의 학생이 상을 받았다.", "2030년까지 탄소 배출을 40% 줄이겠다고 밝혔다.",
    "하하하하하하하하하하하하하하", "네 네 네 네 네 네 네 네 네 네", "ㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋㅋ", "좋아 좋아 좋아 좋아 좋아 좋아 좋아",
    "아 아 아 아 아 아 아 아 아 아 아 아", "정말 정말 정말 정말 정말 정말 정말 정말 고마워", "1 1 1 1 1 1 1 1 1 1",
    "서울은 한국의 수도이다.", "나는 어제 친구와 영화를 봤다.", "이 책은 매우 재미있다.", "비가 와서 경기가 취소되었다.",
    "그녀는 의사가 되고 싶어 한다.", "우리는 내일 부산으로 떠난다.", "컴퓨터가 갑자기 꺼졌다.", "뭐 먹을까?",
    "오늘 기분이 어때?", "주말에 같이 등산 갈래?", "너무 피곤해서 아무것도 하기 싫어.", "고양이가 창밖을 바라보고 있다.",
    "ChatGPT와 Gemini는 인공지능 모델이다.", "NASA는 2026년에 달 탐사선을 발사할 계획이다.", "iPhone 16의 가격은 $799다.",
    "김민수 씨는 서울대학교에서 경제학을 전공했다.", "BTS는 2013년에 데뷔했다.", "😀😀😀", "...", "?!", "a", "ㄱ",
    "대한민국 헌법 제1조 제1항은 대한민국은 민주공화국이라고 규정한다.",
]
LONG = ("정부는 내년 예산을 656조 9천억 원으로 편성했다고 기획재정부가 29일 발표했다. 전문가들은 이번 예산이 경제 회복에 도움이 될 것이라고 "
        "평가하면서도 재정 건전성에 대한 우려를 나타냈다. 2025년 국가 채무는 1,200조 원을 넘어설 것으로 전망된다. ") * 3


def load(name: str):
    from studio.bundle import load_bundle
    from studio.inference import TextGenerator
    from studio.text.facts import source_numbers, source_years

    class Guarded(TextGenerator):
        """The app's generator; `guard_all`: the figure guard on for a task that does not keep figures too."""
        guard_all = False

        def spec(self, options, sources=()):
            spec = super().spec(options, sources)
            if self.guard_all and sources and spec.figures is None and (options is None or options.keep_figures):
                texts = [self.tokenizers.source.decode(s) for s in sources]
                spec = replace(spec, figures=self.figure_guard(), numbers=tuple(map(source_numbers, texts)),
                               years=tuple(map(source_years, texts)))
            return spec

    return Guarded.open(load_bundle(ROOT / "assets" / name), "onnx", threads=1)


def sources(generator, golden: list[str]) -> list[tuple[str, list[int]]]:
    """(label, source ids) of the golden sentences, the texts above, long inputs and made-up id sequences."""
    encode = generator.preprocessor.encode
    found = [(f"golden: {text[:40]}", encode(text)[0]) for text in golden]
    found += [(f"text: {text[:40]}", encode(text)[0]) for text in TEXTS]
    limit, eos = generator.config.model.max_source_len, generator.config.model.eos_id
    long_ids = encode(LONG)[0]  # cut to the limit: max_source_len ids with </s>
    found.append(("long: cut at the limit", long_ids))
    body = long_ids[:-1]
    # one id short of the limit (the cache's last slot); each case is decoded five ways on the JVM: long outputs
    # are most of its time
    found += [(f"long: {n} ids", body[: n - 1] + [eos]) for n in (limit - 1,)]
    rng = random.Random(56)
    vocab = generator.config.model.src_vocab_size
    for length in (2, 9, 33, limit):
        found.append((f"random ids: {length}", [rng.randrange(4, vocab) for _ in range(length - 1)] + [eos]))
    repeated = encode("네")[0][:-1]
    found.append(("repeated id x30", (repeated * 30)[: limit - 1] + [eos]))
    return found


def decode_app(generator, source: list[int], options, guard_all: bool) -> tuple[list[int], bool]:
    """TextGenerator.generate's decode of one source: the spec's caps and guard, then the loop guard's retry."""
    from studio.generate import decode, strategy_for

    generator.guard_all = guard_all
    strategy = strategy_for(options)
    decode(generator.runtime, [source], generator.spec(options, [source]), strategy)
    outputs, retried = generator._unloop([source], strategy.outputs(), options)
    return [int(i) for i in outputs[0]], bool(retried)


def outputs(generator, source: list[int], index: int) -> dict:
    from studio.tasks import task_named

    task = task_named(generator.config.task.task)
    base = task.default_options()
    settings = {"greedy": replace(base, strategy="greedy"), "beam": replace(base, strategy="beam"),
                "sample": replace(base, strategy="sample", seed=index)}
    found, retried = {}, []
    for name, options in settings.items():
        for guard in ("on", "off") if name != "sample" else ("on",):
            key = f"{name}_{guard}" if name != "sample" else name
            ids, again = decode_app(generator, source, replace(options, keep_figures=guard == "on"), guard == "on")
            found[key] = ids
            if again:
                retried.append(key)
    return {**found, "retried": retried}


def top_logits(generator, source: list[int]) -> list[dict]:
    """The TOP best logits of each step of a plain greedy decode (no caps, no guard)."""
    import numpy as np

    from studio.generate import DecodeSpec, decode_steps, strategy_for

    spec = DecodeSpec.for_model(generator.config.model)
    steps = []
    strategy = strategy_for(None)
    for logits in decode_steps(generator.runtime, [source], spec, strategy):
        row = np.asarray(logits[0], np.float32)
        best = np.argsort(-row, kind="stable")[:TOP]
        steps.append({"ids": [int(i) for i in best], "logits": [float(row[i]) for i in best]})
    return [{"token": int(token), **step} for token, step in zip([spec.bos, *strategy.outputs()[0]], steps)]


def identity(name: str) -> str:
    """A hash of what the fixture follows: the bundle's ONNX graphs, config and tokenizer, the app's code
    (everything `studio.packaged` runs: exporters.portable) and this script."""
    import hashlib

    from exporters.portable import runtime_files
    from studio.files import sha256_of
    from studio.variants import export_dir_for

    bundle = ROOT / "assets" / name
    export = export_dir_for(bundle)
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for path in [export / "encode.onnx", export / "decode_step.onnx", bundle / "config.json",
                 *sorted((bundle / "tokenizer").iterdir())]:
        digest.update(path.name.encode() + sha256_of(path).encode())
    for module, source in sorted(runtime_files().items()):
        digest.update(module.encode() + hashlib.sha256(source).digest())
    return digest.hexdigest()


def cases(name: str) -> dict:
    from studio.text.facts import source_numbers, source_years
    from studio.variants import export_dir_for

    generator = load(name)
    export = export_dir_for(generator.bundle.path)
    files = json.loads((export / "manifest.json").read_text(encoding="utf-8"))["files"]
    golden_path = export / "golden" / "golden.json"
    golden = [s["text"] for s in json.loads(golden_path.read_text(encoding="utf-8"))["sentences"]]
    found = []
    for index, (label, source) in enumerate(sources(generator, golden)):
        text = generator.tokenizers.source.decode(source)
        found.append({"label": label, "source": [int(i) for i in source],
                      "numbers": sorted(source_numbers(text)), "years": sorted(source_years(text)),
                      **outputs(generator, source, index)})
    task = generator.config.task.task
    logits_source = found[len(golden) + 1]["source"]  # a sentence with an amount and a year
    return {"bundle": name, "task": task, "export": export.name, "identity": identity(name),
            "sha256": {graph: files[graph]["sha256"] for graph in ("encode.onnx", "decode_step.onnx")},
            "max_source_len": generator.config.model.max_source_len,
            "max_target_len": generator.config.model.max_target_len, "cases": found,
            "logits": {"source": logits_source, "steps": top_logits(generator, logits_source)}}


def write(name: str, data: dict) -> None:
    """One case a line: small diffs, a file a person can read."""
    lines = [json.dumps({k: v for k, v in data.items() if k not in ("cases", "logits")}, ensure_ascii=False)[:-1]
             + ', "cases": [']
    lines += [json.dumps(case, ensure_ascii=False) + "," for case in data["cases"]]
    lines[-1] = lines[-1][:-1]
    lines.append('], "logits": ' + json.dumps(data["logits"], ensure_ascii=False) + "}")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    (FIXTURES / f"{name}.json").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    for bundle in sys.argv[1:] or BUNDLES:
        result = cases(bundle)
        write(bundle, result)
        print(f"{bundle}: {len(result['cases'])} sources, "
              f"{sum(1 for c in result['cases'] if c['retried'])} with a retry", file=sys.stderr)
