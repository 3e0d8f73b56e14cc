// Translating more than one sentence, as the Python app does (studio/translation.py): a text's lines are split into
// sentences (splitSentences), a sentence too long for the model into pieces (fitToLength); each piece is
// decoded alone, finished (finishSentence), and the pieces of a line joined by a space (joinPieces).
// test/sentences.test.mjs holds these to Python's answers (test/sentences-cases.json, written by
// scripts/sentences-fixture.py).
//
// Where JavaScript's regexes and strings differ from Python's:
// - `\s`, str.split(), str.strip(): Python's whitespace (src/pystr.js), not JS's `\s` and trim().
// - `\b` and `\d` are Unicode in Python (a Korean letter is a word character; "１２" are digits), ASCII in JS:
//   WORD and `\p{Nd}` below.
// - str.islower()/isupper() of one character are the Unicode properties Lowercase/Uppercase; upper() and
//   toUpperCase() both map fully ("ß" -> "SS"); lengths count code points, as Python's len() does.
// - Node's Unicode is newer than Python 3.11's 14.0: some 55 rare letters ("ƛ") capitalize differently.

import { repairMonths } from "./dates.js";
import { KOREAN_ENGLISH } from "./pair.js";
import { ANY_PLACEHOLDER } from "./protect.js";
import { lastChar, lstripChars, PY_WHITESPACE, pyRepr, pyRstrip, pySplit, pyStrip, rstripChars, WORD_CHARS } from "./pystr.js";

const WORD = `[${WORD_CHARS}]`; // Python's \w
const START = `(?<!${WORD})`; // Python's \b before a word character

// not after a Latin abbreviation or initial ("Dr. Smith", "U.S. Steel", "J. Kim"), nor after a list marker that
// starts the line ("가. 서론", "1. 개요"): translation.py's _SENTENCE_END
const SENTENCE_END = new RegExp(
  `(?<=[.!?。？！])(?<!${START}[A-Z]\\.)(?<!${START}[A-Z][a-z]\\.)(?<!${START}[A-Z][a-z]{2}\\.)` +
  `(?<!^[가-힣]\\.)(?<!^\\p{Nd}\\.)(?<!^\\p{Nd}\\p{Nd}\\.)[${PY_WHITESPACE}]+`, "u");
const CLAUSE_END = new RegExp(`(?<=[,;:，])[${PY_WHITESPACE}]+`, "u");

// a lower-case word written twice in a row ("the draft draft of this plan"): this model's slip, which English writes
// on purpose almost only as "had had" and "that that" (a name written twice, "Bora Bora", has capitals)
const DOUBLED = new RegExp(`(?<!${WORD})([a-z]{3,})(?: \\1(?!${WORD}))+`, "gu"); // \b: Python's, around words
const MEANT_TWICE = ["had", "that"];
const TERMINAL = ".!?";
const CLOSING = "\"'”’)]」』";
const OPENING = "\"'“‘([「『";

export function splitSentences(paragraph) {
  return pyStrip(paragraph).split(SENTENCE_END).map(pyStrip).filter(Boolean);
}

/** Split a sentence whose token count exceeds `limit`: first at clause punctuation, then by words. */
export function fitToLength(sentence, countTokens, limit) {
  if (countTokens(sentence) <= limit) return [sentence];
  const clauses = sentence.split(CLAUSE_END).filter((clause) => pyStrip(clause));
  const units = clauses.length > 1 ? clauses : pySplit(sentence);
  const pieces = [];
  let current = "";
  for (const unit of units) {
    const candidate = pyStrip(`${current} ${unit}`);
    if (current && countTokens(candidate) > limit) {
      pieces.push(current);
      current = unit;
    } else {
      current = candidate;
    }
  }
  if (current) pieces.push(current);
  if (pieces.length === 1 && units.length === 1) return pieces; // one enormous "word": truncated, with a warning
  return pieces.flatMap((piece) => fitToLength(piece, countTokens, limit));
}

/**
 * The model's English with the two things it most often leaves undone: a first letter in lower case is
 * capitalized unless the source has that word as written or it has a capital inside ("iPhone"), and a
 * sentence that stops where the source ends with . ! or ? gets the source's mark; a comma or semicolon that
 * ends it ("Hello,") is dropped unless the source ends with one; a month named beside one of the source's days
 * or years is that date's month (dates.js' repairMonths). For a model of another `pair` (pair.js), only what that
 * pair calls for (englishTarget, koreanToEnglish): the output stripped, at least.
 */
