// Korean dates in English, and a translation's month names checked against its source's: the port of
// studio/text/dates.py (finishSentence calls repairMonths, as Python's finish_sentence calls repair_months).

import { koreanDates, MONTHS, SHORT, SHORT_NAMES } from "./facts.js";
import { WORD_CHARS } from "./pystr.js";

const WORD = `[${WORD_CHARS}]`;
const capitalized = (name) => name[0].toUpperCase() + name.slice(1);
const NAME = `(?<name>${MONTHS.join("|")}|(?:${Object.keys(SHORT_NAMES).map(capitalized).join("|")})(?!${WORD})\\.?)`;

/** "September 30, 2018", "September 30", "September 2018" or "September". */
export function dateInEnglish({ month, day = null, year = null }) {
  const name = MONTHS[month - 1];
  if (day !== null) return `${name} ${day}` + (year !== null ? `, ${year}` : "");
  return name + (year !== null ? ` ${year}` : "");
}

function monthOf(name) {
  const bare = name.replace(/\.$/, "").toLowerCase();
  const full = MONTHS.findIndex((m) => m.toLowerCase() === bare);
  return full >= 0 ? full + 1 : SHORT_NAMES[bare];
}

/** `month`'s name as `name` is written: in full, or abbreviated (a full name where news English has none). */
function writtenLike(name, month) {
  const bare = name.replace(/\.$/, "").toLowerCase();
  if (MONTHS.some((m) => m.toLowerCase() === bare)) return MONTHS[month - 1];
  const short = SHORT[month] ?? MONTHS[month - 1];
  return name.endsWith(".") || short === MONTHS[month - 1] ? short : short.replace(/\.$/, "");
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * `output` with each month name that stands beside a day or year of one of `source`'s dates ("September 9",
 * "9 September", "September 2018") made that date's month, when the day or year belongs to one month only.
 */
export function repairMonths(source, output) {
  const byAnchor = new Map();
  for (const date of koreanDates(source)) {
    for (const anchor of [date.day, date.year]) {
      if (anchor === null) continue;
      const key = String(anchor);
      if (!byAnchor.has(key)) byAnchor.set(key, new Set());
      byAnchor.get(key).add(date.month);
    }
  }
  const months = new Map([...byAnchor].filter(([, found]) => found.size === 1).map(([a, found]) => [a, [...found][0]]));
  if (months.size === 0) return output;
  // Python's sorted(key=len, reverse=True) is stable: equal lengths keep their first-seen order
  const anchors = [...months.keys()].sort((a, b) => b.length - a.length).map(escape).join("|");
  const after = new RegExp(`(?<!${WORD})${NAME}(?<gap>\\s+)(?<anchor>${anchors})(?!\\p{Nd})`, "gu");
  const before = new RegExp(`(?<!\\p{Nd})(?<anchor>${anchors})(?:st|nd|rd|th)?(?<gap>\\s+(?:of\\s+)?)${NAME}`, "gu");
  const fixed = (match, ...rest) => {
    const groups = rest.at(-1);
    const month = months.get(groups.anchor);
    if (monthOf(groups.name) === month) return match;
    return match.replace(groups.name, writtenLike(groups.name, month));
  };
  return output.replace(after, fixed).replace(before, fixed);
}
