"""What the ios package carries besides the model, config, tokenizer and golden data: the data files and fixtures a
Swift port needs, the same the Android library reads and is tested with (mobile/android), so that a port can be
held to the same answers.

    text/unicode14.txt            Unicode 14.0 as data, the file the Kotlin library reads (UnicodeTable.kt), as
                                  mobile/scripts/unicode14-tables.py writes it from Python 3.11's unicodedata
    fixtures/normalization-cases.json, fixtures/nfc-cases.json
                                  the Kotlin library's text fixtures, as they are (Python's answers on hostile
                                  strings; NFC of every code point it changes): not tied to any model
    fixtures/tokenizer-cases.json the Kotlin tokenizer fixture's lines (mobile/android/src/test/resources), answered
                                  by THIS package's tokenizer(s) through the app's wrapper: ids, the decoded text,
                                  and id sequences with specials and broken UTF-8 to decode

The decode fixtures (mobile/android/src/test/resources/decode/) are made on the shipped models' ONNX graphs and are
not carried: golden/golden.json and golden/app.json are this package's own."""

from __future__ import annotations

import json
import random
import re
import unicodedata
from importlib import metadata
from pathlib import Path

from exporters.android import library_folder
from exporters.licences import UNICODE_14, Component
from studio.errors import StudioError
from studio.text.tokenizers import SentencePieceTokenizer

UNICODE_TABLE = "text/unicode14.txt"
TOKENIZER_CASES = "fixtures/tokenizer-cases.json"
TEXT_FIXTURES = ("normalization-cases.json", "nfc-cases.json")  # copied as they are
TABLE_IN_LIBRARY = "src/main/resources/transformerstudio/text/unicode14.txt"
FIXTURES_IN_LIBRARY = "src/test/resources"
DECODE_CASES = 200  # id sequences to decode, per tokenizer

# The runtimes the README pins (looked up 2026-11-29; neither was built or run here). TensorFlowLiteSwift 2.17.0 is
# the last stable version on CocoaPods trunk (CocoaPods/Specs: Specs/d/9/6/TensorFlowLiteSwift/2.17.0, iOS 12.0,
# module TensorFlowLite; LiteRT's own pods publish nightlies only), and trunk turns read-only on 2 December 2026.
# onnxruntime-swift-package-manager: tag 1.24.2 (2026-02-25), the newest of its tags, wrapping ONNX Runtime 1.24.2
# (iOS 15, product `onnxruntime`, module OnnxRuntimeBindings); it runs opset 17, which the .onnx graphs use.
POD, POD_VERSION, POD_IOS = "TensorFlowLiteSwift", "2.17.0", "12.0"
ORT_PACKAGE = "https://github.com/microsoft/onnxruntime-swift-package-manager"
ORT_VERSION, ORT_IOS = "1.24.2", "15"
CLOSES = "2 December 2026"  # CocoaPods trunk read-only: published versions stay installable, no new ones


def library_sources() -> dict[str, Path]:
    """{path in the package, or "" for the tokenizer fixture's lines: the library's file} of what is taken from
    the Android library (mobile/android, or the installed `studio_mobile` package's copy)."""
    library = library_folder()
    return {UNICODE_TABLE: library / TABLE_IN_LIBRARY,
            **{f"fixtures/{name}": library / FIXTURES_IN_LIBRARY / name for name in TEXT_FIXTURES},
            "": library / FIXTURES_IN_LIBRARY / "tokenizer-cases.json"}


def port_files(tokenizers: dict[str, Path]) -> dict[str, Path | bytes]:
    """{path in the package: file or content} of the data and fixtures, for a package whose SentencePiece models
    are `tokenizers` ({path in the package: file})."""
    files: dict[str, Path | bytes] = library_sources()
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing:
        raise StudioError(f"the iOS package's data files are missing from this installation ({', '.join(missing)}); "
                          "reinstall it with `pip install --force-reinstall transformer-studio`")
    files[TOKENIZER_CASES] = tokenizer_cases(tokenizers, files.pop(""))
    return files


