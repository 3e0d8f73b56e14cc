"""Export packages (`exporters.package`, `studio export --zip`): a zip per target whose manifest lists exactly its
files, whose model gives the golden ids in Python LiteRT, whose example.py runs as written outside the project and
decodes as the project's TFLite backend does, whose mobile READMEs name the model's real tensors, whose ios package
holds the Kotlin library's data and fixtures and the app's outputs on its own graph, whose web site runs in Node, and
whose chatbot replies with the bundle's stored replies as `studio chat` does; bad targets and unwritable destinations
fail clearly, leaving no partial zip."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import tmpfs

from studio.errors import StudioError

SENTENCE = "너는 영화를 봤어?"  # not one of the golden sentences
NODE = shutil.which("node")
ISOLATED = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
# example.py --golden with the project's packages made unimportable: it must need nothing from them
WITHOUT_PROJECT = ("import runpy, sys; sys.modules.update(studio=None, exporters=None); "
                   "sys.argv = ['example.py', '--golden']; runpy.run_path('example.py', run_name='__main__')")


def quiet(message):
    pass


@pytest.fixture(scope="module")
def packaged(exported, tmp_path_factory):
    """(a copy of the exported tiny bundle, {target: its package zip}) for python, android and ios; packaging
    android exports the batch-1 float16 graph into the copy, which ios reuses."""
    from exporters.package import package_export

    folder = tmp_path_factory.mktemp("packages")
    shutil.copytree(exported[0], folder / "chat")
    zips = {target: package_export(folder / "chat", target, folder / "out" / f"chat-{target}.zip", progress=quiet)
            for target in ("python", "android", "ios")}
    return folder / "chat", zips


def unzipped(zip_path: Path, where: Path) -> Path:
    with zipfile.ZipFile(zip_path) as archive:
        tops = {name.split("/")[0] for name in archive.namelist()}
        archive.extractall(where)
    assert tops == {"chat"}, tops  # one top folder, named after the bundle
    return where / "chat"


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def project_greedy(bundle_dir: Path, model_file: str, text: str) -> tuple[list[int], list[int], str]:
    """(source ids, greedy ids, output text) of `text` by the project's own TFLite runtime and text pipeline."""
    from studio.bundle import load_bundle
    from studio.generate import DecodeSpec, TokenByToken, decode
    from studio.runtimes.tflite_runtime import TFLiteRuntime

    bundle = load_bundle(bundle_dir)
    source_ids, _ = bundle.preprocessor.encode(text)
    runtime = TFLiteRuntime(bundle_dir / "exports" / model_file, bundle.config.model, threads=1, pool_size=1)
    ids = decode(runtime, [source_ids], DecodeSpec.for_model(bundle.config.model), TokenByToken())[0]
    return source_ids, ids, bundle.preprocessor.decode(ids)


def printed(stdout: str) -> dict[str, str]:
    """example.py's (and example.mjs's) `label: value` lines."""
    return dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "") for line in stdout.splitlines())


def test_the_python_package_lists_exactly_its_files_with_their_sha256(packaged, tmp_path):
    bundle_dir, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["files"]) == files_under(folder) - {"manifest.json"}
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert entry == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}, name
    expected = {"model.tflite", "example.py", "README.md", "config.json", "tokenizer/shared.spm.model",
                "golden/golden.json", "golden/step0_logits.f32", "golden/normalization.json", "LICENSE.md",
                "THIRD_PARTY_NOTICES.md", "app.py", "golden/app.json", "studio_runtime/packaged.py",
                "studio_runtime/translation.py", "replies.json", "replies.bin"}
    assert expected <= set(manifest["files"])
    replies = manifest["replies"]
    assert (replies["index"], replies["arrays"], replies["format"], replies["modes"]) == (
        "replies.json", "replies.bin", "transformer-studio-replies/1", ["retrieve", "generate"])
    original = json.loads((bundle_dir / "exports" / "manifest.json").read_text(encoding="utf-8"))
    for key in ("signatures", "special_ids", "max_source_len", "max_target_len", "batch_1_graph_shapes", "vocab_size"):
        assert manifest[key] == original[key], key
    assert manifest["golden"] == "golden/golden.json" and manifest["package"]["model"] == "model.tflite"
    assert manifest["tokenizer"]["source"] == "tokenizer/shared.spm.model"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    for name, entry in manifest["files"].items():
        if name != "README.md":
            assert f"| `{name}` | {entry['bytes']:,} | `{entry['sha256']}` |" in readme, name


