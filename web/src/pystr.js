// Python's str behaviour where JavaScript's differs, one home for the ports of studio/text/ and studio/translation.py
// (normalize.js, numbers.js, protect.js, sentences.js): Python's whitespace (str.isspace(), `\s` in a str regex) is
// not JS's `\s` (JS lacks U+001C-U+001F and U+0085, has U+FEFF), Python's `\w` is Unicode, and Python's strings
// count code points.

import { isUnassignedInUnicode14 } from "./unicode14.js";

// str.isspace() in Python 3.11 (the same set as `\s` in a str regex), for character classes
export const PY_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
export const WORD_CHARS = "\\p{L}\\p{N}_"; // Python's \w, for character classes (with the `u` flag)

const WHITESPACE_RUN = new RegExp(`[${PY_WHITESPACE}]+`, "u");
const ONE_WHITESPACE = new RegExp(`^[${PY_WHITESPACE}]$`);
const isPySpace = (unit) => ONE_WHITESPACE.test(unit); // every Python whitespace is one UTF-16 unit

// loops, not a `[…]+$` regex: that one rescans a long run of spaces from each of its starts (quadratic)
/** Python's str.rstrip(): whitespace off the end. */
export function pyRstrip(text) {
  let end = text.length;
  while (end > 0 && isPySpace(text[end - 1])) end--;
  return text.slice(0, end);
}

/** Python's str.strip(): whitespace off both ends. */
export function pyStrip(text) {
  let start = 0;
  while (start < text.length && isPySpace(text[start])) start++;
  return pyRstrip(text.slice(start));
}

/** Python's str.split(): the words between whitespace runs. */
export const pySplit = (text) => text.split(WHITESPACE_RUN).filter(Boolean);

/** Python's str.lstrip(chars), for characters of the Basic Multilingual Plane. */
export function lstripChars(text, chars) {
  let start = 0;
  while (start < text.length && chars.includes(text[start])) start++;
  return text.slice(start);
}

/** Python's str.rstrip(chars), for characters of the Basic Multilingual Plane. */
export function rstripChars(text, chars) {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1])) end--;
  return text.slice(0, end);
}

/** Python's str.strip(chars), for characters of the Basic Multilingual Plane. */
export const stripChars = (text, chars) => rstripChars(lstripChars(text, chars), chars);

/** The code point that ends at `index` of `text`. */
export function codePointBefore(text, index) {
  const low = text.charCodeAt(index - 1);
  const high = text.charCodeAt(index - 2);
  if (low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  return text.codePointAt(index - 1);
}

/** The last code point of `text` ("" for ""): Python's text[-1:]. */
export const lastChar = (text) => (text ? String.fromCodePoint(codePointBefore(text, text.length)) : "");

/** Python's repr() of a str. */
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0);
    if (char === quote || char === "\\") out += `\\${char}`;
    else if (char === "\t") out += "\\t";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char !== " " && (/^[\p{C}\p{Z}]$/u.test(char) || isUnassignedInUnicode14(code))) {
      out += code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}`
        : code < 0x10000 ? `\\u${code.toString(16).padStart(4, "0")}` : `\\U${code.toString(16).padStart(8, "0")}`;
    } else out += char;
  }
  return quote + out + quote;
}
