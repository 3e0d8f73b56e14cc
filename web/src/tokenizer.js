// SentencePiece tokenizer over a bundle's .model file: the port of SentencePieceTokenizer in
// studio/text/tokenizers.py. The C++ SentencePiece library compiled to WASM (@sctg/sentencepiece-js) does
// the work, so ids are the ones Python's sentencepiece gives, byte-fallback pieces included.
// Works in Node and in the browser (the browser page maps the package's `fs`/`buffer` imports to a stub).

import { SentencePieceProcessor } from "@sctg/sentencepiece-js";

// the special ids of the tokenizers the studio trains; an imported model's are its own (Marian's vocabulary
// numbers them: </s> 0, <unk> 1, <pad> and the decoder start after the vocabulary), read from the model file
export const PAD_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;
export const UNK_ID = 3;

// a lone surrogate (JS strings may hold one) cannot become UTF-8 for the C++ side: Python's `_encodable`
// makes it U+FFFD; with the `u` flag \p{Cs} matches lone surrogates only, never a valid pair
const LONE_SURROGATE = /\p{Cs}/gu;

export class Tokenizer {
  constructor(processor, pieces = [], specials = { pad: PAD_ID, bos: BOS_ID, eos: EOS_ID, unk: UNK_ID }) {
    this.sp = processor; // a loaded SentencePieceProcessor
    this.pieces = pieces; // every piece, in id order (the WASM bindings have no IdToPiece)
    this.padId = specials.pad;
    this.bosId = specials.bos;
    this.eosId = specials.eos;
    this.unkId = specials.unk;
  }

  /** Text -> ids (no </s>; the caller appends it). */
  encode(text) {
    return this.sp.encodeIds(text.replace(LONE_SURROGATE, "\ufffd"));
  }

  /**
   * Generated ids -> text. As in Python: stop at the first </s>, skip <pad>/<s>, drop <unk> (it would
   * read " ⁇ "), and remove U+FFFD (byte pieces that do not form valid UTF-8).
   */
  decode(ids) {
    const kept = [];
    for (const id of ids) {
      if (id === this.eosId) break;
      if (id !== this.padId && id !== this.bosId && id !== this.unkId) kept.push(Number(id));
    }
    if (kept.length === 0) return "";
    return this.sp.decodeIds(kept).replaceAll("\ufffd", "");
  }

  /** The id of a piece (e.g. "▁the"), or the <unk> id when the vocabulary lacks it. */
  pieceToId(piece) {
    const owner = new this.sp.sentencepiece.StringView(piece); // the C++ API takes an absl::string_view
    const view = owner.getView();
    try {
      return this.sp.processor.PieceToId(view);
    } finally {
      view.delete();
      owner.delete();
    }
  }
}

/**
 * A Tokenizer from the bytes of a SentencePiece .model file (ArrayBuffer or Uint8Array). Its special ids are the
 * model's, as sentencepiece's pad_id() ... unk_id() and studio/text/tokenizers.py read them: the piece the trainer
 * spec names (by default <pad>, <s>, </s>, <unk>), when it is a control piece (<unk>: the unknown piece). A model
 * without one of the four, or with two of them at one id, is refused, as in Python.
 */
export async function loadTokenizer(bytes) {
  const model = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const processor = new SentencePieceProcessor();
  // the package's public loaders take a file path (Node) or base64; `_loadModel` takes the bytes themselves
  await processor._loadModel(model);
  const spec = modelSpec(model);
  const pieces = spec.pieces.map((piece) => piece.text);
  const unloaded = new Tokenizer(processor, pieces);
  const special = (name, type) => {
    const id = unloaded.pieceToId(spec.names[name]);
    return id >= 0 && spec.pieces[id]?.type === type ? id : -1;
  };
  const specials = { pad: special("pad", CONTROL), bos: special("bos", CONTROL), eos: special("eos", CONTROL),
    unk: special("unk", UNKNOWN) };
  const ids = [specials.pad, specials.bos, specials.eos, specials.unk];
  if (Math.min(...ids) < 0 || new Set(ids).size !== 4) {
    throw new Error(`SentencePiece model has special ids (pad, bos, eos, unk) (${ids.join(", ")}): each must be `
      + "defined and distinct");
  }
  return new Tokenizer(processor, pieces, specials);
}

// protobuf wire types: how to step over a field this reader does not need
function readVarint(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at.i++];
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value;
    shift += 7;
  }
}

function fields(bytes, start, end, each, eachVarint = () => {}) {
  const at = { i: start };
  while (at.i < end) {
    const key = readVarint(bytes, at);
    const type = key & 7;
    const field = Math.floor(key / 8);
    if (type === 0) eachVarint(field, readVarint(bytes, at));
    else if (type === 1) at.i += 8;
    else if (type === 5) at.i += 4;
    else if (type === 2) {
      const length = readVarint(bytes, at);
      each(field, at.i, at.i + length);
      at.i += length;
    } else throw new Error(`not a SentencePiece model (protobuf wire type ${type})`);
  }
}

// sentencepiece_model.proto: SentencePiece.Type (NORMAL when a piece does not say)
const NORMAL = 1;
const UNKNOWN = 2;
const CONTROL = 3;
// TrainerSpec's fields naming the special pieces, and their defaults
const SPECIAL_NAMES = { 45: ["unk", "<unk>"], 46: ["bos", "<s>"], 47: ["eos", "</s>"], 48: ["pad", "<pad>"] };

/**
 * What this port reads of a SentencePiece ModelProto: its pieces (field 1, each a SentencePiece: its text, field 1,
 * and type, field 3) in id order, and the names of its special pieces (trainer_spec, field 2: unk_piece 45,
 * bos_piece 46, eos_piece 47, pad_piece 48; empty or absent: the default).
 */
export function modelSpec(bytes) {
  const decoder = new TextDecoder();
  const pieces = [];
  const names = Object.fromEntries(Object.values(SPECIAL_NAMES));
  fields(bytes, 0, bytes.length, (field, start, end) => {
    if (field === 1) {
      const piece = { text: "", type: NORMAL };
      fields(bytes, start, end, (inner, s, e) => {
        if (inner === 1) piece.text = decoder.decode(bytes.subarray(s, e));
      }, (inner, value) => {
        if (inner === 3) piece.type = value;
      });
      pieces.push(piece);
    } else if (field === 2) {
      fields(bytes, start, end, (inner, s, e) => {
        const special = SPECIAL_NAMES[inner];
        if (special && e > s) names[special[0]] = decoder.decode(bytes.subarray(s, e));
      });
    }
  });
  return { pieces, names };
}
