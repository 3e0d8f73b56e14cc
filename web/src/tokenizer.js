// SentencePiece tokenizer over a bundle's .model file: the port of SentencePieceTokenizer in
// studio/text/tokenizers.py. The C++ SentencePiece library compiled to WASM (@sctg/sentencepiece-js) does
// the work, so ids are the ones Python's sentencepiece gives, byte-fallback pieces included.
// Works in Node and in the browser (the browser page maps the package's `fs`/`buffer` imports to a stub).

import { SentencePieceProcessor } from "@sctg/sentencepiece-js";

export const PAD_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;
export const UNK_ID = 3;

// a lone surrogate (JS strings may hold one) cannot become UTF-8 for the C++ side: Python's `_encodable`
// makes it U+FFFD; with the `u` flag \p{Cs} matches lone surrogates only, never a valid pair
const LONE_SURROGATE = /\p{Cs}/gu;

export class Tokenizer {
  constructor(processor, pieces = []) {
    this.sp = processor; // a loaded SentencePieceProcessor
    this.pieces = pieces; // every piece, in id order (the WASM bindings have no IdToPiece)
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
      if (id === EOS_ID) break;
      if (id !== PAD_ID && id !== BOS_ID && id !== UNK_ID) kept.push(Number(id));
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

/** A Tokenizer from the bytes of a SentencePiece .model file (ArrayBuffer or Uint8Array). */
export async function loadTokenizer(bytes) {
  const processor = new SentencePieceProcessor();
  // the package's public loaders take a file path (Node) or base64; `_loadModel` takes the bytes themselves
  await processor._loadModel(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  const tokenizer = new Tokenizer(processor, modelPieces(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)));
  const specials = ["<pad>", "<s>", "</s>", "<unk>"].map((piece) => tokenizer.pieceToId(piece));
  if (specials.join() !== [PAD_ID, BOS_ID, EOS_ID, UNK_ID].join()) {
    throw new Error(`SentencePiece model has special ids ${specials}, expected 0,1,2,3`);
  }
  return tokenizer;
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

function fields(bytes, start, end, each) {
  const at = { i: start };
  while (at.i < end) {
    const key = readVarint(bytes, at);
    const type = key & 7;
    const field = Math.floor(key / 8);
    if (type === 0) readVarint(bytes, at);
    else if (type === 1) at.i += 8;
    else if (type === 5) at.i += 4;
    else if (type === 2) {
      const length = readVarint(bytes, at);
      each(field, at.i, at.i + length);
      at.i += length;
    } else throw new Error(`not a SentencePiece model (protobuf wire type ${type})`);
  }
}

/** The pieces of a SentencePiece ModelProto (field 1, each a SentencePiece whose field 1 is its text), in id order. */
export function modelPieces(bytes) {
  const decoder = new TextDecoder();
  const pieces = [];
  fields(bytes, 0, bytes.length, (field, start, end) => {
    if (field !== 1) return;
    let text = "";
    fields(bytes, start, end, (inner, s, e) => {
      if (inner === 1) text = decoder.decode(bytes.subarray(s, e));
    });
    pieces.push(text);
  });
  return pieces;
}
