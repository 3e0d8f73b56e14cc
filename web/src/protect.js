// Terms the translator must not mangle, a port of studio/text/protect.py (and of the retry in studio/translation.py's
// unprotect): a user's glossary (Korean term -> the English to use) and, with `auto`, URLs, e-mail addresses,
// numbers with units, decimals and dotted numbers, Korean amounts and prices ("30억 달러" -> "$3 billion":
// src/numbers.js), ranges ("3~4%" -> "3-4%"), times of day ("오후 2:00" -> "2:00 p.m.", "오후 2시" -> "2 p.m."), emoji
// and other symbols, runs of Latin script ("Zoran Zaev") and a Korean name followed by its original in brackets ("도이체반(Deutsche
// Bahn)": the output gets "Deutsche Bahn" once), remembered through a text (Protector.remembering) and given in
// English where it is written alone later. Each span becomes a placeholder the model copies ("Xq1", "Xq2"), and the
// output gets the span's English back (Protected.restore); a sentence whose placeholder the model dropped, or
// whose number it wrote twice, is decoded once more with the English written in (decodeProtected).
// test/protect.test.mjs holds all of it to Python's answers (test/protect-cases.json, scripts/protect-fixture.py).
//
// Where JavaScript's regexes and strings differ from Python's:
// - `\s`, `\d`, `\w` are Unicode in Python's str patterns: SPACE (str.isspace()), \p{Nd} and WORD ([\p{L}\p{N}_])
//   here; str.split()/strip() use Python's whitespace.
// - re.IGNORECASE also folds "İ", "ı", "ſ" and the Kelvin sign into [A-Za-z], JS's `iu` only the last two; the one
//   pattern that needs it (RESTORED) spells its classes out. It also has a scoped `(?-i:X…)`, which Node 20's V8
//   lacks (regexp modifiers came in V8 12.5): without the `i` flag, its case-insensitive parts are spelt out.
// - casefold(): JS has no full case folding; toUpperCase().toLowerCase(), corrected where it differs ("ı", "ẞ", a
//   final "ς", Cherokee), equals it on every code point assigned in Unicode 14.0.
// - str.isalpha() is \p{L} of Unicode 14.0 (src/unicode14.js); lengths (MAX_PROTECTED_CHARS, a name's 3 syllables)
//   count code points, as Python's len() does. Node's \p{Nd} is Unicode 17's: digits added after 14.0 (Kawi,
//   Garay…) are digits here, not in Python.
// - looks_like (studio/text/script.py) reads Unicode names ("HANGUL …"): HANGUL_LETTERS are the letters so named.

import {
  KOREAN_SHARE, MAX_GLOSSARY_ENTRIES, MAX_NAMED, MAX_PROTECTED_CHARS, MAX_TERM_CHARS, MIN_LETTERS,
} from "./generated/constants.js";
import { LATIN_LETTER, LATIN_NAME, NUMERAL, TILDES, YEAR_RANGE } from "./facts.js";
import { AMOUNT, amountInEnglish, asciiDigits, DIGIT, SPACE } from "./numbers.js";
import { codePointBefore, PY_WHITESPACE, pyRepr, pyRstrip, pySplit, pyStrip, stripChars, WORD_CHARS } from "./pystr.js";
import { HANGUL_LETTERS, KOREAN_ENGLISH } from "./pair.js";
import { soundsLike } from "./transliteration.js";
import { isUnassignedInUnicode14 } from "./unicode14.js";

// MAX_PROTECTED_CHARS: longer pieces (one enormous "word") are decoded unprotected; MAX_NAMED: dropped spans named
// in the report, more are counted
export { MAX_GLOSSARY_ENTRIES, MAX_NAMED, MAX_PROTECTED_CHARS, MAX_TERM_CHARS };
const TYPED_SEPARATOR = /=>|->|=|→/u; // a glossary line without a tab: "삼성 = Samsung"

const S = SPACE;
const D = DIGIT;
const WORD = WORD_CHARS; // Python's \w, inside a character class

const URL = `(?:https?://|www\\.)[^${PY_WHITESPACE}<>"'()\\[\\]{}가-힣]+[^${PY_WHITESPACE}<>"'()\\[\\]{}가-힣.,;:!?]`;
const EMAIL = "[A-Za-z0-9._%+\\-]+@[A-Za-z0-9\\-]+(?:\\.[A-Za-z0-9\\-]+)+";
// "km²" before "km": the square would be left behind the placeholder, where the tokenizer reads "Xq1²" as "Xq12"
const UNIT = "(?:%|‰|℃|°[CF]?|[A-Za-z]{1,3}[²³]|[A-Za-z]{1,3}(?:/[A-Za-z]{1,2})?)(?![A-Za-z²³])";
const CLOCK = `${D}{1,2}:${D}{2}(?::${D}{2})?(?!${D})`;
const NUMBER = `(?:[$€£¥₩]${S}?${NUMERAL}|${NUMERAL}${S}?${UNIT}|${CLOCK})`;
// a decimal without a unit, which the model rewrote more often than not, and dotted runs (an IP address, a version,
// "2024.03.15"); other bare numbers it keeps or writes as words ("2개" -> "two")
const FIGURE = `(?<![${WORD}.,])${D}+(?:\\.${D}+)+(?![${WORD}.,]?${D})`;
// a Korean range, "3~4%", "1.5~2.5", "10:30~11:45", "$10~$20": both ends and the tilde as one span, given with a
// hyphen as English writes it
const RANGE_END = `(?:[$€£¥₩]${S}?)?(?:${CLOCK}|${NUMERAL}(?:${S}?${UNIT})?)`;
const RANGE = `(?<![${WORD}.,])(?:${YEAR_RANGE}|${RANGE_END}${S}?[${TILDES}]${S}?${RANGE_END})`;
const TILDE = new RegExp(`${S}?[${TILDES}]${S}?`, "gu");
// a clock time after 오전/오후 (a.m./p.m.); also the Korean way, hours and minutes ("오후 2시 30분" -> "2:30 p.m."), not
// a number of hours ("2시간"); a range may leave 시 to its end ("오후 6~8시" -> "6-8 p.m.")
const KOREAN_CLOCK = `${D}{1,2}시(?!간)(?:${S}?${D}{1,2}분)?`;
const HOUR_UNTIL = `${D}{1,2}(?=${S}?[~∼〜]${S}?${D}{1,2}시(?!간))`;
const TIME = `(?:오전|오후)${S}?(?:${CLOCK}|${KOREAN_CLOCK}|${HOUR_UNTIL})` +
  `(?:${S}?[~∼〜]${S}?(?:${CLOCK}|${KOREAN_CLOCK}))?`;
