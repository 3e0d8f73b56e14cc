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
  constructor(processor) {
    this.sp = processor; // a loaded SentencePieceProcessor
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
  const tokenizer = new Tokenizer(processor);
  const specials = ["<pad>", "<s>", "</s>", "<unk>"].map((piece) => tokenizer.pieceToId(piece));
  if (specials.join() !== [PAD_ID, BOS_ID, EOS_ID, UNK_ID].join()) {
    throw new Error(`SentencePiece model has special ids ${specials}, expected 0,1,2,3`);
  }
  return tokenizer;
}
