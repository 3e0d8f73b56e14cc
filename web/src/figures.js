// No invented figure: the port of studio/generate/figures.py. A translation may write a number only where its
// source has it; decode.js' constrain() masks, at every step, the pieces that would write another one (a number in
// progress must be the beginning of one of the source's numbers, and may only end once it is one of them).
// Numbers are compared as English may write them (writtenForms: "1500" or "1,500"); every beginning the guard allows
// can be finished, so it never leaves the model without a token to write.

import { FIGURE_MASKS_CACHED } from "./generated/constants.js";
import { NUMBER_RUN, SEPARATORS } from "./facts.js";

const DIGIT = /\p{Nd}/u;
const RUN = new RegExp(NUMBER_RUN, "gu"); // a number as written, with any separators (and a period after it)
const OPEN = new RegExp(`${NUMBER_RUN}$`, "u"); // the number an output ends in
const BYTE = /^<0x([0-9A-Fa-f]{2})>$/;

const rstripSeparators = (text) => text.replace(/[.,]+$/, "");

/** "1234567" -> "1,234,567", in one pass (a lookahead regex rescans the rest of the run at each digit). */
export function withCommas(digits) {
  const head = digits.length % 3 || 3;
  const groups = [digits.slice(0, head)];
  for (let i = head; i < digits.length; i += 3) groups.push(digits.slice(i, i + 3));
  return groups.join(",");
}

/** How English may write each number: as it is, with thousands commas, without leading zeros ("09" -> "9"). */
export function writtenForms(numbers) {
  const forms = new Set();
  for (const number of numbers) {
    const dot = number.indexOf(".");
    const whole = dot < 0 ? number : number.slice(0, dot);
    const rest = dot < 0 ? "" : number.slice(dot); // "." and the fraction
    for (const digits of new Set([whole, whole.replace(/^0+/, "") || "0"])) {
      forms.add(digits + rest);
      if (digits.length > 3) {
        forms.add(withCommas(digits) + rest);
      }
    }
  }
  return forms;
}

function pieceText(piece) {
  const byte = BYTE.exec(piece);
  if (byte) {
    const value = parseInt(byte[1], 16);
    return value < 0x80 ? String.fromCharCode(value) : "";
  }
  return piece.replaceAll("\u2581", " ");
}

const onlyNumberChars = (text) => [...text].every((c) => DIGIT.test(c) || SEPARATORS.includes(c));
const closes = (run, forms) => forms.has(rstripSeparators(run));
const goesOn = (run, forms, prefixes) => prefixes.has(run) || (run !== rstripSeparators(run) && closes(run, forms));

/** Whether every number `text` writes is one of `forms`, the one it ends in at least the start of one. */
function fits(text, forms, prefixes) {
  return [...text.matchAll(RUN)].every((m) => (m.index + m[0].length === text.length
    ? goesOn(m[0], forms, prefixes) : closes(m[0], forms)));
}

/** The pieces of one target vocabulary (in id order) that write digits, and which of them a source allows. */
export class FigureGuard {
  constructor(pieces, eosId) {
    this.texts = pieces.map(pieceText);
    this.eosId = eosId;
    this.numberIds = []; // pieces that write a digit or only separators: checked against the source's numbers
    this.closingIds = []; // pieces (and </s>) that end a number in progress
    this.texts.forEach((t, i) => {
      if (DIGIT.test(t) || (t && [...t].every((c) => SEPARATORS.includes(c)))) this.numberIds.push(i);
      else this.closingIds.push(i);
    });
    this.cache = new Map();
  }

  /** The number the output ends in ("" when it ends in something else), read from its last pieces. */
  openNumber(history) {
    let tail = "";
    for (let k = history.length - 1; k >= 0; k--) {
      const text = this.texts[history[k]] ?? "";
      tail = text + tail;
      if (!text || !onlyNumberChars(text)) break;
    }
    const match = OPEN.exec(tail);
    return match ? match[0] : "";
  }

  /** Whether the output so far has each of `years` (a Set: the source's years, dates.js' sourceYears). */
  wroteAll(history, years) {
    const text = history.map((t) => this.texts[t] ?? "").join("");
    return [...years].every((year) => text.includes(year));
  }

  /** The token ids that would write a number the source (`numbers`, a Set) does not have, after `history`. */
  banned(history, numbers) {
    const open = this.openNumber(history);
    const key = `${[...numbers].sort().join(" ")}|${open}`;
    let ids = this.cache.get(key);
    if (!ids) {
      if (this.cache.size >= FIGURE_MASKS_CACHED) this.cache.clear(); // ever new sources: start again, not grow
      ids = this.compute(numbers, open);
      this.cache.set(key, ids);
    }
    return ids;
  }

  compute(numbers, open) {
    const forms = writtenForms(numbers);
    const prefixes = new Set();
    for (const form of forms) for (let k = 1; k <= form.length; k++) prefixes.add(form.slice(0, k));
    const banned = this.numberIds.filter((i) => !fits(open + this.texts[i], forms, prefixes));
    if (open && !closes(open, forms)) banned.push(...this.closingIds); // the number must go on: nothing may end it
    return banned;
  }
}