const KOREAN_HOUR = new RegExp(`(?<![${D}:])(${D}{1,2})(?:시(?:${S}?(${D}{1,2})분)?|(?=${S}?[~∼〜]))`, "gu");
const HALF_DAY = { 오전: "a.m.", 오후: "p.m." };
// pictographs, arrows, shapes and math signs (emoji, "▲", "※", "→", "±"), and a middle dot that is no word's
// neighbour (a bullet): read byte by byte by the tokenizer, they came out as other characters ("😊" -> "😜")
const SYMBOL = "[\\u{1F000}-\\u{1FAFF}\\u2600-\\u27BF\\u2190-\\u21FF\\u25A0-\\u25FF" +
  `\\u203B\\u00B1\\u00D7\\u00F7\\u2264\\u2265\\uFE0F\\u200D]+|(?<![${WORD}])[·・∙‧](?![${WORD}])`;
export const NUMERIC_KINDS = ["time", "range", "amount", "number", "figure"];
const AUTO_KINDS = { url: URL, email: EMAIL, time: TIME, range: RANGE, amount: AMOUNT, number: NUMBER,
  figure: FIGURE, latin: LATIN_NAME, symbol: SYMBOL };
const autoPatterns = new Map(); // kinds (joined by ",") -> their regex

/** One regex for the automatic protection of `kinds` (of AUTO_KINDS, in its order: an earlier kind wins a match
 * starting where a later one's does): protect.py's _auto_pattern. */
function autoPattern(kinds) {
  const key = kinds.join(",");
  if (!autoPatterns.has(key)) {
    autoPatterns.set(key, new RegExp(kinds.map((kind) => `(?<${kind}>${AUTO_KINDS[kind]})`).join("|"), "gu"));
  }
  return autoPatterns.get(key);
}
const ADDRESSES = new RegExp(`${URL}|${EMAIL}`, "gu"); // not words of any language
const ADDRESS_WHOLE = new RegExp(`^(?:${URL}|${EMAIL})$`, "u");
export const PLACEHOLDER_PREFIX = "Xq";
const placeholder = (number) => `${PLACEHOLDER_PREFIX}${number}`;
// also where the model glued one to a word ("IXq1)"): left there, it would show through
export const ANY_PLACEHOLDER = new RegExp(`(?<![0-9])Xq${D}+(?![0-9])`, "giu");
// or written wrongly ("Seq1", "ETq4", "X Q4", "X-q7"; "X1q1", "X23" in capitals): the span's English where the
// placeholder itself is missing. Python compiles it with re.IGNORECASE around a case-sensitive "(?-i:X(?:\dq)?)":
// here without the flag, [A-Za-z] under IGNORECASE spelt out (CASELESS)
const CASELESS = "A-Za-z\\u0130\\u0131\\u017F\\u212A";
const CASELESS_NOT_X = "A-WYZa-wyz\\u0130\\u0131\\u017F\\u212A";
const RESTORED = new RegExp(`(?<exact>(?<![0-9])[Xx][Qq]${D}+(?![0-9]))` +
  `|(?<![${CASELESS}0-9])(?:[Xx][ \\-]|[${CASELESS_NOT_X}](?:[${CASELESS}]?[${CASELESS_NOT_X}])?-?)[Qq]` +
  `(?<number>${D}{1,5})(?![0-9])` +
  `|(?<![${CASELESS}0-9])X(?:${D}q)?(?<bare>${D}{1,5})(?![0-9${CASELESS}])`, "gu");
