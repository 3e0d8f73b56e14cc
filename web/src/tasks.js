// A model's task as the page reads it: studio/tasks.py's fields (generated/constants.js: the wording the Python app
// uses, whether an output's length follows its source's, the default decoding) and the page's own words for it.

import { DEFAULT_TASK, TASKS } from "./generated/constants.js";
import { KOREAN_ENGLISH, languagePair } from "./pair.js";

// What only the page says, per task: its send button and its text box's placeholder. (A task that `translates`,
// studio.tasks.Task.translates, has its text translated line by line, sentence by sentence, with a glossary and
// term protection, src/sentences.js and src/protect.js, as studio.translation.translate does; otherwise the input
// is read whole, as the Chat tab reads it.)
export const PAGE_WORDING = {
  translator: {
    action: "Translate",
    placeholder: "Korean text to translate into English. Enter translates; Shift+Enter starts a new line.",
  },
  chatbot: {
    action: "Send",
    placeholder: "Write in Korean: the chatbot answers in Korean. Enter sends; Shift+Enter starts a new line.",
  },
};

/**
 * The task of a bundle's config.json (`task.task`, as studio.tasks.task_named reads it): { name, emptyInput,
 * reads, longInputHint, lengthFollowsSource, translates, decoding, action, placeholder }; a translator of another
 * pair than the shipped Korean→English (an imported model: pair.js) has a placeholder naming its languages. Throws
 * on a task Python does not know, or one the page has no words for.
 */
export function taskOf(config) {
  const name = config.task?.task ?? DEFAULT_TASK;
  if (!Object.hasOwn(TASKS, name) || !Object.hasOwn(PAGE_WORDING, name)) {
    throw new Error(`unknown task ${JSON.stringify(name)}; choose ${Object.keys(PAGE_WORDING).join(" or ")}`);
  }
  const task = { name, ...TASKS[name], ...PAGE_WORDING[name] };
  const pair = languagePair(config);
  if (task.translates && !pair.equals(KOREAN_ENGLISH)) {
    task.placeholder = `Text to translate (${pair.source} → ${pair.target}). Enter translates; Shift+Enter starts a ` +
      "new line.";
  }
  return task;
}
