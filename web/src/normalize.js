// Text pipelines: how text becomes model input, and model output becomes text to show.
// An exact port of studio/text/pipelines.py (clean_text, TextPipeline) and studio/text/normalize.py
// (normalize, tidy); test/normalize.test.mjs checks it against Python's output (golden/normalization.json).
//
// - "tutorial": the tutorials' normalization (space out ?.!, keep Hangul, Latin letters, digits and a little
//   punctuation, optionally lower-case the target), with `tidy` spacing on output.
// - "translator": only Unicode and whitespace are normalized (`cleanText`: NFC, full-width ASCII, East Asian
//   brackets as quotes, a middle dot between words as a comma); the output is shown as is but for the Penn
//   Treebank habits some training data taught the model (`untokenizePtb`).
//
// Where JavaScript and Python differ, and what this file does about it:
// - Python iterates code points, JS strings are UTF-16: `for (const ch of text)` and the `u` regex flag
//   iterate code points too. A lone surrogate is one "character" in both; a valid surrogate pair is one
//   character in JS (Python could hold it as two lone surrogates, a string JS cannot represent).
// - Python's whitespace (str.isspace, re `\s`, str.strip) is not JS's (`\s`, trim): JS adds U+FEFF and
//   lacks U+001C-U+001F and U+0085. PY_WHITESPACE (src/pystr.js) is Python's set.
// - Python 3.11's unicodedata is Unicode 14.0; JS engines carry newer Unicode (Node 20: 17.0). General
//   categories of characters assigned in 14.0 agree (checked for every code point), but characters added
//   since (new emoji, CJK extension H, ...) are Cn (unassigned, dropped) for Python: unicode14.js has that
//   table. NFC of every single code point agrees; a new-in-Unicode-16 composition could differ, but only
//   between characters that are unassigned in 14.0.

import { PY_WHITESPACE, pyStrip, WORD_CHARS } from "./pystr.js";
import { isUnassignedInUnicode14 } from "./unicode14.js";

export { pyStrip } from "./pystr.js"; // for the tests of this module's use of it

export const TUTORIAL = "tutorial";
export const TRANSLATOR = "translator";

const WHITESPACE_RUNS = new RegExp(`[${PY_WHITESPACE}]+`, "g");

// ---- translator pipeline (pipelines.py) ----

const FULLWIDTH = /[\uff01-\uff5e]/g; // ！..～ -> !..~ (U+FF01..U+FF5E minus 0xFEE0)
const LINE_BREAKS = "\t\n\r\v\f\u2028\u2029\x85";
const SPACE_SEPARATOR = /^\p{Zs}$/u;
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}]$/u; // controls, zero-width and bidi marks, lone surrogates, private use

function keep(char) {
  if (SPACE_SEPARATOR.test(char) || LINE_BREAKS.includes(char)) return " ";
  if (INVISIBLE.test(char) || isUnassignedInUnicode14(char.codePointAt(0))) return ""; // ... and Cn
  return char;
}

// East Asian brackets as quotation marks; a middle dot between words as a comma, between digits as a point
const QUOTES = { "「": "“", "『": "“", "《": "“", "〈": "“", "」": "”", "』": "”", "》": "”", "〉": "”" };
const QUOTE_MARKS = /[「『《〈」』》〉]/g;
const WORD = `[${WORD_CHARS}]`; // what Python's \w matches
const MIDDLE_DOT = new RegExp(`(?<=${WORD})[·・∙‧](?=${WORD})`, "gu");
const DIGIT = /^[0-9]$/;

/** NFC, full-width ASCII to ASCII, East Asian brackets to quotes, a middle dot between words to a comma, every
 * kind of space to one space, invisible characters removed. */