const LEAKED = new RegExp(`Xq${D}+`, "giu");
// one written twice in a row, only spaces, quotes or a comma between ("'Xq1 'Xq1'"): the English once (see once())
const TWICE_IN_A_ROW = new RegExp(`(?<![0-9])(Xq${D}+)([${PY_WHITESPACE}'"“”‘’,]{0,3})\\1(?![0-9])`, "giu");
const QUOTES = "'\"“”‘’";
const GONE = "\0"; // where a placeholder was removed
const GONE_BEFORE_MARK = new RegExp(`${S}*\\0${S}*(?=[.,;:!?)\\]])`, "gu");
const GONE_IN_BRACKETS = new RegExp(`${S}*\\(${S}*\\0${S}*\\)`, "gu"); // "the franc (X23)" -> "the franc"
const GLUES = new RegExp(`^[${LATIN_LETTER}0-9]`, "u");
// "a", "an", "A" or "An", a word of its own, one space before a restored span: the model chose it for the placeholder
// ("an Xq1", read "ex-cue one"), made to agree with the English put there (articleFor). `g`: searched from lastIndex,
// its lookbehind seeing before it, as Python's search(text, pos, endpos)
const ARTICLE_BEFORE = new RegExp(`(?<![${WORD}])(an?|An?) $`, "gu");
// how a text starts when read aloud: a number (after a currency sign, read after it: "$5" is "five dollars") or a word
const SPOKEN_START = /^(?:[$€£¥₩] ?)?(?:(?<number>[0-9]+(?:,[0-9]{3})*)|(?<word>[A-Za-z]+))/u;
const LETTER_NAMES_AN = "AEFHILMNORSX"; // letters whose name starts with a vowel sound: "an F", "an S"
const HANGUL = /[가-힣ㄱ-ㅎㅏ-ㅣ]/u;
// what may follow a Korean glossary term inside its word: particles, one after another ("삼성은", "삼성에서는",
// "서울이라는", "삼성과의"), and the copula ("삼성이다"); anything else is a longer word ("삼성전자" is not "삼성")
const PARTICLES = ["은", "는", "이", "가", "을", "를", "의", "에", "엔", "에서", "서", "에게", "한테", "께", "께서", "와", "과",
  "도", "만", "로", "으로", "부터", "로부터", "으로부터", "랑", "이랑", "하고", "까지", "보다", "처럼", "조차",
  "마저", "밖에", "뿐", "이나", "나", "이며", "며", "이란", "란", "이라는", "라는", "이라고", "라고", "이다",
  "다", "였다", "이었다", "입니다", "이에요", "예요", "들", "측"];
const KOREAN_TAIL = `(?:${[...PARTICLES].sort((a, b) => b.length - a.length).join("|")}){0,3}(?![가-힣])`;
// "도이체반(Deutsche Bahn)": Latin in brackets right after a Korean word. An acronym ("국민 보건 서비스(NHS)") is not
// the name's original but its short form: left to the model, with the acronym protected as Latin.
const NAMED = new RegExp(`(?<=[가-힣]) ?\\(${S}*(?<latin>${LATIN_NAME})${S}*\\)`, "gu");
const BRACKET = ` ?\\(${S}*${LATIN_NAME}${S}*\\)`;
const BRACKET_AFTER = new RegExp(BRACKET, "uy"); // Python's _BRACKET_AFTER.match(source, end): lastIndex = end
const BRACKET_END = new RegExp(`${BRACKET}$`, "u");
const ACRONYM = /^(?:[A-Z0-9][A-Z0-9&.\-]*[A-Z0-9]s?)$/u;
const OPENERS = `${PY_WHITESPACE}"'“‘(\\[「『《〈`; // what may come before a Hangul word of a name (_HANGUL_WORD_BEFORE)
const OPENER = new RegExp(`^[${OPENERS}]$`, "u");
// a word ending like these is not part of the name before it ("국영 철도 회사인 도이체반(Deutsche Bahn)")
const NOT_IN_NAME = ["인", "의", "은", "는", "을", "를", "에", "에서", "와", "과", "한", "된", "및", "등", "로", "으로", "이자"];
const LONGEST_WORD = 100; // characters of a Hangul word in a name
const MOST_NAME_WORDS = 8; // a longer bracket is no name to remember (and comparing its sounds would cost its square)
// looks_like: a text is "not Korean" when it has MIN_LETTERS letters or more, fewer than KOREAN_SHARE of them Hangul
// (HANGUL_LETTERS, kept in pair.js)
export { HANGUL_LETTERS };

// ---- Python's strings ----

const LETTER_CHAR = /^\p{L}$/u;

/** Python's len(): code points. */
const codePoints = (text) => [...text].length;

// the letters toUpperCase().toLowerCase() folds otherwise than casefold(): "ı" stays "ı" (it would become "i"),
// "ẞ" is "ss", a final "ς" is "σ", Cherokee folds to its capitals
const UNLIKE_FOLDING = /[\u03C2\u13F8-\u13FD\uAB70-\uABBF]/gu;
const foldUnlike = (char) => (char === "ς" ? "σ" : char.toUpperCase());

/** Python's str.casefold(): equal to it on every code point assigned in Unicode 14.0. */
export const casefold = (text) => text.replaceAll("ẞ", "ss").split("ı")
  .map((part) => part.toUpperCase().toLowerCase().replace(UNLIKE_FOLDING, foldUnlike)).join("ı");

/** Python's str.isalpha() of one code point (Unicode 14.0). */
function isAlpha(code) {
  return code !== undefined && LETTER_CHAR.test(String.fromCodePoint(code)) && !isUnassignedInUnicode14(code);
}


