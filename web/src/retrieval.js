// A chatbot's stored replies (studio/replies.py): the answer of the training question most like a message, found
// with the TF-IDF index over the training questions (studio/text/retrieval.py) that a package carries in portable
// form — replies.json (the strings, and where each array lies) and replies.bin (idf, indptr, indices, data:
// little-endian float32/int32) — and scored as Python scores it, to the bit:
// - normalize: NFC, Python's str.lower() (its final sigma too), every character that is not a letter or a digit
//   (\p{L}, \p{N}) becomes a space, single spaces, trimmed; by Unicode 14.0 (src/unicode14.js) whatever the engine's;
// - terms: character 1- to 3-grams (code points) of " " + text + " " (those only of spaces dropped), counted;
// - weights: Math.fround(Math.fround(1 + ln count) × idf), divided by their L2 norm (in double), rounded to float32;
// - a row's score adds its terms' float32 products in float32, term ids ascending; the lowest row wins a tie, and a
//   best score of 0 means none is alike (the model writes the reply).

import { isCasedInUnicode14, isCaseIgnorableInUnicode14, isUnassignedInUnicode14 } from "./unicode14.js";

export const FORMAT = "transformer-studio-replies/1";
const CAPITAL_SIGMA = "\u03a3";
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Python's str.lower(): each code point's lower case, and a capital sigma after a cased letter and before none ς. */
export function pyLower(text) {
  if (!text.includes(CAPITAL_SIGMA)) return text.toLowerCase(); // per code point as Python's, for Unicode 14.0's
  const chars = Array.from(text);
  const codes = chars.map((char) => char.codePointAt(0));
  const skipped = (code) => isCaseIgnorableInUnicode14(code);
  return chars.map((char, i) => {
    if (char !== CAPITAL_SIGMA) return char.toLowerCase();
    let before = i - 1;
    while (before >= 0 && skipped(codes[before])) before--;
    let after = i + 1;
    while (after < codes.length && skipped(codes[after])) after++;
    const final = before >= 0 && isCasedInUnicode14(codes[before])
      && (after === codes.length || !isCasedInUnicode14(codes[after]));
    return final ? "\u03c2" : "\u03c3";
  }).join("");
}

/** studio/text/retrieval.py's normalize: NFC, lower case, letters and digits only, single spaces. */
export function normalize(text) {
  // a code point unassigned in Unicode 14.0 becomes a space before NFC: to Python it is a starter that composes
  // with nothing, as a space is, and a newer engine must not compose or reorder it
  let known = "";
  for (const char of text) known += isUnassignedInUnicode14(char.codePointAt(0)) ? " " : char;
  let out = "";
  let space = false;
  for (const char of pyLower(known.normalize("NFC"))) {
    if (LETTER_OR_DIGIT.test(char)) {
      if (space && out) out += " ";
      out += char;
      space = false;
    } else {
      space = true;
    }
  }
  return out;
}

/** The 1- to 3-grams of `text`'s code points, those only of spaces left out. */
function charNgrams(text) {
  const chars = Array.from(text);
  const found = [];
  for (let n = 1; n <= 3; n++) {
    for (let start = 0; start + n <= chars.length; start++) {
      const gram = chars.slice(start, start + n).join("");
      if (/[^ ]/.test(gram)) found.push(gram);
    }
  }
  return found;
}

/** The terms (with repeats) `analyzer` ("char", "char-nospace" or "word") reads in `text`. */
export function terms(text, analyzer = "char") {
  const normalized = normalize(text);
  if (analyzer === "char") return normalized ? charNgrams(` ${normalized} `) : [];
  if (analyzer === "char-nospace") return charNgrams(normalized.replaceAll(" ", ""));
  if (analyzer === "word") {
    const words = normalized ? normalized.split(" ") : [];
    return [...words, ...words.slice(1).map((word, i) => `${words[i]} ${word}`)];
  }
  throw new Error(`unknown analyzer ${JSON.stringify(analyzer)}; choose char, char-nospace or word`);
}

/**
 * The index of a replies.json (`meta`: its parsed JSON) and replies.bin (`bytes`: a Uint8Array or ArrayBuffer):
 * { analyzer, questions, answers, termIds, idf, postings }. Throws, saying what, when they do not fit.
 */