@pytest.mark.parametrize("target", ["python", "android", "ios"])
def test_every_file_of_a_package_unzips_readable_by_all(packaged, target):
    with zipfile.ZipFile(packaged[1][target]) as archive:
        modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in archive.infolist()}
    assert modes and all(mode == (0o755 if name.endswith(".sh") else 0o644) for name, mode in modes.items()), modes


def test_the_python_packages_model_gives_the_golden_greedy_ids_in_python_litert(packaged, tmp_path):
    from studio.bundle import load_bundle
    from studio.generate import DecodeSpec, TokenByToken, decode
    from studio.runtimes.tflite_runtime import TFLiteRuntime

    bundle_dir, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    config = load_bundle(bundle_dir).config.model
    runtime = TFLiteRuntime(folder / "model.tflite", config, threads=1, pool_size=1)
    golden = json.loads((folder / "golden" / "golden.json").read_text(encoding="utf-8"))
    spec = DecodeSpec.for_model(config)
    for sentence in golden["sentences"]:
        ids = decode(runtime, [sentence["source_ids"]], spec, TokenByToken())[0]
        assert ids == sentence["greedy_ids_by_file"]["model.tflite"] == sentence["greedy_ids"], sentence["text"]


def test_example_py_runs_as_written_outside_the_project_and_decodes_as_its_tflite_backend(packaged, tmp_path):
    bundle_dir, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    script = (folder / "example.py").read_text(encoding="utf-8")
    imported = {alias.name.split(".")[0] for node in ast.walk(ast.parse(script)) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(ast.parse(script))
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert not imported & {"studio", "exporters"}, imported
    assert script in (folder / "README.md").read_text(encoding="utf-8")  # the README shows the very script

    result = subprocess.run([sys.executable, "example.py", SENTENCE], cwd=folder, env=ISOLATED, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()
    lines = printed(result.stdout)
    source_ids, ids, text = project_greedy(bundle_dir, "model.tflite", SENTENCE)
    assert ids  # the tiny model's greedy ids decode to an empty text: the ids carry the comparison
    assert (lines["source ids"], lines["output ids"], lines["output"]) == (str(source_ids), str(ids), text)


APP_WITHOUT_PROJECT = ("import runpy, sys; sys.modules.update(studio=None, exporters=None, tensorflow=None, keras=None); "
                       "sys.argv = ['app.py', *sys.argv[1:]]; runpy.run_path('app.py', run_name='__main__')")


def test_app_py_gives_the_apps_output_without_the_project_or_tensorflow(packaged, tmp_path):
    from studio.bundle import load_bundle
    from studio.inference import TextGenerator
    from studio.replies import find_reply
    from studio.tasks import task_named

    bundle_dir, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    run = lambda *args, stdin=None: subprocess.run([sys.executable, "-c", APP_WITHOUT_PROJECT, *args], cwd=folder,  # noqa: E731
                                                   env=ISOLATED, capture_output=True, text=True, timeout=300,
                                                   input=stdin)
    checked = run("--golden")
    assert checked.returncode == 0 and "the app's output on every golden text" in checked.stdout, checked.stderr[-2000:]
    generator = TextGenerator.from_path(bundle_dir, "tflite")
    messages = ("영화 볼래?", "🎉 xyz")  # the second shares no n-gram with a training question: the model's
    generated = [generator.generate([m], options=task_named("chatbot").default_options())[0].text for m in messages]
    stored = [find_reply(load_bundle(bundle_dir).replies, m) for m in messages]
    assert stored[0] is not None and stored[1] is None
    replied = run(stdin=f"{messages[0]}\n\n{messages[1]}\n")
    assert replied.returncode == 0 and replied.stdout.split("\n")[:3] == [stored[0].text, "", generated[1]], (
        replied.stderr)
    written = run("--reply", "generate", stdin=f"{messages[0]}\n\n{messages[1]}\n")
    assert written.returncode == 0 and written.stdout.split("\n")[:3] == [generated[0], "", generated[1]]
    unknown = run("--reply", "ranked", "hi")
    assert unknown.returncode == 2 and "Unknown reply mode 'ranked'" in unknown.stderr
    empty = run("   ")
    assert empty.returncode == 2 and "error:" in empty.stderr and "Traceback" not in empty.stderr

    golden_path = folder / "golden" / "app.json"
    golden = json.loads(golden_path.read_text(encoding="utf-8"))
    assert all("generated" in case and "stored" in case for case in golden["cases"])  # both replies, held to
    golden["cases"][0]["generated"] += " (changed)"
    golden_path.write_text(json.dumps(golden, ensure_ascii=False), encoding="utf-8")
    failed = run("--golden")
    assert failed.returncode == 1 and "(the model's reply)" in failed.stdout


def test_the_python_packages_chatbot_gives_studio_replies_stored_reply_and_the_models_when_asked(packaged,
                                                                                                  tmp_path):
    from studio.bundle import load_bundle
    from studio.packaged import PackagedModel
    from studio.replies import GENERATE, NONE_STORED, RETRIEVE, stored_reply

    bundle_dir, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    index = load_bundle(bundle_dir).replies
    model = PackagedModel(folder)
    assert model.replies is not None and model.reply_mode == RETRIEVE
    messages = [*index.questions[:40], "영화 볼래", "너 누구니?? ㅋㅋ", "🎉 xyz", "배고파" * 20]
    for message in messages:
        found, why = model.stored_reply(message)
        app, app_why = stored_reply(index, message, RETRIEVE, (RETRIEVE, GENERATE))
        assert why == app_why and (found is None) == (app is None), message
        if found is not None:
            assert (found.text, found.match, found.question) == (app.text, app.match, app.question), message
    assert model.stored_reply("🎉 xyz") == (None, NONE_STORED)
    first = index.questions[0]
    assert model.reply(first) == model(first) == model.stored_reply(first)[0].text
    written = PackagedModel(folder, reply_mode=GENERATE)
    assert written.reply(first) == model.reply(first, GENERATE) == model.generator.generate(
        [first], options=model.task.default_options())[0].text


def test_example_py_checks_itself_against_the_golden_data(packaged, tmp_path):
    _, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    result = subprocess.run([sys.executable, "-c", WITHOUT_PROJECT], cwd=folder, env=ISOLATED, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, (result.stdout + result.stderr)[-2000:]
    assert "every sentence and normalization case matches" in result.stdout

    golden_path = folder / "golden" / "golden.json"
    golden = json.loads(golden_path.read_text(encoding="utf-8"))
    golden["sentences"][0]["greedy_ids_by_file"]["model.tflite"] = [5, 6, 7]
    golden["sentences"][1]["source_ids"] = [9, 2]
    golden_path.write_text(json.dumps(golden, ensure_ascii=False), encoding="utf-8")
    failed = subprocess.run([sys.executable, "example.py", "--golden"], cwd=folder, env=ISOLATED, capture_output=True,
                            text=True, timeout=120)
    assert failed.returncode == 1
    assert "greedy ids" in failed.stdout and "source ids" in failed.stdout, failed.stdout


def test_example_pys_text_steps_are_the_projects_on_hostile_inputs(packaged, tmp_path):
    """Beyond golden/normalization.json: every hostile input, and characters unassigned in Unicode 14 (Cn)."""
    import importlib.util

    from hostile import INPUTS

    from studio.text.pipelines import TextPipeline
    from studio.text.tokenizers import SentencePieceTokenizer

    _, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    spec = importlib.util.spec_from_file_location("packaged_example", folder / "example.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    ours = SentencePieceTokenizer((folder / "tokenizer" / "shared.spm.model").read_bytes())
    theirs = example.Tokenizer(folder / "tokenizer" / "shared.spm.model")
    texts = [text for _, text in INPUTS] + ["new \U0001fae8 shaking face, \u0870 Arabic, \U00011f00 Kawi", "“x” ``y''"]
    for name, (source, output) in example.PIPELINES.items():
        pipeline = TextPipeline(name)
        for text in texts:
            assert (source(text), output(text)) == (pipeline.source(text), pipeline.output(text)), (name, text)
            ids = ours.encode(pipeline.source(text))
            assert theirs.encode(source(text)) == ids and theirs.decode(ids + [2, 7]) == ours.decode(ids + [2, 7])


def test_a_python_package_of_a_batch1_graph_runs_its_static_shapes(packaged, tmp_path):
    from exporters.package import package_export

    bundle_dir, _ = packaged  # the android package exported model.b1.float16.tflite
    zip_path = package_export(bundle_dir, "python", tmp_path / "b1.zip", variant="tflite-b1-float16", progress=quiet)
    folder = unzipped(zip_path, tmp_path)
    assert "model.b1.float16.tflite" in files_under(folder) and "model.tflite" not in files_under(folder)
    checked = subprocess.run([sys.executable, "example.py", "--golden"], cwd=folder, env=ISOLATED,
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, (checked.stdout + checked.stderr)[-2000:]
    result = subprocess.run([sys.executable, "example.py", SENTENCE], cwd=folder, env=ISOLATED, capture_output=True,
                            text=True, timeout=120)
    _, ids, text = project_greedy(bundle_dir, "model.b1.float16.tflite", SENTENCE)
    assert (printed(result.stdout)["output ids"], printed(result.stdout)["output"]) == (str(ids), text)


def test_a_package_of_a_batch1_graph_decodes_a_beam_and_several_texts_as_each_alone(packaged, tmp_path):
    """A translator decodes with beam search, and a text's sentences together: on a graph of static batch 1 the
    package decodes each row alone, as a phone's port does, instead of failing in LiteRT."""
    from exporters.package import package_export
    from studio.generate import DecodeOptions
    from studio.packaged import PackagedModel

    bundle_dir, _ = packaged
    zip_path = package_export(bundle_dir, "python", tmp_path / "b1.zip", variant="tflite-b1-float16", progress=quiet)
    generator = PackagedModel(unzipped(zip_path, tmp_path)).generator
    texts, beam = ["나는 커피를 좋아해?", "오늘 날씨가 정말 좋다 그치"], DecodeOptions(strategy="beam", beam_size=4)
    together = [g.ids for g in generator.generate(texts, beam)]
    assert together == [generator.generate([text], beam)[0].ids for text in texts]
    assert all(together)


def test_a_package_missing_a_file_or_holding_another_models_tokenizer_is_refused_by_name(packaged, tmp_path):
    from studio.errors import BundleError
    from studio.packaged import PackagedModel

    _, zips = packaged
    folder = unzipped(zips["python"], tmp_path)
    PackagedModel(folder)  # whole: it opens
    tokenizer = folder / "tokenizer" / "shared.spm.model"
    shutil.copyfile(Path(__file__).resolve().parents[2] / "assets" / "translator" / "tokenizer" / "shared.spm.model",
                    tokenizer)
    with pytest.raises(BundleError, match="has 16000 pieces and the model's graphs .* not one model's files"):
        PackagedModel(folder)
    (folder / "tokenizer" / "shared.spm.model").write_bytes(b"not a model")
    with pytest.raises(BundleError, match="a tokenizer is damaged"):
        PackagedModel(folder)
    (folder / "manifest.json").unlink()
    with pytest.raises(BundleError, match="manifest.json: is missing: .* is not a whole model package"):
        PackagedModel(folder)
    (folder / "manifest.json").write_text("{}", encoding="utf-8")
    with pytest.raises(BundleError, match="not a model package that can be opened"):
        PackagedModel(folder)


def test_a_package_whose_graphs_are_not_its_manifests_is_refused_when_it_opens(packaged, tmp_path):
    from exporters.package import package_export
    from studio.errors import BundleError
    from studio.packaged import PackagedModel

    bundle_dir, _ = packaged
    folder = unzipped(package_export(bundle_dir, "python", tmp_path / "onnx.zip", variant="onnx", progress=quiet),
                      tmp_path)
    PackagedModel(folder)
    shutil.copyfile(folder / "decode_step.onnx", folder / "encode.onnx")  # a graph that is not the encoder
    with pytest.raises(BundleError, match="encode.onnx: its graphs do not run with this package's config.json"):
        PackagedModel(folder)


@pytest.mark.parametrize("variant, graphs", [("onnx", ("encode.onnx", "decode_step.onnx")),
                                             ("onnx-int8", ("encode.int8.onnx", "decode_step.int8.onnx"))])
def test_a_python_package_of_onnx_graphs_runs_with_onnx_runtime_alone(packaged, tmp_path, variant, graphs):
    from exporters.package import package_export

    bundle_dir, _ = packaged  # `exported` holds the ONNX graphs
    zip_path = package_export(bundle_dir, "python", tmp_path / f"{variant}.zip", variant=variant, progress=quiet)
    folder = unzipped(zip_path, tmp_path)
    files = files_under(folder)
    assert set(graphs) <= files and not any(name.endswith(".tflite") or "decode_rows" in name for name in files)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["package"]["model"], manifest["package"]["decode_step"]) == graphs
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "Python (ONNX Runtime)" in readme and "`pip install onnxruntime==1." in readme
    without_litert = WITHOUT_PROJECT.replace("exporters=None", "exporters=None, ai_edge_litert=None")
    checked = subprocess.run([sys.executable, "-c", without_litert], cwd=folder, env=ISOLATED, capture_output=True,
                             text=True, timeout=120)
    assert checked.returncode == 0, (checked.stdout + checked.stderr)[-2000:]
    result = subprocess.run([sys.executable, "example.py", SENTENCE], cwd=folder, env=ISOLATED, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    if variant == "onnx":  # fp32: the ids and text of the fp32 .tflite (verified equal to TensorFlow's)
        _, ids, text = project_greedy(bundle_dir, "model.tflite", SENTENCE)
        assert (printed(result.stdout)["output ids"], printed(result.stdout)["output"]) == (str(ids), text)


@pytest.mark.parametrize("target, fence, call", [("ios", "```swift", "signatureRunner(with:")])
def test_a_mobile_package_holds_the_batch1_model_and_a_readme_with_its_real_tensors(packaged, tmp_path, target,
                                                                                     fence, call):
    from ai_edge_litert.interpreter import Interpreter

    _, zips = packaged
    folder = unzipped(zips[target], tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["package"]["model"] == "model.b1.float16.tflite" and manifest["package"]["batch_1"]
    assert set(manifest["files"]) == files_under(folder) - {"manifest.json"}
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert fence in readme and call in readme and "It was never compiled or run" in readme
    interpreter = Interpreter(model_path=str(folder / "model.b1.float16.tflite"))
    for signature in ("encode", "decode_step"):
        runner = interpreter.get_signature_runner(signature)
        for details in (runner.get_input_details(), runner.get_output_details()):
            for name, tensor in details.items():  # as the graph itself has them: static batch-1 shapes
                shape = "[" + ", ".join(str(int(n)) for n in tensor["shape_signature"]) + "]"
                assert f"| `{signature}` | " in readme and f"| `{name}` | `{shape}` |" in readme, (name, shape)
    golden = json.loads((folder / "golden" / "golden.json").read_text(encoding="utf-8"))
    first = golden["sentences"][0]
    assert ", ".join(map(str, first["source_ids"])) in readme
    assert ", ".join(map(str, first["greedy_ids_by_file"]["model.b1.float16.tflite"])) in readme
    assert f"MAX_SOURCE_LEN = {manifest['max_source_len']}" in readme and "@" + "MODEL@" not in readme


def test_the_ios_package_holds_the_data_files_and_fixtures_of_the_kotlin_library_with_their_sha256(packaged,
                                                                                                    tmp_path):
    from exporters.ios import library_sources
    from studio.text.retrieval import RetrievalIndex
    from studio.text.tokenizers import SentencePieceTokenizer

    _, zips = packaged
    folder = unzipped(zips["ios"], tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["files"]) == files_under(folder) - {"manifest.json"}
    for name, entry in manifest["files"].items():
        data = (folder / name).read_bytes()
        assert entry == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}, name
    assert {"model.b1.float16.tflite", "config.json", "tokenizer/shared.spm.model", "golden/golden.json",
            "golden/step0_logits.f32", "golden/normalization.json", "golden/app.json", "text/unicode14.txt",
            "fixtures/tokenizer-cases.json", "fixtures/normalization-cases.json", "fixtures/nfc-cases.json",
            "LICENSE.md", "THIRD_PARTY_NOTICES.md"} <= set(manifest["files"])
    library = library_sources()
    for name in ("text/unicode14.txt", "fixtures/normalization-cases.json", "fixtures/nfc-cases.json"):
        assert (folder / name).read_bytes() == library[name].read_bytes(), name  # the Kotlin library's own
    cases = json.loads((folder / "fixtures" / "tokenizer-cases.json").read_text(encoding="utf-8"))
    assert cases["texts"] == json.loads(library[""].read_text(encoding="utf-8"))["texts"]
    assert list(cases["models"]) == ["shared"] and cases["models"]["shared"]["model"] == "tokenizer/shared.spm.model"
    tokenizer = SentencePieceTokenizer((folder / "tokenizer" / "shared.spm.model").read_bytes())
    answers = cases["models"]["shared"]
    assert answers["ids"] == [tokenizer.encode(text) for text in cases["texts"]]  # this package's tokenizer's
    assert [back if back is not None else text for text, back in zip(cases["texts"], answers["decoded"])] == [
        tokenizer.decode(ids) for ids in answers["ids"]]
    assert len(answers["decode_cases"]) == 200 and all(case["decoded"] == tokenizer.decode(case["ids"])
                                                       for case in answers["decode_cases"])
    assert any(tokenizer.unk_id in case["ids"] or tokenizer.eos_id in case["ids"] for case in answers["decode_cases"])
    replies = json.loads((folder / "fixtures" / "replies-cases.json").read_text(encoding="utf-8"))
    index = RetrievalIndex.from_portable((folder / "replies.json").read_bytes(), (folder / "replies.bin").read_bytes())
    assert replies["sha256"]["replies.bin"] == manifest["files"]["replies.bin"]["sha256"]
    assert len(replies["cases"]) == 600 and any(case["row"] is None for case in replies["cases"])
    for case in replies["cases"][::7]:  # Python's answers on this package's own index
        row, match = index.query(case["text"], 1)[0]
        assert (case["row"], case["match"]) == ((row, match) if match > 0 else (None, 0.0)), case["text"]
    assert "| 5. stored replies (before step 4) |" in (folder / "README.md").read_text(encoding="utf-8")


def test_the_ios_packages_app_outputs_are_the_apps_pipeline_on_its_own_batch1_graph(packaged, tmp_path):
    from exporters.app_golden import app_golden
    from studio.packaged import PackagedModel

    _, zips = packaged
    folder = unzipped(zips["ios"], tmp_path / "package")
    shipped = json.loads((folder / "golden" / "app.json").read_text(encoding="utf-8"))
    payload = {name: folder / name for name in files_under(folder)}
    again = app_golden(payload, "chatbot", tmp_path / "nothing-kept.json", progress=quiet)
    assert json.loads(again) == shipped  # computed anew on the unzipped files: outputs and identity alike
    assert shipped["task"] == "chatbot" and len(shipped["cases"]) >= 100
    model = PackagedModel(folder)  # one message is one row: the app's own runtime gives the same replies
    assert [model(case["text"]) for case in shipped["cases"][:10]] == [case["output"] for case in shipped["cases"][:10]]


def test_a_batch1_graph_decoded_one_row_at_a_time_gives_the_beam_ids_of_its_dynamic_twin(packaged):
    from studio.bundle import load_bundle
    from studio.generate import Beam, DecodeSpec, TokenByToken, decode
    from studio.runtimes.one_row import OneRowAtATime
    from studio.runtimes.tflite_runtime import TFLiteRuntime

    bundle_dir, _ = packaged  # its export holds model.b1.float16.tflite and model.float16.tflite
    config = load_bundle(bundle_dir).config.model
    golden = json.loads((bundle_dir / "exports" / "golden" / "golden.json").read_text(encoding="utf-8"))
    runtime = OneRowAtATime(TFLiteRuntime(bundle_dir / "exports" / "model.b1.float16.tflite", config, threads=1,
                                          pool_size=1))
    spec, sources = DecodeSpec.for_model(config), [s["source_ids"] for s in golden["sentences"]]
    beams = [decode(runtime, [ids], spec, Beam(4, 1.0))[0] for ids in sources]
    assert beams == [s["beam_ids_by_file"]["model.float16.tflite"] for s in golden["sentences"]]
    assert [decode(runtime, [ids], spec, TokenByToken())[0] for ids in sources] == [
        s["greedy_ids_by_file"]["model.b1.float16.tflite"] for s in golden["sentences"]]
    assert decode(runtime, sources[:6], spec, Beam(4, 1.0)) == beams[:6]  # several sources at once: the same


def test_the_ios_readme_pins_its_runtimes_and_says_that_nothing_in_swift_was_compiled(packaged, tmp_path):
    _, zips = packaged
    folder = unzipped(zips["ios"], tmp_path)
    readme = (folder / "README.md").read_text(encoding="utf-8")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert "**Nothing in Swift was compiled or run for this package**" in readme
    assert "pod 'TensorFlowLiteSwift', '~> 2.17.0'" in readme and "read-only on 2 December 2026" in readme
    assert ('.package(url: "https://github.com/microsoft/onnxruntime-swift-package-manager", exact: "1.24.2")'
            in readme)
    assert "--target ios --variant onnx" in readme
    assert manifest["package"]["min_runtime_version"] and manifest["package"]["custom_ops"] == []
    assert f"`min_runtime_version` is {manifest['package']['min_runtime_version']}" in readme
    for step in ("1. tokenizer", "2. normalization", "3. decode loop", "4. the app's pipeline"):
        assert f"| {step} |" in readme
    notices = (folder / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    assert "| TensorFlowLiteSwift | 2.17.0 | Apache-2.0 | install it |" in notices
    assert "| Unicode Character Database 14.0 | 14.0.0 | Unicode-3.0 | in this package |" in notices
    assert "UNICODE LICENSE V3" in notices and "nothing in Swift was compiled or run" in notices


def test_an_ios_package_of_the_onnx_graphs_has_the_android_packages_app_outputs(packaged, tmp_path):
    from exporters.package import package_export

    bundle_dir, zips = packaged
    zip_path = package_export(bundle_dir, "ios", tmp_path / "ios-onnx.zip", variant="onnx", progress=quiet)
    folder = unzipped(zip_path, tmp_path / "ios")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["package"]["model"], manifest["package"]["decode_step"]) == ("encode.onnx", "decode_step.onnx")
    assert not any(name.endswith(".tflite") for name in files_under(folder))
    assert {"fixtures/tokenizer-cases.json", "text/unicode14.txt"} <= set(manifest["files"])
    android = unzipped(zips["android"], tmp_path / "android")
    assert (folder / "golden" / "app.json").read_bytes() == (android / "golden" / "app.json").read_bytes()
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert readme.index("Route (b): ONNX Runtime") < readme.index("Route (a): LiteRT") and "```swift\n//" not in readme


def test_the_android_package_is_the_library_its_model_and_the_apps_outputs(packaged, tmp_path):
    from exporters.android import library_folder

    _, zips = packaged
    folder = unzipped(zips["android"], tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["package"]["model"], manifest["package"]["decode_step"]) == ("encode.onnx", "decode_step.onnx")
    assert set(manifest["files"]) == files_under(folder) - {"manifest.json"}
    sources = {p.relative_to(library_folder()).as_posix() for p in (library_folder() / "src" / "main").rglob("*.kt")}
    assert sources and {f"library/{name}" for name in sources} <= set(manifest["files"])
    assert not any(name.startswith(("library/src/test", "library/target")) for name in manifest["files"])
    assert {"library/pom.xml", "library/consumer-rules.pro", "run-jvm.sh", "golden/app.json", "LICENSE.md",
            "replies.json", "replies.bin"} <= set(manifest["files"])
    licence = (folder / "LICENSE.md").read_text(encoding="utf-8")
    assert "## The stored replies" in licence and "ChatbotData's (songys/Chatbot_data" in licence
    app = json.loads((folder / "golden" / "app.json").read_text(encoding="utf-8"))
    assert app["task"] == "chatbot" and len(app["cases"]) >= 100 and all(c["output"] for c in app["cases"][:20])
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "Chatbot.open(AssetModelFiles(context.assets, \"model\"))" in readme and "./run-jvm.sh reply" in readme
    step = next(line for line in readme.splitlines() if line.startswith("2. Copy this folder's model"))
    assert all(f"`{name}`" in step for name in ("manifest.json", "config.json", "tokenizer/", "encode.onnx",
                                                  "decode_step.onnx", "replies.json", "replies.bin")), step
    assert 'projectDir = file("library")' in readme and "--bundle BUNDLE --backend onnx" in readme
    assert "never run" in readme and "not built here" in readme  # what was not verified says so
    notices = (folder / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    assert ("| Unicode Character Database 14.0 | 14.0.0 | Unicode-3.0 | in this package | "
            "library/src/main/resources/transformerstudio/text/unicode14.txt:" in notices)
    assert "| ChatbotData (songys/Chatbot_data) | 1.0 | MIT | in this package | `replies.json`:" in notices
    assert "The MIT License (MIT)\n\nCopyright (c) 2018" in notices  # its own words, not the package's
    assert "## Stored replies" in readme and "chatbot.replyWithSource(text)" in readme
    assert (folder / "library/src/main/resources/transformerstudio/text/unicode14.txt").is_file()
    with zipfile.ZipFile(zips["android"]) as archive:
        assert (archive.getinfo("chat/run-jvm.sh").external_attr >> 16) & 0o777 == 0o755


@pytest.fixture
def web_packages():
    if NODE is None:
        pytest.skip("needs Node.js 20+ and npm (the web/ package)")
    from exporters.web import ensure_web_packages

    try:
        ensure_web_packages(progress=quiet)
    except StudioError as error:
        pytest.skip(f"the web package's dependencies are unavailable: {error}")


def test_the_web_package_is_the_site_and_its_node_example_decodes_as_python(packaged, web_packages, tmp_path):
    from exporters.package import package_export

    bundle_dir, _ = packaged
    zip_path = package_export(bundle_dir, "web", tmp_path / "web.zip", progress=quiet)
    folder = unzipped(zip_path, tmp_path)
    site = json.loads((folder / "site.json").read_text(encoding="utf-8"))
    model = site["models"][0]["dir"] + site["models"][0]["tflite"]
    assert model == "chatbot/model.b1.float16.tflite"
    assert {"index.html", "app.js", "example.mjs", model, "chatbot/tokenizer/shared.spm.model",
            "src/retrieval.js", "chatbot/replies.json", "chatbot/replies.bin"} <= files_under(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert set(manifest["files"]) == files_under(folder) - {"manifest.json"}
    assert manifest["package"]["model"] == model
    assert site["models"][0]["replies"] == {"index": "replies.json", "arrays": "replies.bin"}
    assert (manifest["replies"]["index"], manifest["replies"]["arrays"]) == ("chatbot/replies.json",
                                                                             "chatbot/replies.bin")
    assert "python -m http.server" in (folder / "README.md").read_text(encoding="utf-8")

    result = subprocess.run([NODE, "example.mjs", SENTENCE], cwd=folder, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    source_ids, ids, text = project_greedy(bundle_dir, "model.b1.float16.tflite", SENTENCE)
    lines = printed(result.stdout)
    assert (json.loads(lines["source ids"]), json.loads(lines["output ids"]), lines["output"]) == (source_ids, ids, text)


def test_studio_export_zip_writes_the_package_and_names_a_bad_target(exported_copy, tmp_path):
    from typer.testing import CliRunner

    from studio.cli import app

    runner = CliRunner()
    bad = runner.invoke(app, ["export", str(exported_copy), "--zip", str(tmp_path / "x.zip"), "--target", "desktop"])
    assert bad.exit_code != 0 and isinstance(bad.exception, StudioError)
    assert "--target desktop" in str(bad.exception) and "android, ios, python, web" in str(bad.exception)
    alone = runner.invoke(app, ["export", str(exported_copy), "--target", "ios"])
    assert alone.exit_code != 0 and "--zip" in str(alone.exception)
    assert not (tmp_path / "x.zip").exists()

    out = tmp_path / "dist" / "chat-python.zip"
    result = runner.invoke(app, ["export", str(exported_copy), "--quantize", "none", "--onnx-quantize", "none",
                                 "--no-verify", "--zip", str(out), "--target", "python"])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output and f"{out.stat().st_size:,} bytes" in result.output
    with zipfile.ZipFile(out) as archive:
        assert {"chat/model.tflite", "chat/example.py", "chat/manifest.json"} <= set(archive.namelist())
    exported_at = (exported_copy / "exports" / "manifest.json").stat().st_mtime_ns
    again = runner.invoke(app, ["export", str(exported_copy), "--quantize", "none", "--onnx-quantize", "none",
                                "--zip", str(tmp_path / "again.zip"), "--target", "python"])
    assert again.exit_code == 0, again.output
    assert "is current" in again.output and (exported_copy / "exports" / "manifest.json").stat().st_mtime_ns == exported_at


def test_a_variant_a_target_cannot_ship_is_refused_with_the_choices(packaged, tmp_path):
    from exporters.package import package_export

    bundle_dir, _ = packaged
    refused = r"--variant tflite: the android package ships one of onnx, onnx-int8, tflite-b1, "
    with pytest.raises(StudioError, match=refused):
        package_export(bundle_dir, "android", tmp_path / "a.zip", variant="tflite", progress=quiet)
    with pytest.raises(StudioError, match=r"--variant tflite-float16: the ios package ships one of onnx, onnx-int8, "):
        package_export(bundle_dir, "ios", tmp_path / "i.zip", variant="tflite-float16", progress=quiet)
    with pytest.raises(StudioError, match="is a folder"):
        package_export(bundle_dir, "python", tmp_path, progress=quiet)
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def read_only_disk(tmp_path):
    yield from tmpfs(tmp_path / "ro", "size=1m,ro")


@pytest.fixture
def small_disk(tmp_path):
    """100 KB: less than the tiny python package (about 300 KB)."""
    yield from tmpfs(tmp_path / "full", "size=100k")


def test_a_read_only_destination_gives_a_clear_error_and_no_file(packaged, read_only_disk):
    from exporters.package import package_export

    bundle_dir, _ = packaged
    with pytest.raises(StudioError, match=r"cannot write the package here \(Read-only file system\)"):
        package_export(bundle_dir, "python", read_only_disk / "chat.zip", progress=quiet)
    assert list(read_only_disk.iterdir()) == []


def test_a_full_disk_gives_a_clear_error_and_leaves_no_partial_zip(packaged, small_disk):
    from exporters.package import package_export

    bundle_dir, _ = packaged
    with pytest.raises(StudioError, match=r"writing the package failed \(No space left on device\); no incomplete"):
        package_export(bundle_dir, "python", small_disk / "chat.zip", progress=quiet)
    assert list(small_disk.iterdir()) == []