/** How often `needle` occurs in `text`, not overlapping (Python's str.count). */
function countOf(text, needle) {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Python's str.replace(old, new): every occurrence, left to right, the new text taken literally. */
const replaceText = (text, old, replacement) => text.split(old).join(replacement);

/** Python's re.sub(pattern, function, text) for a global regex. */
function substitute(regex, text, replacement) {
  let out = "";
  let position = 0;
  for (const match of text.matchAll(regex)) {
    out += text.slice(position, match.index) + replacement(match);
    position = match.index + match[0].length;
  }
  return out + text.slice(position);
}

/** (protect.py's _put_back) RESTORED's matches in `output` replaced, `english(match)` giving [what replaces the match,
 * whether that is a span's English], and an article the model wrote right before a span's English made to agree with
 * it ("an Xq1" -> "a 3.5 trillion won"). */
function putBack(output, english) {
  let out = "";
  let position = 0;
  for (const match of output.matchAll(RESTORED)) {
    const [replacement, restored] = english(match);
    const article = restored ? articleBefore(output, match.index) : null;
    out += article ? output.slice(position, article.index) + agreeing(article[1], replacement) + " "
      : output.slice(position, match.index);
    out += replacement;
    position = match.index + match[0].length;
  }
  return out + output.slice(position);
}

/** ARTICLE_BEFORE's match ending at `end` of `text`, or null. */
function articleBefore(text, end) {
  ARTICLE_BEFORE.lastIndex = Math.max(0, end - 3);
  return ARTICLE_BEFORE.exec(text.slice(0, end));
}

/** `article` ("a", "an", "A", "An") as `english` wants it, its capital kept; as it is where that is unknown. */
function agreeing(article, english) {
  const wanted = articleFor(english);
  if (wanted === null) return article;
  return article[0] === "A" ? wanted[0].toUpperCase() + wanted.slice(1) : wanted;
}

/**
 * (protect.py's article_for) "an" where `text` read aloud starts with a vowel sound, else "a"; null where its start is
 * neither an ASCII digit nor an ASCII letter (a symbol, a quote, "É": left as the model wrote it). A number is read in
 * groups of three digits ("1,100" and "1100": "one thousand one hundred", "18,000": "eighteen thousand"), a currency
 * sign after it ("$8": "eight dollars"). An all-capital word of up to four letters is read letter by letter ("an FBI",
 * "a US"; so also "an NASA", a miss); other words by their first letter ("an iPhone"; "an University", "a hour" are
 * misses).
 */
export function articleFor(text) {
  const start = SPOKEN_START.exec(text);
  if (start === null) return null;
  if (start.groups.number !== undefined) {
    const digits = start.groups.number.replaceAll(",", "");
    const first = Number(digits.slice(0, digits.length % 3 || 3)); // the group read first: "eighteen" (thousand)
    return [8, 11, 18].includes(first) || (first >= 80 && first <= 89) || (first >= 800 && first <= 899) ? "an" : "a";
  }
  const { word } = start.groups;
  if (word === word.toUpperCase() && word.length <= 4) return LETTER_NAMES_AN.includes(word[0]) ? "an" : "a";
  return "aeiouAEIOU".includes(word[0]) ? "an" : "a";
}

const placeholdersIn = (text) => [...text.matchAll(ANY_PLACEHOLDER)].map((m) => casefold(m[0]));
const escapeRegex = (text) => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

// ---- the glossary ----

/** (Korean term, English) pairs, in the order they were written (a term's matching tries the longest first, so
 * "삼성전자" wins over "삼성"). */
export class Glossary {
  constructor(entries = []) {
    this.entries = Object.freeze(entries.map((entry) => Object.freeze([...entry])));
    Object.freeze(this);
  }

  /** Entries from a Map (its order: Python's dict), an array of pairs or a plain object. */
  static of(entries) {
    const pairs = entries instanceof Map ? [...entries] : Array.isArray(entries) ? [...new Map(entries)]
      : Object.entries(entries);
    return new Glossary(pairs);
  }

  /** `korean<TAB>english` per line (TSV), or `korean = english` (also `→`, `->`, `=>`): a browser's text box cannot type a
   * tab. Blank lines and lines starting with # are skipped. Errors (thrown as
   * Error) read as Python's DataError does: "NAME:LINE: …". */
  static parse(text, name = "glossary") {
    const entries = new Map();
    const writtenOn = new Map(); // each term's line
    const lines = splitLines(text);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (!pyStrip(line) || pyStrip(line).startsWith("#")) continue;
      const parts = line.split(line.includes("\t") ? "\t" : TYPED_SEPARATOR);
      if (parts.length !== 2 || !pyStrip(parts[0]) || !pyStrip(parts[1])) {
        throw new Error(`${name}:${i + 1}: expected the Korean term and its English separated by a tab, = or →, ` +
          `got ${pyRepr([...line].slice(0, 60).join(""))}`);
      }
      const term = pyStrip(parts[0]);
      const english = pySplit(parts[1]).join(" ");
      if (codePoints(term) > MAX_TERM_CHARS || codePoints(english) > MAX_TERM_CHARS) {
        throw new Error(`${name}:${i + 1}: a glossary entry is limited to ${MAX_TERM_CHARS} characters`);
      }
      if (entries.has(term) && entries.get(term) !== english) {
        throw new Error(`${name}:${i + 1}: ${term} is given twice, as ${pyRepr(entries.get(term))} on line ` +
          `${writtenOn.get(term)} and as ${pyRepr(english)} here; keep one`);
      }
      entries.set(term, english);
      writtenOn.set(term, i + 1);
      if (entries.size > MAX_GLOSSARY_ENTRIES) {
        throw new Error(`${name}: more than ${String(MAX_GLOSSARY_ENTRIES).replace(/\B(?=(\d{3})+$)/g, ",")} entries`);
      }
    }
    return Glossary.of(entries);
  }

  /** Both glossaries' entries; `other`'s English wins for a term in both. */
  extended(other) {
    return Glossary.of(new Map([...this.entries, ...other.entries]));
  }

  get size() {
    return this.entries.length;
  }
}