def ios_components(runtime: str) -> list[Component]:
    """What the package holds of others' (the Unicode data) and what a port installs beside it, pinned."""
    engine = (Component("onnxruntime-swift-package-manager", ORT_VERSION, "MIT", False,
                        "runs the .onnx graphs (Swift Package Manager; not run here)")
              if runtime == "ONNX Runtime" else
              Component(POD, POD_VERSION, "Apache-2.0", False, "runs the .tflite graph (CocoaPods; not run here)"))
    return [engine,
            Component("sentencepiece", metadata.version("sentencepiece"), "Apache-2.0", False,
                      "the tokenizer, if not ported: the C++ library (the fixtures were written with this version)"),
            Component(UNICODE_14, "14.0.0", "Unicode-3.0", True,
                      "text/unicode14.txt and fixtures/nfc-cases.json: Unicode 14.0's character data")]


def tokenizer_cases(tokenizers: dict[str, Path], lines_from: Path) -> bytes:
    """The tokenizer fixture (format transformer-studio-tokenizer-cases/1, as the Kotlin SentencePieceTest reads it)
    for `tokenizers`: each model's `model` is its path in the package."""
    texts = json.loads(lines_from.read_text(encoding="utf-8"))["texts"]
    models = {}
    for path_in_package, model_file in sorted(tokenizers.items()):
        tokenizer = SentencePieceTokenizer(model_file.read_bytes())
        encoded = [tokenizer.encode(text) for text in texts]
        decoded = [tokenizer.decode(ids) for ids in encoded]
        models[Path(path_in_package).name.removesuffix(".spm.model")] = {
            "model": path_in_package, "ids": encoded,
            "decoded": [None if text == back else back for text, back in zip(texts, decoded)],
            "decode_cases": [{"ids": ids, "decoded": tokenizer.decode(ids)}
                             for ids in decode_cases(tokenizer, texts, random.Random(path_in_package))]}
    cases = {"format": "transformer-studio-tokenizer-cases/1", "written_by": "exporters/ios.py",
             "sentencepiece": metadata.version("sentencepiece"), "unicode": unicodedata.unidata_version,
             "texts": texts, "models": models}
    return (_dumps(cases) + "\n").encode("utf-8")


def decode_cases(tokenizer, texts: list[str], rng: random.Random, count: int = DECODE_CASES) -> list[list[int]]:
    """Id sequences to decode: a line's ids with <pad>, <s>, </s> and <unk> put in; the byte pieces of a line's
    UTF-8 from a random byte on (cut or broken characters); random ids of any piece."""
    pieces = [tokenizer.id_to_piece(i) for i in range(tokenizer.vocab_size)]
    byte_ids = {piece: i for i, piece in enumerate(pieces) if re.fullmatch("<0x[0-9A-F]{2}>", piece)}
    specials = [tokenizer.pad_id, tokenizer.bos_id, tokenizer.eos_id, tokenizer.unk_id]
    found = []
    for n in range(count):
        if n % 3 == 0:
            ids = tokenizer.encode(rng.choice(texts)[:200])
            for _ in range(rng.randint(1, 3)):
                ids.insert(rng.randint(0, len(ids)), rng.choice(specials))
        elif n % 3 == 1:
            utf8 = rng.choice(texts)[:20].encode("utf-8", "replace")[rng.randint(0, 2):]
            ids = [byte_ids.get(f"<0x{b:02X}>", tokenizer.unk_id) for b in utf8][: rng.randint(0, len(utf8))]
        else:
            ids = [rng.randrange(len(pieces)) for _ in range(rng.randint(0, 12))]
        found.append(ids)
    return found


def _dumps(value) -> str:
    """JSON as UTF-8 text, one list item per line; lone surrogates (which UTF-8 cannot carry) as \\udxxx escapes
    (the lines hold no high surrogate followed by a low one, which a reader would join)."""
    if isinstance(value, dict):
        return "{" + ",\n".join(f"{json.dumps(k)}: {_dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and value and not isinstance(value[0], int):
        return "[\n" + ",\n".join(_dumps(item) for item in value) + "]"
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group(0)):04x}", text)


def tflite_facts(path: Path) -> dict:
    """What an iOS runtime needs of a .tflite: its `min_runtime_version` metadata and any custom (non-builtin) op."""
    from ai_edge_litert import schema_py_generated as schema

    model = schema.Model.GetRootAsModel(path.read_bytes(), 0)
    version = None
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        if entry.Name() == b"min_runtime_version":
            raw = model.Buffers(entry.Buffer()).DataAsNumpy()
            version = bytes(raw).split(b"\0")[0].decode("ascii")
    custom = sorted({model.OperatorCodes(i).CustomCode().decode() for i in range(model.OperatorCodesLength())
                     if model.OperatorCodes(i).CustomCode()})
    return {"min_runtime_version": version, "custom_ops": custom}