export function cleanText(text) {
  text = text.normalize("NFC").replace(FULLWIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
  text = text.replace(QUOTE_MARKS, (c) => QUOTES[c]);
  text = text.replace(MIDDLE_DOT, (dot, at, whole) => {
    const before = whole.codePointAt(at - 1 - (/[\udc00-\udfff]/.test(whole[at - 1]) ? 1 : 0));
    const after = whole.codePointAt(at + 1);
    if (isUnassignedInUnicode14(before) || isUnassignedInUnicode14(after)) return dot; // no letter to Python 3.11
    return DIGIT.test(whole[at - 1]) && DIGIT.test(whole[at + 1]) ? "." : ", ";
  });
  let kept = "";
  for (const char of text) kept += keep(char); // code points, as Python iterates
  return pyStrip(kept.replace(WHITESPACE_RUNS, " "));
}

// ---- tutorial pipeline (normalize.py) ----

const PUNCT = /([?.!,])/g;
const DISALLOWED = /[^가-힣ㄱ-ㅎㅏ-ㅣa-zA-Z0-9?.!,'\-% ]+/gu;
const SPACE_BEFORE_PUNCT = / ([?.!,])/g;

/** The tutorials' normalization: NFC, (lower-case), space out ?.!, keep Hangul/Latin/digits/?.!,'-% only. */
export function normalize(text, lowercase = false) {
  text = text.normalize("NFC");
  if (lowercase) text = text.toLowerCase();
  text = text.replace(PUNCT, " $1 ");
  text = text.replace(DISALLOWED, " ");
  return pyStrip(text.replace(WHITESPACE_RUNS, " "));
}

/** Undo the spacing around punctuation for display: "하루가 또 가네요 ." -> "하루가 또 가네요." */
export function tidy(text) {
  return pyStrip(text.replace(SPACE_BEFORE_PUNCT, "$1"));
}

// Penn Treebank habits of some training data (pipelines.py untokenize_ptb): ``quoted'' -> “quoted” (a '' with
// no `` open is a closing single quote), "film 's" -> "film's", "1995 --2005" -> "1995-2005".
const PTB_QUOTE = /``\s*|\s*''/g;
const SPACED_POSSESSIVE = /(?<=[A-Za-z0-9]) 's(?=\s|$)/g;
const CLOSING_QUOTE = /[A-Za-z0-9]'(?![A-Za-z])/;
const RANGE_DASH = /(?<=\d) ?-- ?(?=\d)/g;

export function untokenizePtb(text) {
  let opened = false;
  text = text.replace(PTB_QUOTE, (match) => {
    if (match.startsWith("`")) {
      opened = true;
      return "“";
    }
    const closing = opened ? "”" : "'";
    opened = false;
    return closing;
  });
  text = text.replace(SPACED_POSSESSIVE, (match, offset) =>
    CLOSING_QUOTE.test(text.slice(offset + match.length)) ? match : "'s");
  if (text.includes('"')) text = text.replace(/[“”]/g, '"'); // mixed double quotes: straight ones
  return text.replace(RANGE_DASH, "-");
}

// ---- pipelines ----

// Unicode's Cc, but tab and line break: what a byte-fallback piece the model sampled can decode to (pipelines.py)
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/gu;

/**
 * A text pipeline: source(text) is what the model reads, target(text) a training target, output(text) the
 * detokenized model output as shown to a user.
 */
export function pipeline(name, lowercaseTarget = false) {
  if (name !== TUTORIAL && name !== TRANSLATOR) {
    throw new Error(`unknown text pipeline ${JSON.stringify(name)}; choose one of ${TUTORIAL}, ${TRANSLATOR}`);
  }
  const tutorial = name === TUTORIAL;
  return {
    name,
    lowercaseTarget,
    source: (text) => (tutorial ? normalize(text) : cleanText(text)),
    target: (text) => (tutorial ? normalize(text, lowercaseTarget) : untokenizePtb(cleanText(text))),
    output: (text) => (tutorial ? tidy(text) : untokenizePtb(pyStrip(text))).replace(CONTROL, ""),
  };
}

/** The pipeline a bundle's config.json names (config.task.text_pipeline; bundles without one: tutorial). */
export function pipelineForConfig(config) {
  const task = config.task ?? {};
  return pipeline(task.text_pipeline ?? TUTORIAL, Boolean(task.lowercase_target));
}