/** Python's str.splitlines(). */
const splitLines = (text) => {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/u);
  if (lines.length && lines.at(-1) === "") lines.pop();
  return lines;
};

const glossaryPatterns = new WeakMap();

/** One regex for every term, longest first, compiled once per glossary. A term starts a word; a Korean term may be
 * followed by a particle, a Latin one ends its word. */
function glossaryPattern(glossary) {
  if (!glossaryPatterns.has(glossary)) {
    const lastIsHangul = (term) => HANGUL.test(String.fromCodePoint(codePointBefore(term, term.length)));
    const terms = glossary.entries.map(([term]) => term).sort((a, b) => codePoints(b) - codePoints(a));
    const korean = terms.filter(lastIsHangul);
    const other = terms.filter((term) => !lastIsHangul(term));
    const parts = [];
    if (korean.length) parts.push(`(?:${korean.map(escapeRegex).join("|")})(?=${KOREAN_TAIL})`);
    if (other.length) parts.push(`(?:${other.map(escapeRegex).join("|")})(?![A-Za-z0-9])`);
    glossaryPatterns.set(glossary, new RegExp(`(?<![${WORD}])(?<term>${parts.join("|")})`, "gu"));
  }
  return glossaryPatterns.get(glossary);
}

// ---- protected text ----

/** A span: {placeholder, original (as written in the source), english (what the output gets), kind ("glossary",
 * "named", or one of the automatic kinds)}. */
const makeSpan = (placeholder, original, english, kind) => Object.freeze({ placeholder, original, english, kind });

/** A source with its protected spans replaced by placeholders. */
export class Protected {
  constructor(text, spans = [], written = new Set()) {
    this.text = text;
    this.spans = spans;
    this.written = written; // "Xq…" tokens the user's own text has (casefolded): never removed
  }

  /**
   * {text: the output with every placeholder replaced by its English, applied: spans applied, dropped: spans the
   * model dropped}. One pass over the output, so an English that looks like a placeholder is never replaced again;
   * a placeholder the model made up, or a number's written more often than the source has it, is removed.
   */
  restore(output) {
    if (!this.spans.length && output.search(ANY_PLACEHOLDER) < 0) return { text: output, applied: [], dropped: [] };
    const byPlaceholder = new Map(this.spans.map((span) => [casefold(span.placeholder), span]));
    const writtenRight = new Set(placeholdersIn(output));
    const left = this.counts();
    const seen = new Set();
    const source = casefold(this.text);
    const once = this.once(output);
    // [what replaces the match, whether that is a span's English]
    output = putBack(once, (match) => {
      let found;
      if (match.groups.exact !== undefined) {
        found = casefold(match[0]);
        if (!byPlaceholder.has(found)) return [this.written.has(found) ? match[0] : GONE, false];
        if (!left.get(found) && NUMERIC_KINDS.includes(byPlaceholder.get(found).kind)) return [GONE, false];
      } else { // a misspelt placeholder stands for its span only where the right one is missing
        found = casefold(placeholder(Number(asciiDigits(match.groups.number ?? match.groups.bare))));
        if (!byPlaceholder.has(found) || writtenRight.has(found) || seen.has(found)) {
          return [source.includes(casefold(match[0])) ? match[0] : GONE, false];
        }
      }
      seen.add(found);
      left.set(found, left.get(found) - 1);
      const glued = match.index > 0 && isAlpha(codePointBefore(once, match.index));
      return [(glued ? " " : "") + byPlaceholder.get(found).english, true];
    });
    // one glued between digits ("1Xq124") is no placeholder the rules above can read: it never shows through
    output = substitute(LEAKED, output, (match) => (this.written.has(casefold(match[0])) ? match[0] : GONE));
    // where one was removed, no space is left before punctuation ("the cell line of ." -> "of.")
    output = pySplit(output.replace(GONE_IN_BRACKETS, "").replace(GONE_BEFORE_MARK, "").replaceAll(GONE, " "))
      .join(" ");
    const applied = this.spans.filter((span) => seen.has(casefold(span.placeholder)));
    for (const { english } of applied) {
      if (english.endsWith(".")) output = replaceText(output, `${english}.`, english); // "p.m.." -> "p.m."
      const chars = [...english];
      if (english.endsWith("s") && chars.length > 1 && isAlpha(chars.at(-2).codePointAt(0))) { // "Brothers's"
        output = replaceText(replaceText(output, `${english}'s`, `${english}'`), `${english}’s`, `${english}’`);
      }
    }
    return { text: output, applied, dropped: this.spans.filter((span) => !seen.has(casefold(span.placeholder))) };
  }

  /** `output` with a span's placeholder written twice in a row given once, where the output has it more often than
   * the source: "'Xq1 'Xq1'" -> "'Xq1'" (a quote between them is kept unless one comes before the first). */
  once(output) {
    const spans = new Set(this.spans.map((span) => casefold(span.placeholder)).filter((p) => !this.written.has(p)));
    const written = placeholdersIn(output);
    const counts = this.counts();
    return substitute(TWICE_IN_A_ROW, output, (match) => {
      const found = casefold(match[1]);
      if (!spans.has(found) || written.filter((p) => p === found).length <= counts.get(found)) return match[0];
      const before = match.index > 0 ? output[match.index - 1] : "";
      const quotes = before && QUOTES.includes(before) ? "" : [...match[2]].filter((c) => QUOTES.includes(c)).join("");
      return quotes + match[1];
    });
  }

