import json

import pytest
from helpers import NO_XLA
from typer.testing import CliRunner

from studio.cli import app

runner = CliRunner()


def test_help_lists_the_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("chat", "translate", "train", "data"):
        assert command in result.output


def test_chat_reads_one_message_per_line_and_prints_one_reply_per_line(tiny_bundle):
    messages = "나는 커피를 좋아해?\n\n너는 영화를 봤어?\n"
    result = runner.invoke(app, ["chat", "--bundle", str(tiny_bundle), "--backend", "tf"], input=messages)
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("\n")
    assert len(lines) == 4 and lines[1] == "" and lines[3] == ""  # 3 replies (the empty line stays empty)


def test_lines_piped_in_the_legacy_korean_encoding_are_read_as_korean_and_bad_bytes_are_named(tiny_bundle):
    messages = ["나는 커피를 좋아해?", "너는 영화를 봤어?"]
    as_utf8 = runner.invoke(app, ["chat", "--bundle", str(tiny_bundle), "--backend", "tf", "--reply", "generate"],
                            input="\n".join(messages) + "\n")
    piped = b"\n".join(m.encode("cp949") for m in messages) + b"\n\xed\xa0\x80 hello\n"
    result = runner.invoke(app, ["chat", "--bundle", str(tiny_bundle), "--backend", "tf", "--reply", "generate"],
                           input=piped)
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\n")[:2] == as_utf8.stdout.split("\n")[:2]  # the same replies as to UTF-8
    assert len(result.stdout.split("\n")) == 4  # and one for the line neither encoding reads
    assert result.stderr.count("read as CP949 (EUC-KR)") == 1  # noted once, at line 1
    assert "stdin line 1: read as CP949" in result.stderr
    assert "stdin line 3: not valid UTF-8 (byte 0xed), nor Korean in CP949/EUC-KR" in result.stderr


def test_chat_answers_with_stored_replies_by_default_and_the_models_when_asked(tiny_bundle):
    from studio.bundle import load_bundle
    from studio.replies import find_reply

    messages = ["나는 커피를 좋아해?", "너는 영화를 봤어?"]
    stored = runner.invoke(app, ["chat", "--bundle", str(tiny_bundle)], input="\n".join(messages) + "\n")
    assert stored.exit_code == 0, stored.output
    index = load_bundle(tiny_bundle).replies
    assert stored.stdout.splitlines() == [find_reply(index, message).text for message in messages]
    written = runner.invoke(app, ["chat", "--bundle", str(tiny_bundle), "--backend", "tf", "--reply", "generate"],
                            input="\n".join(messages) + "\n")
    assert written.exit_code == 0 and len(written.stdout.splitlines()) == 2
    unknown = runner.invoke(app, ["chat", "--bundle", str(tiny_bundle), "--reply", "ranked"], input="안녕\n")
    assert unknown.exit_code != 0 and "Unknown reply mode 'ranked': choose retrieve" in str(unknown.exception)


