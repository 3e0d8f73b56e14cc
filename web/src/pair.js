// What a translator translates from and into, and which steps of the translation path, written for the shipped
// models' Korean→English, apply to it: the port of studio/tasks.py's LanguagePair and language_pair (docs/import.md,
// "Which steps apply"). Every step of the page asks here; test/sentences.test.mjs holds it to Python's answers.

import { DEFAULT_TASK, TASKS } from "./generated/constants.js";

// letters whose Unicode name starts with "HANGUL" (script.py's has_hangul, looks_like): decomposed Korean too
export const HANGUL_LETTERS = [[0x1100, 0x11ff], [0x3131, 0x318e], [0xa960, 0xa97c], [0xac00, 0xd7a3],
  [0xd7b0, 0xd7c6], [0xd7cb, 0xd7fb]];
const HANGUL = new RegExp(`[${HANGUL_LETTERS.map(([first, last]) =>
  `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`).join("")}]`, "u");
const LETTER = /\p{L}/u; // Python's str.isalpha() (of Unicode 14.0: a letter added since is one here only)

// what term protection passes through for a pair other than Korean→English (tasks.py's ANY_PAIR_KINDS): addresses
export const ANY_PAIR_KINDS = ["url", "email"];

export class LanguagePair {
  constructor(source = "ko", target = "en") {
    this.source = source;
    this.target = target;
    Object.freeze(this);
  }

  /** Its input is Korean: a line without Hangul is kept as written, and term protection leaves an input mostly in
   * another script as written (Python gives it the language hint). */
  get koreanSource() {
    return this.source === "ko";
  }

  /** Korean written the English way: amounts, times, ranges, a date's month, bracketed names, numbers, figures and
   * Latin names passed through. */
  get koreanToEnglish() {
    return this.koreanSource && this.target === "en";
  }

  /** Its outputs are English: finishSentence's habits (a capital first letter, the source's final mark, a
   * lower-case word written twice written once) apply. */
  get englishTarget() {
    return this.target === "en";
  }

  /** What a line needs to be translated, in messages ("kept as written, without Korean to translate"). */
  get sourceText() {
    return this.koreanSource ? "Korean" : "letters";
  }

  /** Whether `line` has something to translate: a Korean letter for a Korean source, else any letter. */
  hasText(line) {
    return (this.koreanSource ? HANGUL : LETTER).test(line);
  }

  /** Whether automatic term protection passes spans of `kind` (protect.js' AUTO_KINDS, or "named") through
   * placeholders for this pair: every kind for Korean→English, addresses for the others. */
  protects(kind) {
    return this.koreanToEnglish || ANY_PAIR_KINDS.includes(kind);
  }

  equals(other) {
    return this.source === other.source && this.target === other.target;
  }
}

export const KOREAN_ENGLISH = new LanguagePair("ko", "en"); // the shipped translator's

/** The pair a bundle's model translates (`config`: its config.json, parsed): a translator's own languages
 * (`task.source_lang`, `task.target_lang`; the shipped one's where it names none, as an older site's may); a model
 * of another task is read as the shipped translator's. */
export function languagePair(config) {
  const task = config?.task;
  if (!task || !TASKS[task.task ?? DEFAULT_TASK]?.translates) return KOREAN_ENGLISH;
  return new LanguagePair(task.source_lang || KOREAN_ENGLISH.source, task.target_lang || KOREAN_ENGLISH.target);
}