  /** The numbers (amounts, figures, ranges, times) whose placeholder `output` has more often than the source: a
   * number written twice is a wrong number; a name written twice is English ("Smith ... Mr Smith"). */
  repeated(output) {
    const written = placeholdersIn(output);
    const counts = this.counts();
    return this.spans.filter((span) => NUMERIC_KINDS.includes(span.kind)
      && written.filter((p) => p === casefold(span.placeholder)).length > counts.get(casefold(span.placeholder)));
  }

  /** How often the source has each span's placeholder (a term written twice shares one): casefolded -> count. */
  counts() {
    const written = placeholdersIn(this.text);
    return new Map(this.spans.map((span) => {
      const key = casefold(span.placeholder);
      return [key, written.filter((p) => p === key).length];
    }));
  }

  /** The source with `spans` written as their English instead of placeholders (the fallback for a sentence whose
   * placeholders the model dropped: it copies Latin text more often than not). */
  inline(spans) {
    const chosen = new Map(spans.map((span) => [casefold(span.placeholder), span.english]));
    return substitute(ANY_PLACEHOLDER, this.text, (m) => chosen.get(casefold(m[0])) ?? m[0]);
  }
}

// ---- the protector ----

export class Protector {
  /** `glossary`: the user's terms; `auto`: the automatic protection of URLs, numbers and names; `names`: foreign
   * names a text introduced with their original (see remembering); `pair`: the model's languages (pair.js), which
   * kinds of span automatic protection passes through (LanguagePair.protects). */
  constructor({ glossary = new Glossary(), auto = true, names = new Glossary(), pair = KOREAN_ENGLISH } = {}) {
    this.glossary = glossary;
    this.auto = auto;
    this.names = names;
    this.pair = pair;
    Object.freeze(this);
  }

  /** This protector for a model that translates `pair`: its automatic protection only of the kinds the pair calls
   * for (and without the remembered names where it calls for none). */
  forPair(pair) {
    if (pair.equals(this.pair)) return this;
    const names = pair.protects("named") ? this.names : new Glossary();
    return new Protector({ glossary: this.glossary, auto: this.auto, names, pair });
  }

  /** Whether it does anything (Python's bool(protector)). */
  get enabled() {
    return this.glossary.size > 0 || this.auto;
  }

  /** This protector, also giving each foreign name that `text` (a whole document) introduces with its original in
   * brackets ("도이체반(Deutsche Bahn)") that original wherever the name is written alone ("도이체반은 …"). Only
   * with automatic protection; the user's glossary wins for a term in both; the first introduction wins. */
  remembering(text) {
    if (!(this.auto && this.pair.protects("named"))) return this;
    const names = introducedNames(text).extended(this.names);
    return new Protector({ glossary: this.glossary, auto: this.auto, names, pair: this.pair });
  }

  protect(source) {
    if (source.length > MAX_PROTECTED_CHARS && codePoints(source) > MAX_PROTECTED_CHARS) return new Protected(source);
    // not Korean: Python's language hint needs to see it as written
    if (this.auto && this.pair.koreanSource && looksLikeAnotherLanguage(languageSample(source))) {
      return this.#protect(source, false);
    }
    return this.#protect(source, this.auto);
  }

  #protect(source, auto) {
    const found = []; // [start, end, kind, english], not overlapping
    // "Xq…" tokens already in the source (the user's, or a document format's markup) pass through as they are
    const tokens = [...source.matchAll(ANY_PLACEHOLDER)].map((m) => [m.index, m.index + m[0].length]);
    const free = (start, end) => [...tokens, ...found].every(([s, e]) => end <= s || start >= e);
    const bracketAt = (end) => {
      BRACKET_AFTER.lastIndex = end;
      return BRACKET_AFTER.exec(source);
    };

    if (this.glossary.size) {
      const englishOf = new Map(this.glossary.entries);
      for (const match of source.matchAll(glossaryPattern(this.glossary))) {
        const { term } = match.groups;
        const end = match.index + term.length;
        const bracket = bracketAt(end); // "삼성전자(Samsung Electronics)": the term's English once
        const spanEnd = bracket ? end + bracket[0].length : end;
        if (free(match.index, spanEnd)) found.push([match.index, spanEnd, "glossary", englishOf.get(term)]); // not a term inside that bracket
      }
    }
    if (auto && this.pair.protects("named")) {
      const own = source.includes("(") ? introducedNames(source) : new Glossary();
      // the document's names when they have this sentence's already: one compiled pattern for all its sentences
      const known = own.size ? new Map(this.names.entries) : null;
      const names = own.size && own.entries.some(([term]) => !known.has(term)) ? own.extended(this.names) : this.names;
      const originalOf = new Map(names.entries);
      for (const match of names.size ? source.matchAll(glossaryPattern(names)) : []) {
        const { term } = match.groups;
        let end = match.index + term.length;
        // its bracket too when it holds this original ("도이체반(Deutsche Bahn)"); another ("(HRW)") stays
        const bracket = bracketAt(end);
        if (bracket && casefold(stripChars(bracket[0], " ()")) === casefold(originalOf.get(term))
            && free(match.index, end + bracket[0].length)) {
          end += bracket[0].length;
        }
        if (free(match.index, end)) found.push([match.index, end, "named", originalOf.get(term)]);
      }
      for (const [start, end, english] of named(source)) {
        if (free(start, end)) found.push([start, end, "named", english]);
      }
    }
    const kinds = auto ? Object.keys(AUTO_KINDS).filter((kind) => this.pair.protects(kind)) : [];
    for (const match of kinds.length ? source.matchAll(autoPattern(kinds)) : []) {
      const kind = kinds.find((name) => match.groups[name] !== undefined);
      const english = autoEnglish(kind, match[0]);
      const end = match.index + match[0].length;
      if (english && free(match.index, end)) found.push([match.index, end, kind, english]);
    }
    const taken = new Set(placeholdersIn(source));
    let number = 0;
    const nextPlaceholder = () => {
      do number++; while (taken.has(casefold(placeholder(number))));
      return placeholder(number);
    };
    const spans = new Map(); // the same term twice in a sentence shares one placeholder
    const pieces = [];
    let position = 0;
    found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [start, end, kind, english] of found) {
      let original = source.slice(start, end);
      if (kind === "glossary" || kind === "named") original = original.replace(BRACKET_END, "");
      const key = JSON.stringify([original, kind]);
      if (!spans.has(key)) spans.set(key, makeSpan(nextPlaceholder(), original, english, kind));
      // a placeholder touching a Latin letter, a digit or another placeholder ("▲3.5%", "±5") would be read as
      // another one ("Xq15")
      pieces.push(source.slice(position, start));
      const last = pieces.findLast((piece) => piece) ?? "";
      if (GLUES.test(last.slice(-1))) pieces.push(" ");
      pieces.push(spans.get(key).placeholder);
      if (GLUES.test(source.slice(end, end + 1))) pieces.push(" ");
      position = end;
    }
    return new Protected(pieces.join("") + source.slice(position), [...spans.values()], taken);
  }
}

