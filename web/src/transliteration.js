// Whether a Korean word sounds like a Latin one ("도이체반" and "Deutsche Bahn" do, "통신" and "Australia Associated
// Press" do not), a port of studio/text/transliteration.py: both sides reduced to their consonants in coarse sound
// classes, compared by their longest common subsequence (Dice: 2·LCS / total length). src/protect.js remembers a
// name a text introduces with its original in brackets only where the Hangul is a transliteration of it.

import { MIN_LIKENESS } from "./generated/constants.js";

// the initial consonant (19) and the final (28) of a Hangul syllable, in sound classes ("" = silent or none)
const INITIAL = ["K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", "", "S", "S", "S", "K", "T", "P", ""];
// a final ㅅ is how loanwords write a final t ("로봇" robot, "인터넷" internet, "스콧" Scott)
const FINAL = ["", "K", "K", "KS", "N", "NS", "N", "T", "L", "LK", "LM", "LP", "LS", "LT", "LP", "L", "M", "P", "PS",
  "T", "T", "N", "T", "T", "K", "T", "P", ""];
// Latin spellings, longest first where one contains another ("tsch" before "ts", "ch", "t")
const LATIN = {
  chr: "KL", chl: "KL", tsch: "S", tch: "S", sch: "S", ch: "S", sh: "S", ph: "P", th: "T", ck: "K", ts: "S",
  tz: "S", ng: "N", x: "KS", qu: "K", c: "K", k: "K", q: "K", g: "K", d: "T", t: "T",
  b: "P", p: "P", f: "P", v: "P", s: "S", z: "S", j: "S", l: "L", r: "L", m: "M", n: "N",
};
const LATIN_SPELLING = new RegExp(Object.keys(LATIN).sort((a, b) => b.length - a.length).join("|"), "g");
const R_AFTER_VOWEL = /(?<=[aeiouy])r(?![aeiouy])/g; // silent in English's Korean ("Twitter" 트위터), not in others'
// ("Bordeaux" 보르도): read both ways
const SQUEEZE = /(.)\1+/g;
const SYLLABLES = 11172;
const FIRST_SYLLABLE = 0xac00;
const FINALS = 28;
const PER_INITIAL = 588;

// MIN_LIKENESS: on the 245 bracketed names of the training and dev data, transliterations score 0.7-1.0,
// translations and phrases that only precede a bracket up to 0.67 ("트리(Solar Tree)", "녹색 일자리 펀드(Green Jobs Fund)")
export { MIN_LIKENESS };

/** The consonant classes of the Hangul syllables in `text` ("도이체반" -> "TSPN"). */
export function koreanSounds(text) {
  const classes = [];
  for (const char of text) {
    const code = char.codePointAt(0) - FIRST_SYLLABLE;
    if (code >= 0 && code < SYLLABLES) classes.push(INITIAL[Math.floor(code / PER_INITIAL)], FINAL[code % FINALS]);
  }
  return classes.join("").replace(SQUEEZE, "$1");
}

/** The consonant classes of the Latin letters in `text` ("Deutsche Bahn" -> "TSPN"), an r after a vowel silent
 * (English) or not. */
export function latinSounds(text, silentR = true) {
  const lower = text.toLowerCase(); // both lower case fully, final sigma included
  const spelt = silentR ? lower.replace(R_AFTER_VOWEL, "") : lower;
  return [...spelt.matchAll(LATIN_SPELLING)].map((m) => LATIN[m[0]]).join("").replace(SQUEEZE, "$1");
}

function commonSubsequence(a, b) {
  let previous = new Array(b.length + 1).fill(0);
  for (const x of a) {
    const current = [0];
    for (let j = 0; j < b.length; j++) {
      current.push(x === b[j] ? previous[j] + 1 : Math.max(previous[j + 1], current[j]));
    }
    previous = current;
  }
  return previous.at(-1);
}

const readings = (latin) => [...new Set([latinSounds(latin), latinSounds(latin, false)])];

/** 0 (nothing alike) to 1 (the same consonants in the same order), for the closer reading of an r. */
export function likeness(korean, latin) {
  const a = koreanSounds(korean);
  const scores = readings(latin).filter((b) => a && b).map((b) => (2 * commonSubsequence(a, b)) / (a.length + b.length));
  return Math.max(0, ...scores);
}

/** Whether `korean` reads as a transliteration of `latin` (not a translation of it). */
export function soundsLike(korean, latin) {
  const a = koreanSounds(korean);
  // lengths too unlike cannot reach the likeness (and are not worth the quadratic cost of comparing them)
  return readings(latin).some((b) => Boolean(a && b)
    && (2 * Math.min(a.length, b.length)) / (a.length + b.length) >= MIN_LIKENESS
    && (2 * commonSubsequence(a, b)) / (a.length + b.length) >= MIN_LIKENESS);
}