export function loadReplies(meta, bytes) {
  if (meta.format !== FORMAT) {
    throw new Error(`stored replies of format ${JSON.stringify(meta.format)}, expected ${FORMAT}`);
  }
  const view = bytes instanceof ArrayBuffer ? new DataView(bytes)
    : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sizes = { idf: meta.terms, indptr: meta.rows + 1, indices: meta.nonzeros, data: meta.nonzeros };
  const arrays = {};
  for (const [name, type] of [["idf", "float32"], ["indptr", "int32"], ["indices", "int32"], ["data", "float32"]]) {
    const entry = meta.arrays.find((array) => array.name === name);
    if (!entry || entry.dtype !== type || entry.length !== sizes[name]) {
      throw new Error(`stored replies: array ${name} is not ${type} of ${sizes[name]} values`);
    }
    if (entry.offset + 4 * entry.length > view.byteLength) {
      throw new Error(`stored replies: the binary file ends before ${name} does`);
    }
    const Type = type === "float32" ? Float32Array : Int32Array;
    const start = view.byteOffset + entry.offset;
    if (LITTLE_ENDIAN) { // a copy, aligned: the bytes are the values
      arrays[name] = new Type(view.buffer.slice(start, start + 4 * entry.length));
      continue;
    }
    const read = type === "float32" ? (at) => view.getFloat32(at, true) : (at) => view.getInt32(at, true);
    arrays[name] = Type.from({ length: entry.length }, (_, i) => read(entry.offset + 4 * i));
  }
  for (const name of ["vocabulary", "questions", "answers"]) {
    const wanted = name === "vocabulary" ? meta.terms : meta.rows;
    if (meta[name].length !== wanted) {
      throw new Error(`stored replies: ${name} has ${meta[name].length} strings, not ${wanted}`);
    }
  }
  const termIds = new Map(meta.vocabulary.map((term, id) => [term, id]));
  return {
    analyzer: meta.analyzer, questions: meta.questions, answers: meta.answers, termIds, idf: arrays.idf,
    postings: invert(arrays.indptr, arrays.indices, arrays.data, meta.terms),
  };
}

/** Each term's rows (ascending) and weights: the CSR matrix read by term. */
function invert(indptr, indices, data, terms) {
  const start = new Int32Array(terms + 1);
  for (const term of indices) {
    if (!(term >= 0 && term < terms)) throw new Error("stored replies: a term id is out of the vocabulary");
    start[term + 1]++;
  }
  for (let term = 0; term < terms; term++) start[term + 1] += start[term];
  const next = start.slice();
  const rows = new Int32Array(indices.length);
  const values = new Float32Array(indices.length);
  for (let row = 0; row + 1 < indptr.length; row++) {
    for (let k = indptr[row]; k < indptr[row + 1]; k++) {
      const at = next[indices[k]]++;
      rows[at] = row;
      values[at] = data[k];
    }
  }
  return { start, rows, values };
}

/** The known terms of `text`, ids ascending, and their L2-normalized sublinear tf-idf weights (float32). */
export function vector(index, text) {
  const counts = new Map();
  for (const term of terms(text, index.analyzer)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const known = [...counts].filter(([term]) => index.termIds.has(term))
    .map(([term, count]) => [index.termIds.get(term), count]).sort((a, b) => a[0] - b[0]);
  // NumPy 2 multiplies a Python float by a float32 in float32
  const raw = known.map(([id, count]) => Math.fround(Math.fround(1 + Math.log(count)) * index.idf[id]));
  let sum = 0;
  for (const value of raw) sum += value * value;
  const norm = Math.sqrt(sum);
  const weights = Float32Array.from(raw, (value) => (norm > 0 ? value / norm : value));
  return { ids: known.map(([id]) => id), weights };
}

/** The cosine of `text` with every row's question (a Float32Array). */
export function scores(index, text) {
  const { ids, weights } = vector(index, text);
  const { start, rows, values } = index.postings;
  const total = new Float32Array(index.questions.length);
  ids.forEach((term, k) => {
    for (let p = start[term]; p < start[term + 1]; p++) total[rows[p]] += Math.fround(weights[k] * values[p]);
  });
  return total;
}

/** { row, match } of the training question most like `text` (the lowest row among equals); row -1 when none is. */
export function best(index, text) {
  if (index.questions.length === 0) return { row: -1, match: 0 };
  const total = scores(index, text);
  let row = 0;
  for (let i = 1; i < total.length; i++) if (total[i] > total[row]) row = i;
  return total[row] > 0 ? { row, match: total[row] } : { row: -1, match: 0 };
}

/** The stored reply to `text`, { text, match, question, row, ms }, or null when no training question is alike. */
export function findReply(index, text) {
  const started = performance.now();
  const { row, match } = best(index, text);
  if (row < 0) return null;
  return { text: index.answers[row], match, question: index.questions[row], row, ms: performance.now() - started };
}

/** The line the app shows beside a stored reply (studio.replies.StoredReply.summary). */
export const storedSummary = (found) =>
  `stored reply · match ${found.match.toFixed(2)} · answers “${found.question}” · ${found.ms.toFixed(1)} ms`;