/** "2시 5분" as English writes it: "2:05" (hour 0 is 12: "오전 0시" is 12 a.m., "오후 0시 30분" 12:30 p.m.). */
function clock(hour, minutes) {
  const hours = Number(asciiDigits(hour)) || 12;
  return minutes === undefined ? String(hours) : `${hours}:${String(Number(asciiDigits(minutes))).padStart(2, "0")}`;
}

/** What the output gets for an automatically protected span: mostly the span as written. */
function autoEnglish(kind, text) {
  if (kind === "amount") return amountInEnglish(text);
  if (kind === "time") {
    const half = HALF_DAY[text.slice(0, 2)];
    return `${pyStrip(text.slice(2)).replace(KOREAN_HOUR, (_, hour, minutes) => clock(hour, minutes))
      .replace(TILDE, "-")} ${half}`;
  }
  return kind === "range" ? (text.endsWith("년") ? text.slice(0, -1) : text).replace(TILDE, "-") : text;
}

/** The text a language guess should read: without URLs and e-mail addresses and without placeholders. */
export function languageSample(text) {
  return text.replace(ANY_PLACEHOLDER, " ").replace(ADDRESSES, " ");
}

/** Whether studio/text/script.py's looks_like(text) says the text is mostly not Korean: 3 letters or more, fewer
 * than 30% of them Hangul. */
export function looksLikeAnotherLanguage(text) {
  let letters = 0;
  let hangul = 0;
  for (const char of text) {
    const code = char.codePointAt(0);
    if (!isAlpha(code)) continue;
    letters++;
    if (HANGUL_LETTERS.some(([first, last]) => code >= first && code <= last)) hangul++;
  }
  return letters >= MIN_LETTERS && hangul < KOREAN_SHARE * letters;
}

/**
 * The foreign names `text` writes in Hangul with their original in brackets, Hangul -> original, where the Hangul
 * sounds like the original (src/transliteration.js): not a translated name, a word before an original that is not
 * its transliteration, or an original in lower case. A one-word name needs three syllables ("나라(Nara)" is also
 * "country"). The first introduction of a name wins.
 */
export function introducedNames(text) {
  const names = new Map();
  for (const [start, end, latin] of named(text)) {
    if (names.size >= MAX_GLOSSARY_ENTRIES || !/^\p{Uppercase}/u.test(latin) || pySplit(latin).length > MOST_NAME_WORDS
        || codePoints(latin) > MAX_TERM_CHARS) {
      continue;
    }
    const words = pySplit(text.slice(start, end).replace(BRACKET_END, ""));
    // the longest run of the words before the bracket that sounds like it
    for (let first = 0; first < words.length; first++) {
      const korean = words.slice(first).join(" ");
      if ((codePoints(korean) >= 3 || korean.includes(" ")) && soundsLike(korean, latin)) {
        if (!names.has(korean)) names.set(korean, latin); // the first introduction wins
        break;
      }
    }
  }
  return Glossary.of(names);
}

/**
 * Python's _HANGUL_WORD_BEFORE.search(source, from, end), the pattern being
 * `(?:^|(?<=[\s"'“‘(\[「『《〈]))[가-힣]+ ?$`: a Hangul word (and a space) that ends at `end` (or at a "\n" just
 * before it: Python's `$`), after the text's start or an opening mark, starting no earlier than `from`.
 */
function hangulWordBefore(source, from, end) {
  const isHangul = (i) => i >= 0 && i < end && source[i] >= "가" && source[i] <= "힣";
  let stop = end; // where `$` holds
  if (!isHangul(stop - 1) && source[stop - 1] === "\n" && (isHangul(stop - 2) || source[stop - 2] === " ")) stop--;
  const last = source[stop - 1] === " " ? stop - 1 : stop; // the end of the word, its space after it
  if (!isHangul(last - 1)) return null;
  let start = last - 1;
  while (start > from && isHangul(start - 1)) start--;
  if (start < from || (start > 0 && !OPENER.test(source[start - 1]))) return null;
  return { start, text: source.slice(start, stop) };
}

