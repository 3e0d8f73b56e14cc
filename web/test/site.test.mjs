// The page's tasks (src/tasks.js over src/generated/constants.js, which tests/unit/test_web_constants.py holds to
// Python's values) and its packaging: every module the page imports is in site-files.json, at the place its
// relative imports expect.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { TASKS } from "../src/generated/constants.js";
import { PAGE_WORDING, taskOf } from "../src/tasks.js";

const WEB = new URL("../", import.meta.url);
const siteFiles = JSON.parse(readFileSync(new URL("site-files.json", WEB), "utf8"));

test("each of Python's tasks has the page's words, and a task is read from config.json by name", () => {
  assert.deepEqual(Object.keys(PAGE_WORDING).sort(), Object.keys(TASKS).sort());
  const translator = taskOf({ task: { task: "translator" } });
  assert.deepEqual([translator.lengthFollowsSource, translator.translates, translator.emptyInput],
    [true, true, TASKS.translator.emptyInput]);
  const chatbot = taskOf({ task: { task: "chatbot" } });
  assert.deepEqual([chatbot.lengthFollowsSource, chatbot.translates], [false, false]);
  assert.equal(taskOf({}).name, "chatbot"); // a config without a task, as studio.config reads it
  assert.throws(() => taskOf({ task: { task: "translator-v2" } }), /unknown task "translator-v2"; choose/);
});

test("an imported translator's text box names its languages, the shipped one's keeps its words", () => {
  const shipped = { task: "translator", source_lang: "ko", target_lang: "en" };
  assert.equal(taskOf({ task: shipped }).placeholder, PAGE_WORDING.translator.placeholder);
  assert.match(taskOf({ task: { ...shipped, source_lang: "en", target_lang: "de" } }).placeholder,
    /^Text to translate \(en → de\)\. Enter translates/);
});

test("site-files.json's example site.json gives each model its task's decoding", () => {
  for (const model of siteFiles.site_json.models) {
    for (const [name, value] of Object.entries(model.decoding ?? {})) {
      assert.equal(value, TASKS[model.name].decoding[name], `${model.name}: ${name}`);
    }
  }
});

/** The relative imports of a module's source (static `import … from "./x.js"` and `export … from`). */
function relativeImports(source) {
  const text = readFileSync(source, "utf8");
  return [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/gms)].map(([, path]) => path);
}

test("every module the page imports is copied into the site, where its importer finds it", () => {
  const site = new URL("https://site.invalid/");
  const sources = new Map(siteFiles.files.map((file) => [new URL(file.to, site).href, new URL(file.from, WEB)]));
  const pending = [new URL("app.js", site).href];
  const seen = new Set();
  while (pending.length) {
    const module = pending.pop();
    if (seen.has(module)) continue;
    seen.add(module);
    for (const path of relativeImports(sources.get(module))) {
      const imported = new URL(path, module).href; // where the browser asks for it
      assert.ok(sources.has(imported), `${path}, imported by ${module}, is not in site-files.json`);
      pending.push(imported);
    }
  }
  assert.ok(seen.has(new URL("src/generated/constants.js", site).href));
});