@pytest.mark.usefixtures("eager_train_steps")
def test_train_cli_runs_end_to_end_and_resumes(tmp_path, chat_csv):
    out = tmp_path / "run"
    args = ["train", "chatbot", "--data", str(chat_csv), "--out", str(out), "--set", "model.d_model=32",
            "--set", "model.num_heads=4", "--set", "model.d_ff=64", "--set", "model.num_layers=1",
            "--set", "tokenizer.vocab_size=300", "--set", "train.batch_size=8", *NO_XLA, "--epochs", "1"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (out / "weights.npz").is_file() and (out / "metrics.json").is_file()
    again = runner.invoke(app, args)
    assert again.exit_code != 0 and "--resume" in str(again.exception or again.output)
    resumed = runner.invoke(app, args[:-1] + ["2", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    changed = runner.invoke(app, args + ["--resume", "--set", "model.d_model=64"])
    assert changed.exit_code != 0 and "cannot change model.d_model" in str(changed.exception)


def test_data_command_explains_where_to_get_missing_data(tmp_path):
    result = runner.invoke(app, ["data", "--data-dir", str(tmp_path)])
    assert result.exit_code == 0
    assert "not found" in result.output and "studio data --download" in result.output


@pytest.mark.usefixtures("eager_train_steps")
def test_translator_trains_on_a_tiny_parallel_corpus(tmp_path, koen_tsv):
    out = tmp_path / "tr"
    result = runner.invoke(app, ["train", "translator", "--data", str(koen_tsv), "--out", str(out),
                                 "--set", "model.d_model=32", "--set", "model.num_heads=4", "--set", "model.d_ff=64",
                                 "--set", "tokenizer.vocab_size=300", "--set", "train.batch_size=8", "--epochs", "1",
                                 "--set", "model.max_source_len=24", "--set", "model.max_target_len=24",
                                 "--set", "train.batch_tokens=0", "--set", "model.num_layers=1", *NO_XLA])
    assert result.exit_code == 0, result.output
    translated = runner.invoke(app, ["translate", "나는 커피를 좋아해?", "--bundle", str(out), "--backend", "tf"])
    assert translated.exit_code == 0, translated.output
    scored = runner.invoke(app, ["eval", "translator", "--backend", "tf", "--bundle", str(out), "--test", str(koen_tsv),
                                 "--limit", "6", "--beam", "2"])  # a translator is scored as files are translated
    assert scored.exit_code == 0, scored.output
    assert "beam 2" in scored.output and "nrefs:1|case:mixed" in scored.output
    from studio.bundle import load_bundle

    bundle = load_bundle(out)  # the translator preset reads and writes text as written (cased, symbols kept)
    assert bundle.config.task.text_pipeline == "translator" and not bundle.config.task.lowercase_target
    assert bundle.tokenizers.target.decode(bundle.tokenizers.target.encode("I Like (Coffee)?")) == "I Like (Coffee)?"


def test_chat_on_a_missing_export_reports_or_builds_it(exported_copy):
    """The int8 ONNX graphs are missing: built again by quantizing the current fp32 ones (an fp32 graph
    converted again on demand: test_faults.py::test_a_damaged_export_is_rebuilt_on_demand_and_then_agrees_with_tf)."""
    bundle = exported_copy
    for name in ("encode.int8.onnx", "decode_step.int8.onnx"):
        (bundle / "exports" / name).unlink()
    refused = runner.invoke(app, ["chat", "--bundle", str(bundle), "--backend", "onnx-int8", "--no-export-missing", "--reply", "generate"],
                            input="나는 커피를 좋아해?\n")
    assert refused.exit_code != 0 and f"studio export {bundle}" in str(refused.exception)
    built = runner.invoke(app, ["chat", "--bundle", str(bundle), "--backend", "onnx-int8", "--beam", "3", "--reply", "generate"],
                          input="나는 커피를 좋아해?\n너는 영화를 봤어?\n")
    assert built.exit_code == 0, built.output
    assert built.stdout.count("\n") == 2  # one reply line per message (a tiny model may reply empty)
    assert (bundle / "exports" / "decode_step.int8.onnx").is_file()
    manifest = json.loads((bundle / "exports" / "manifest.json").read_text())
    assert manifest["golden"] == "golden/golden.json"  # made from the same weights' model.tflite: still current
    tflite = runner.invoke(app, ["chat", "--bundle", str(bundle), "--backend", "tflite-int8", "--sample", "--seed", "1", "--reply", "generate"],
                           input="나는 커피를 좋아해?\n")
    assert tflite.exit_code == 0, tflite.output


def test_export_command_writes_and_verifies_every_served_variant(exported, exported_output):
    from studio.variants import EXPORTED_BACKENDS, VARIANTS

    bundle, manifest = exported  # exported by `studio export BUNDLE` (tests/conftest.py)
    files = {f for name in EXPORTED_BACKENDS for f in VARIANTS[name].files}
    assert sorted(p.name for p in (bundle / "exports").iterdir()) == sorted(files | {"golden", "manifest.json"})
    assert "Exported graphs" in exported_output and "100% of" in exported_output  # greedy match reported
    assert set(manifest["verification"]) == set(EXPORTED_BACKENDS)


def test_bench_command_writes_rows_and_a_plot(exported_copy, tmp_path):
    rows_path, plot_path = tmp_path / "bench.json", tmp_path / "bench.png"
    bench = runner.invoke(app, ["bench", "--bundle", str(exported_copy), "--backends", "tf-naive,tf,ctranslate2",
                                "--lengths", "4", "--repeats", "1", "--threads", "1", "--json", str(rows_path),
                                "--plot", str(plot_path)])
    assert bench.exit_code == 0, bench.output
    assert {r["runtime"] for r in json.loads(rows_path.read_text())} == {"tf-naive", "tf", "ctranslate2"}
    assert plot_path.read_bytes()[:4] == b"\x89PNG"


def test_eval_prints_sacrebleu_scores_for_greedy_and_beam(tiny_bundle, koen_tsv, tmp_path):
    result = runner.invoke(app, ["eval", "chatbot", "--backend", "tf",
                                 "--bundle", str(tiny_bundle), "--test", str(koen_tsv),
                                 "--beam", "2", "--limit", "10", "--hypotheses", str(tmp_path / "hyp")])
    assert result.exit_code == 0, result.output
    assert "greedy" in result.output and "beam 2" in result.output
    assert "nrefs:1|case:mixed" in result.output  # sacrebleu's standard (cased) signature
    assert "BLEU (lc)" in result.output and "chrF (lc)" in result.output
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["hyp.pairs.beam2.txt", "hyp.pairs.greedy.txt"]
    assert len((tmp_path / "hyp.pairs.greedy.txt").read_text(encoding="utf-8").splitlines()) == 10


def test_eval_of_a_chatbot_on_its_held_out_split_prints_the_retrieval_baseline_beside_it(tiny_bundle, chat_csv):
    """The bar a generative chatbot must clear (issue 41): the nearest training question's answer, scored alike."""
    result = runner.invoke(app, ["eval", "chatbot", "--backend", "tf", "--bundle", str(tiny_bundle),
                                 "--data-dir", str(chat_csv.parent), "--beam", "1"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if "chatbot_dev" in line]
    assert len(rows) == 2 and "greedy" in rows[0] and "retrieval baseline" in rows[1]


def test_eval_can_record_scores_in_the_bundle(tiny_bundle, koen_tsv, tmp_path):
    import json
    import shutil

    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_bundle, bundle, ignore=shutil.ignore_patterns("checkpoints", "exports"))
    result = runner.invoke(app, ["eval", "chatbot", "--backend", "tf",
                                 "--bundle", str(bundle), "--test", str(koen_tsv), "--beam", "1",
                                 "--limit", "5", "--record"])
    assert result.exit_code == 0, result.output
    recorded = json.loads((bundle / "metrics.json").read_text())["evaluation"]["pairs"]["greedy"]
    assert recorded["pairs"] == 5 and "case:mixed" in recorded["bleu_signature"]
    assert {"bleu", "chrf", "bleu_lc", "chrf_lc"} <= set(recorded)
    card = (bundle / "MODEL_CARD.md").read_text()
    assert "pairs (5 pairs), greedy: BLEU" in card and "(lower-cased: BLEU" in card
    assert 0 <= recorded["repeating_references"] <= 1
    metrics = json.loads((bundle / "metrics.json").read_text())
    from studio.tasks import CHATBOT

    # the card's samples: the task's inputs decoded as `studio chat` decodes them by default
    assert list(metrics["samples"]) == list(CHATBOT.card_inputs) and metrics["samples_decoding"] == "greedy, tf"
    assert "## Sample outputs (greedy, tf)" in card and f"- {CHATBOT.card_inputs[0]} → " in card
    from studio.bundle import load_bundle

    load_bundle(bundle)  # still loads: metrics and the card are not checksummed inputs


def test_eval_names_an_unknown_evaluation_set(tiny_bundle):
    result = runner.invoke(app, ["eval", "translator", "--backend", "tf",
                                 "--bundle", str(tiny_bundle), "--sets", "park_dev,nope"])
    assert result.exit_code != 0 and "unknown evaluation set(s) nope" in str(result.exception)
    result = runner.invoke(app, ["eval", "chatbot", "--backend", "tf",
                                 "--bundle", str(tiny_bundle), "--sets", "park_dev"])
    assert result.exit_code != 0 and "its set is chatbot_dev" in str(result.exception)


def test_bench_times_beam_search_against_greedy_end_to_end(exported_copy, tmp_path):
    rows_path = tmp_path / "bench.json"
    bench = runner.invoke(app, ["bench", "--bundle", str(exported_copy), "--backends", "tf,tflite", "--lengths", "2",
                                "--repeats", "1", "--threads", "1", "--beam", "2", "--text", "나는 커피를 좋아해",
                                "--json", str(rows_path)])
    assert bench.exit_code == 0, bench.output
    assert "Beam 2 (length penalty" in " ".join(bench.output.split())
    rows = json.loads(rows_path.read_text())
    beam_rows = [r for r in rows if "beam_vs_greedy" in r]
    assert all(r["source_tokens"] == rows[0]["source_tokens"] and len(r["source_tokens"]) == 1
               for r in rows if "source_tokens" in r)
    assert {r["runtime"] for r in beam_rows} == {"tf", "tflite"}
    for row in beam_rows:
        assert row["greedy_ms_mean"] > 0 and row["beam_ms_mean"] > 0 and row["beam_size"] == 2
        assert row["beam_vs_greedy"] == row["beam_ms_mean"] / row["greedy_ms_mean"]


def test_raw_translation_is_the_bare_model_line_by_line_and_refuses_what_it_cannot_do(tiny_bundle, tmp_path):
    from studio.inference import TextGenerator

    lines = "나는 커피를 좋아해?\n\n너는  영화를 봤어 ?\n"
    raw = runner.invoke(app, ["translate", "--raw", "--bundle", str(tiny_bundle), "--backend", "tf", "--beam", "1"],
                        input=lines)
    assert raw.exit_code == 0, raw.output
    outputs = raw.stdout.splitlines()[-3:]
    assert len(outputs) == 3 and outputs[1] == ""  # one line per line, an empty line stays empty
    generator = TextGenerator.from_path(tiny_bundle, "tf-naive")  # the tutorials' loop: another runtime
    bare = generator.generate_raw(["나는 커피를 좋아해?", "너는  영화를 봤어 ?"])
    assert [outputs[0], outputs[2]] == [b.text for b in bare]
    glossary = tmp_path / "terms.tsv"
    glossary.write_text("커피\tcoffee\n", encoding="utf-8")
    document = tmp_path / "page.html"
    document.write_text("<p>안녕</p>", encoding="utf-8")
    for args, said in ((["--glossary", str(glossary)], "takes no --glossary"),
                       (["--scores"], "not with --scores or --alternatives"),
                       (["--file", str(document)], "--raw translates lines; with --file it takes a .txt")):
        refused = runner.invoke(app, ["translate", "--raw", "--bundle", str(tiny_bundle), *args], input="안녕\n")
        assert refused.exit_code != 0 and said in str(refused.exception), args