/**
 * [start, end, the Latin] for each Korean name written with its original in brackets. The Korean taken is as many
 * words as the Latin has, walking back over whole Hangul words and stopping at one that ends like a particle or a
 * modifier: "비센테 시소(Vicente Siso)" whole, only "도이체반" of "회사인 도이체반(Deutsche Bahn)".
 */
function named(source) {
  const spans = [];
  for (const match of source.matchAll(NAMED)) {
    const { latin } = match.groups;
    if (ACRONYM.test(latin) || ADDRESS_WHOLE.test(latin)) continue;
    let start = match.index;
    const wanted = pySplit(latin).length;
    for (let taken = 0; taken < wanted; taken++) {
      const word = hangulWordBefore(source, Math.max(0, start - LONGEST_WORD), start);
      if (word === null || (taken && NOT_IN_NAME.some((ending) => pyRstrip(word.text).endsWith(ending)))) break;
      start = word.start;
    }
    if (start < match.index) spans.push([start, match.index + match[0].length, latin]);
  }
  return spans;
}

// ---- decoding with protection (studio/translation.py's _unprotect, for one sentence) ----

/** (translation.py's _restored) {text, applied, dropped} of `output`; the spans `writtenIn` the source as English,
 * not as placeholders, count as applied where their English is in the output. */
export function restoredWith(shield, output, writtenIn) {
  const { text, applied } = shield.restore(output);
  const folded = casefold(text);
  const all = [...applied, ...writtenIn.filter((span) => folded.includes(casefold(span.english))
    && !applied.some((a) => a.placeholder === span.placeholder))];
  const kept = new Set(all.map((span) => span.placeholder));
  return { text, applied: all, dropped: shield.spans.filter((span) => !kept.has(span.placeholder)) };
}

/** (translation.py's _second_pass_wins) Whether the pass decoded with spans' English written in (`second`, as
 * restoredWith gives it, from the model's `secondOutput`) is kept over the `first`: it applied more of the spans,
 * or as many where the first wrote a number twice (`repeated`) and it wrote none of them twice. */
export function secondPassWins(shield, first, second, secondOutput, repeated) {
  if (second.applied.length !== first.applied.length) return second.applied.length > first.applied.length;
  return repeated.length > 0 && shield.repeated(secondOutput).length === 0 && repeated.every(
    (span) => countOf(casefold(second.text), casefold(span.english)) <= 1);
}

/**
 * One protected sentence decoded as translation.py's _unprotect does: `decode(source, pass)` (pass 1, then 2) returns a
 * promise of the model's output for `source`, or null when it was stopped. The first pass decodes the placeholder
 * text; when it dropped a span or wrote a number twice, a second pass decodes the source with those spans' English
 * written in, kept when secondPassWins. Returns {text, applied, dropped, pass: the pass kept, again: whether a second
 * ran}, or null when the first pass was stopped (a second stopped keeps the first).
 */
export async function decodeProtected(shield, decode) {
  const output = await decode(shield.text, 1);
  if (output === null) return null;
  const first = shield.restore(output);
  const repeated = shield.repeated(output);
  const writtenIn = [...first.dropped, ...repeated];
  if (!writtenIn.length) return { ...first, pass: 1, again: false };
  const secondOutput = await decode(shield.inline(writtenIn), 2);
  if (secondOutput === null) return { ...first, pass: 1, again: true };
  const second = restoredWith(shield, secondOutput, writtenIn);
  return secondPassWins(shield, first, second, secondOutput, repeated) ? { ...second, pass: 2, again: true }
    : { ...first, pass: 1, again: true };
}

/** One line on what protection did (studio/text/protect.py's describe): each glossary entry applied or not, and each
 * automatically protected span the model dropped, named. `report`: [span, applied] pairs. Empty when nothing. */
export function describe(report) {
  const entries = new Map();
  const dropped = new Map();
  for (const [span, applied] of report) {
    if (span.kind === "glossary") {
      const key = JSON.stringify([span.original, span.english]);
      if (!entries.has(key)) entries.set(key, []);
      entries.get(key).push(applied);
    } else if (!applied) {
      const name = span.original.includes(span.english) ? span.original : `${span.original} → ${span.english}`;
      dropped.set(name, (dropped.get(name) ?? 0) + 1);
    }
  }
  const parts = [];
  for (const [key, outcomes] of entries) {
    const [term, english] = JSON.parse(key);
    const done = outcomes.filter(Boolean).length;
    const state = done === outcomes.length ? "applied" : done ? `applied ${done} of ${outcomes.length} times`
      : "not applied: the model dropped it";
    parts.push(`${term} → ${english} (${state})`);
  }
  let line = parts.length ? `Glossary: ${parts.join("; ")}.` : "";
  if (dropped.size) {
    let names = [...dropped].map(([name, times]) => (times > 1 ? `${name} (${times} times)` : name));
    if (names.length > MAX_NAMED) names = [...names.slice(0, MAX_NAMED), `and ${names.length - MAX_NAMED} more`];
    const total = [...dropped.values()].reduce((sum, times) => sum + times, 0);
    const them = dropped.size > 1 || total > 1 ? "them" : "it";
    line += `${line ? " " : ""}Not kept as written (the model dropped ${them}): ${names.join(", ")}.`;
  }
  return line;
}