export function finishSentence(source, output, pair = KOREAN_ENGLISH) {
  if (pair.koreanToEnglish) output = repairMonths(source, output);
  if (!pair.englishTarget) return pyStrip(output);
  output = pyStrip(output).replace(DOUBLED, (twice, word) => (MEANT_TWICE.includes(word) ? twice : word));
  if (!output) return output;
  const first = lstripChars(pySplit(output)[0], OPENING);
  const at = output.length - lstripChars(output, OPENING).length; // "“parasite” was seen" -> "“Parasite” …"
  if (/^\p{Lowercase}/u.test(first) && !source.includes(first) && !/\p{Uppercase}/u.test(first)) { // not "eBay"
    const letter = String.fromCodePoint(output.codePointAt(at)); // first's first letter
    const upper = letter.toUpperCase();
    if ([...upper].length === 1) output = output.slice(0, at) + upper + output.slice(at + letter.length); // not "ß"
  }
  const end = lastChar(rstripChars(pyRstrip(source), CLOSING));
  if (",;".includes(output.at(-1)) && end !== "," && end !== ";") { // "Hello,": no sentence ends so
    output = pyRstrip(output.slice(0, -1));
  }
  if (end && TERMINAL.includes(end) && !(TERMINAL + "…:;,").includes(lastChar(rstripChars(output, CLOSING)))) {
    output += end;
  }
  return output;
}

/** Whether `line` has text to translate for `pair` (LanguagePair.hasText) besides placeholders (a document format's
 * markup tokens, "Xq1"): translation.py's _has_text. */
function hasText(pair, line) {
  return pair.hasText(line.replace(ANY_PLACEHOLDER, " "));
}

/** Per line of `text` (split at "\n"), the pieces the model decodes: its sentences, each split further when
 * longer than `limit` tokens by `countTokens`; none for a blank line, nor for one without the `pair`'s source text
 * (Korean for the shipped models: kept as written, joinPieces) (translation.py's plan_lines). */
export function planLines(text, countTokens, limit, pair = KOREAN_ENGLISH) {
  return text.split("\n").map((line) => (hasText(pair, line)
    ? splitSentences(line).flatMap((sentence) => fitToLength(sentence, countTokens, limit))
    : []));
}

/** What is said about the lines of `text` without the `pair`'s source text that joinPieces keeps as written, or null
 * (translation.py's kept_warning, as studio.translation.translate gives it). */
export function keptWarning(text, pair = KOREAN_ENGLISH) {
  const kept = text.split("\n").filter((line) => pyStrip(line) && !hasText(pair, line));
  if (!kept.length) return null;
  const stripped = [...pyStrip(kept[0])];
  const first = stripped.length > 40 ? `${stripped.slice(0, 40).join("")}…` : stripped.join("");
  const what = pair.sourceText;
  return kept.length === 1 ? `kept as written, without ${what} to translate: ${pyRepr(first)}`
    : `${kept.length.toLocaleString("en-US")} lines without ${what} kept as written (the first: ${pyRepr(first)})`;
}

/**
 * The translation of a planned `text` (planLines) as studio.translation.translate joins it: each line's outputs joined by a
 * space (empty ones left out), a line without Korean as written, the lines by "\n". `outputs` are the first
 * outputs.length pieces' (the last may be one being written); until every piece has one, the lines after the last
 * with an output are left out.
 */
export function joinPieces(plan, outputs, text) {
  const written = text.split("\n");
  const lines = [];
  let position = 0;
  let shown = 0; // lines up to the last one with an output
  for (const [i, pieces] of plan.entries()) {
    if (pieces.length && position >= outputs.length) break;
    lines.push(pieces.length ? outputs.slice(position, position + pieces.length).filter(Boolean).join(" ")
      : pyStrip(written[i]) ? written[i] : "");
    position += pieces.length;
    if (pieces.length) shown = lines.length;
  }
  const complete = outputs.length >= plan.reduce((sum, pieces) => sum + pieces.length, 0);
  return (complete ? lines : lines.slice(0, shown)).join("\n");
}
