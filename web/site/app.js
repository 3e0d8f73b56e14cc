// The static page: one tab per model listed in site.json, each running its .tflite with LiteRT.js (WASM)
// in the browser, downloaded when the tab is first shown (index.html#<name> opens that tab first). Text goes through the same pipeline, tokenizer and decode loop as in Python
// (src/normalize.js, src/tokenizer.js, src/decode.js); greedy and sampled outputs stream token by token,
// beam search's shows when the search ends. A translator translates as the Python app does (src/sentences.js):
// line by line, one sentence (or piece of a long one) at a time, each finished, with the tab's glossary and, unless
// its "protect terms" box is unchecked, automatic term protection (src/protect.js: numbers, amounts, URLs, Latin and
// bracketed names pass through placeholders); a chatbot reads its input whole and, as the app's Chat tab does,
// answers with a stored reply (src/retrieval.js: the training answer of the question most like the message, saying
// so and how alike they are) when its model has them, else (or when its "replies" setting asks) with the model's
// words. As in the app, an output caught in a loop is decoded again with repeated 2-grams banned, and a translation
// is capped by its source's length.
//
// site.json: {"title"?, "litert"?: {"wasm"?: folder of LiteRT.js' wasm files, "accelerator"?: "wasm"|"webgpu"},
//             "models": [{"name", "title"?, "dir"?: "<name>/", "tflite": file in dir (static shapes, batch 1),
//                         "manifest"?: "manifest.json", "config"?: "config.json",
//                         "tokenizer"?: path or {"source", "target"} (default: from the manifest),
//                         "golden"?: "golden/golden.json",
//                         "decoding"?: the task's defaults, {"strategy", "beamSize"?, "lengthPenalty"?, "temperature"?, …},
//                         "replies"?: a chatbot's stored replies, {"index": "replies.json", "arrays": "replies.bin"}}]}
// Every path is relative (to the page, or to the model's dir). ?golden=1 (or ?golden=<name>) runs the
// golden sentences instead and writes a JSON report into <pre id="golden-result">, then sets its
// data-done="true" and data-status="done" (or "error", the JSON then being {"error"}). The report has per model
// the ids, expected ids and matches of every sentence, and, when one model ran, "ids": its ids per sentence.
// When golden.json has beam ids, the first N sentences (?beam=N, default 2; 0: none) are also decoded with
// its beam search: per model "beam" {size, lengthPenalty, matches, total, sentences}, and "beamIds" when one
// model ran. ?accelerator=webgpu tries the GPU.
//
// Served over http(s), the page registers sw.js (a service worker): what the page fetches is kept in the
// browser, so a reload offline finds the page and every tab whose model was loaded before.

import { finishOutput, generate, generateUnlooped, lengthCap, prepareSource, RETRIED } from "./src/decode.js";
import { sourceNumbers, sourceYears } from "./src/facts.js";
import { FigureGuard } from "./src/figures.js";
import { DECODE_DEFAULTS, FROM_THE_MODEL, NONE_STORED, SAMPLING } from "./src/generated/constants.js";
import { beamOptions, expectedIds, maxAbsDiff, step0Logits } from "./src/golden.js";
import { createLiteRtRuntime, initLiteRt } from "./src/litert_runtime.js";
import { pipelineForConfig } from "./src/normalize.js";
import { languagePair } from "./src/pair.js";
import { decodeProtected, describe, Glossary, Protector } from "./src/protect.js";
import { pyStrip } from "./src/pystr.js";
import { findReply, loadReplies, storedSummary } from "./src/retrieval.js";
import { finishSentence, joinPieces, keptWarning, planLines } from "./src/sentences.js";
import { taskOf } from "./src/tasks.js";
import { loadTokenizer } from "./src/tokenizer.js";

const params = new URLSearchParams(location.search);
const $ = (selector, root = document) => root.querySelector(selector);

/** A fetch that failed without an answer: no network (or no server), and no copy kept by sw.js. */
class Unreachable extends Error {}

async function fetchOk(url) {
  let response;
  try {
    response = await fetch(url);
  } catch {
    throw new Unreachable(navigator.onLine === false ? `${url}: offline, and not kept for offline use`
      : `${url}: the server cannot be reached`);
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/**
 * sw.js, where the browser has service workers and the page is served over http(s) (not file://, and only in a
 * secure context: https, or localhost): it keeps what the page fetches, so that a reload offline finds the page
 * and every model loaded before. Resolves to true once it controls the page (then a model's files go through it
 * and are kept), false without one; at most a few seconds on a first visit, at once afterwards.
 */
async function startServiceWorker() {
  const workers = navigator.serviceWorker;
  if (!workers || !/^https?:$/.test(location.protocol)) return false;
  try {
    // relative: the worker's scope is this page's folder, wherever the site is served (e.g. /site/)
    const registration = await workers.register("sw.js", { scope: "./" });
    if (!registration) return false; // (a test browser may answer register() with nothing)
    if (!workers.controller) { // a first visit: sw.js claims the page once active (clients.claim)
      await new Promise((resolve) => {
        workers.addEventListener("controllerchange", resolve, { once: true });
        setTimeout(resolve, registration.active ? 500 : 5000); // active, yet not ours: a hard reload bypasses it
      });
    }
    if (!workers.controller) return false;
    // what the page fetched before it was controlled (itself, its modules, style.css): kept too
    const fetched = performance.getEntriesByType("resource").map((entry) => entry.name);
    workers.controller.postMessage({ keep: [location.href, ...fetched] });
    return true;
  } catch (error) {
    console.warn("no offline copy (service worker):", error);
    return false;
  }
}

const fetchJson = async (url) => (await fetchOk(url)).json();

/** The bytes at `url`, calling onProgress(received, total) while they arrive (when the size is known). */
async function fetchBytes(url, onProgress = null) {
  const response = await fetchOk(url);
  const total = Number(response.headers.get("content-length")) || 0;
  if (!onProgress || !total || !response.body) return new Uint8Array(await response.arrayBuffer());
  const chunks = [];
  let received = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress(Math.min(received, total), total); // a compressed response's length is smaller: clamp
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

const YIELD_EVERY_MS = 40; // at most this long without a yield: a click waits no more, the output streams at 25+ fps

/** A new task (a MessageChannel message): input and painting waiting since the last one run first. */
function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

let lastYield = 0;

/**
 * Let the browser take clicks and paint, when YIELD_EVERY_MS have passed since it last could (yielding after every
 * step cost 5-15% of the tokens a second, in painting; every 40 ms, 2-3%). Not scheduler.yield(): Chromium runs its
 * continuation before waiting input, and a Stop click or a tab switch then waited until the whole text was done.
 */
async function yieldToBrowser() {
  if (performance.now() - lastYield < YIELD_EVERY_MS) return;
  await nextTask();
  lastYield = performance.now();
}

// ---- models ----

let site; // site.json
let wasmFolder; // where LiteRT.js' wasm files are served
let accelerator; // "wasm" (CPU) or "webgpu"
let offlineCopy = false; // whether sw.js controls the page (keeps what it fetches for a reload offline)
const loading = new Map(); // model name -> promise of the loaded model

function tokenizerFiles(entry, manifest) {
  if (typeof entry.tokenizer === "string") return { source: entry.tokenizer, target: entry.tokenizer };
  if (entry.tokenizer) return entry.tokenizer;
  const files = manifest.tokenizer.files.filter((file) => file.endsWith(".model"));
  const pick = (side) => files.find((file) => file.includes(side)) ?? files.find((file) => file.includes("shared")) ?? files[0];
  return { source: pick("source"), target: pick("target") };
}

const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * A model's files, tokenizer and compiled runtime. hooks.status(text, detail) hears what is happening in plain words
 * (detail: the file and timings, for a tooltip); hooks.task(task) gets the model's task (src/tasks.js) as soon as
 * config.json is read.
 */
async function load(entry, hooks = {}) {
  const { status = () => {}, task: onTask = () => {} } = hooks;
  const base = new URL(entry.dir ?? `${entry.name}/`, location.href);
  const at = (path) => new URL(path, base);
  const what = `the ${entry.title ?? entry.name} model`;
  const runtimeReady = initLiteRt(wasmFolder);
  status(`Loading ${what}…`);
  const [manifest, config] = await Promise.all([
    fetchJson(at(entry.manifest ?? "manifest.json")), fetchJson(at(entry.config ?? "config.json"))]);
  const task = taskOf(config);
  onTask(task);
  const replies = entry.replies && task.replyModes.length ? storedReplies(at, entry.replies) : Promise.resolve(null);
  const files = tokenizerFiles(entry, manifest);
  const source = await loadTokenizer(await fetchBytes(at(files.source)));
  const target = files.target === files.source ? source : await loadTokenizer(await fetchBytes(at(files.target)));
  const model = await fetchBytes(at(entry.tflite),
    (received, total) => status(`Downloading ${what}: ${megabytes(received)} of ${megabytes(total)}…`));
  status(`Starting ${what} (${megabytes(model.length)})…`);
  await runtimeReady;
  const started = performance.now();
  const runtime = await createLiteRtRuntime({ model, manifest, accelerator });
  const stored = await replies;
  status(`Ready. The ${megabytes(model.length)} model runs in this browser` + (offlineCopy
    ? " and works offline, also after a reload (this browser keeps a copy)."
    : ", and keeps working offline until the page is reloaded."),
  `${entry.tflite}: ${accelerator}, compiled in ${Math.round(performance.now() - started)} ms`);
  // pair: what it translates from and into (config.json's task.source_lang, target_lang): which steps apply
  return { entry, base, manifest, config, task, pair: languagePair(config), pipeline: pipelineForConfig(config),
    source, target, runtime, replies: stored };
}

/** A chatbot's stored replies (site.json's `replies`: the portable index's two files), fetched beside its model. */
async function storedReplies(at, files) {
  const [meta, arrays] = await Promise.all([fetchJson(at(files.index)), fetchBytes(at(files.arrays))]);
  return loadReplies(meta, arrays);
}

/** load(entry, hooks) once per model: later calls get the same promise (and their hooks are not called); after a
 * failed load (offline, say), the next call tries again. */
function loadModel(entry, hooks = {}) {
  if (!loading.has(entry.name)) {
    const loaded = load(entry, hooks);
    loading.set(entry.name, loaded);
    loaded.catch(() => loading.delete(entry.name));
  }
  return loading.get(entry.name);
}

// ---- the chat / translate tabs ----

function lineItem(className, text = "") {
  const item = document.createElement("li");
  item.className = className;
  item.textContent = text;
  return item;
}

function addLine(list, className, text = "") {
  const item = lineItem(className, text);
  list.append(item);
  return item;
}

function decodeOptions(form) {
  const { strategy, temperature, topP, topK, beamSize, lengthPenalty } = form.elements;
  if (strategy.value === "sample") {
    return {
      strategy: "sample", temperature: Number(temperature.value), topP: Number(topP.value), topK: Number(topK.value),
    };
  }
  if (strategy.value === "beam") {
    return { strategy: "beam", beamSize: Number(beamSize.value), lengthPenalty: Number(lengthPenalty.value) };
  }
  return { strategy: "greedy" };
}

/** Show only the inputs of the chosen strategy (elements with data-strategy="sample" or "beam"). */
function showStrategyInputs(form) {
  for (const element of form.querySelectorAll("[data-strategy]")) {
    element.hidden = element.dataset.strategy !== form.elements.strategy.value;
  }
}

/** The line under an output: timings, tokens, and why it stopped when not at </s>. */
function statsLine(result, options) {
  const t = result.timings;
  const tail = `${result.ids.length} tokens` + (result.stop === "eos" ? "" : ` · stopped (${result.stop})`);
  if (options.strategy === "beam" && options.beamSize > 1) {
    return `beam ${options.beamSize} · ${t.totalMs.toFixed(0)} ms · ${t.msPerToken?.toFixed(1)} ms/position ` +
      `(${t.modelSteps} model steps) · ${tail}`;
  }
  return `first token ${t.firstTokenMs?.toFixed(0)} ms · ${t.msPerToken?.toFixed(1)} ms/token · ${tail}`;
}

/**
 * The line under a translation: statsLine for one piece; for several, tokens and time over all of them. `results`:
 * each piece's decoding (the pass kept); `passes`: every decoding, a piece decoded again included; `again`: how
 * many pieces were decoded again with a protected term's English written in.
 */
function translationStats(results, total, options, passes = results, again = 0) {
  const retried = again ? `${total > 1 ? `${again} ` : ""}decoded again (a protected term dropped or repeated)` : null;
  if (total === 1 && results.length === 1) return [statsLine(results[0], options), retried].filter(Boolean).join(" · ");
  const sum = (value) => passes.reduce((s, result) => s + value(result), 0);
  const tokens = sum((result) => result.ids.length);
  const ms = sum((result) => result.timings.totalMs);
  const finished = results.filter((result) => result.stop !== "aborted").length;
  const cut = results.filter((result) => result.stop === "length").length;
  const beam = options.strategy === "beam" && options.beamSize > 1;
  return [
    beam ? `beam ${options.beamSize}` : null,
    `${total} sentences`,
    beam || !results.length ? null : `first token ${results[0].timings.firstTokenMs?.toFixed(0)} ms`,
    `${tokens} tokens in ${ms.toFixed(0)} ms`,
    tokens ? `${(ms / tokens).toFixed(1)} ms/token overall` : null,
    cut ? `${cut} stopped (length)` : null,
    retried,
    finished < total ? `stopped after ${finished} of ${total}` : null,
  ].filter(Boolean).join(" · ");
}

/** The figures a translation must keep (TextGenerator.spec): its source's numbers and years; null for a chat reply. */
function keptFigures(model, sourceIds, options) {
  if (!model.task.keepsFigures || options.keepFigures === false) return null;
  model.figureGuard ??= new FigureGuard(model.target.pieces, model.manifest.special_ids.eos);
  const text = model.source.decode(sourceIds);
  return { guard: model.figureGuard, numbers: sourceNumbers(text), years: sourceYears(text) };
}

/**
 * generate() with the page's options, as the Python app decodes: a translation capped by its source's length
 * (guards.length_cap), an output caught in a loop decoded again with repeated 2-grams banned (result.retried).
 * Greedy and sampled tokens go to show(text so far) as they come.
 */
function decode(model, sourceIds, options, show) {
  const { bos, eos } = model.manifest.special_ids;
  return generateUnlooped(model.runtime, sourceIds, {
    ...options, bosId: bos, eosId: eos,
    lengthCap: model.task.lengthFollowsSource ? lengthCap(sourceIds.length) : null,
    figures: keptFigures(model, sourceIds, options),
    onToken: (id, ids) => show(finishOutput(ids, model.pipeline, model.target)), // greedy and sampling only
    onStep: yieldToBrowser, // after every step: the page stays responsive (Stop, tabs)
  });
}

/**
 * A chatbot's reply: a stored reply when `options.replies` is "retrieve" and one is alike (studio/replies.py), else
 * the model's, the text as one input. Returns the stats line, which says where the reply came from.
 */
async function reply(model, text, options, show, warn) {
  if (model.replies && options.replies === "retrieve") {
    const found = findReply(model.replies, text);
    if (found) {
      show(found.text);
      return storedSummary(found);
    }
    warn(NONE_STORED);
  }
  const { eos } = model.manifest.special_ids;
  const prepared = prepareSource(text, model.pipeline, model.source, model.runtime.maxSourceLen, eos);
  prepared.warnings.forEach(warn);
  const result = await decode(model, prepared.ids, options, show);
  if (result.retried) warn(RETRIED);
  show(finishOutput(result.ids, model.pipeline, model.target));
  return (model.replies ? `${FROM_THE_MODEL} · ` : "") + statsLine(result, options);
}

// a placeholder still being written ("… at X", "… at X q", "… at Xq1" that may become "Xq12"): not shown yet
const PLACEHOLDER_BEGUN = /(?<![\p{L}\p{N}])(?:X[ -]?q?|Xq\p{Nd}*)$/iu;

/** A streaming output with its placeholders restored as far as they go (Protected.restore), so none shows. */
function restoredSoFar(shield, partial) {
  return shield.restore(partial.replace(PLACEHOLDER_BEGUN, "")).text;
}

// no glossary and no automatic protection: each piece decoded as written, its output left as it is (Python's
// protector_for gives None, and translate restores nothing)
const unprotected = (text) => ({ text, restore: (output) => ({ text: output, applied: [], dropped: [] }),
  repeated: () => [] });

/**
 * A translation as studio/translation.py's translate_lines makes it with a `protector` (Protector: the glossary, and
 * automatic term protection unless it is off): each line's sentences, those too long for the model split further
 * (planLines), each protected (remembering the names the whole text introduces with their original), decoded one at
 * a time with its placeholders restored (and decoded again with the English written in where the model dropped one
 * or wrote a number twice: decodeProtected), and finished (finishSentence); a line's pieces joined by a space.
 * show() gets the pieces done and the one being written; a Stop keeps what is written (a Stop during a second pass
 * keeps the first). Returns the stats line; which glossary entries were applied, and what protection could not
 * keep, is said by warn().
 */
async function translate(model, text, options, show, warn, protector) {
  const { eos } = model.manifest.special_ids;
  const { maxSourceLen } = model.runtime;
  const countTokens = (piece) => model.source.encode(model.pipeline.source(piece)).length;
  const { pair } = model; // which steps apply: the lines kept, protection's kinds, finishing (src/pair.js)
  const plan = planLines(text, countTokens, maxSourceLen - 1, pair); // Preprocessor.source_limit: room for </s>
  const pieces = plan.flat();
  const kept = keptWarning(text, pair); // lines without Korean (for a Korean source) are kept as written
  if (kept) warn(kept);
  if (pieces.length === 0) {
    show(joinPieces(plan, [], text));
    return `nothing translated: the text has no ${pair.sourceText}`;
  }
  // also the names the whole text introduces with their original
  const withNames = protector.forPair(pair).remembering(text);
  const done = [];
  const results = []; // per piece, the decoding kept
  const passes = []; // every decoding
  const report = []; // [span, applied] for describe()
  let again = 0;
  let stopped = null; // the output of a piece Stop cut short
  for (const piece of pieces) {
    if (options.signal.aborted) break;
    const shield = protector.enabled ? withNames.protect(piece) : unprotected(piece);
    const decoded = {}; // pass -> {result, output, prepared}
    const kept = await decodeProtected(shield, async (source, pass) => {
      const prepared = prepareSource(source, model.pipeline, model.source, maxSourceLen, eos);
      if (pass === 1) show(joinPieces(plan, [...done, options.strategy === "beam" ? "searching…" : "…"], text));
      // a second pass is not streamed: the first's output stays on show until the better one is known
      const result = await decode(model, prepared.ids, options,
        (partial) => pass === 1 && show(joinPieces(plan, [...done, restoredSoFar(shield, partial)], text)));
      passes.push(result);
      decoded[pass] = { result, output: finishOutput(result.ids, model.pipeline, model.target), prepared };
      return result.stop === "aborted" ? null : decoded[pass].output;
    });
    decoded[kept === null ? 1 : kept.pass].prepared.warnings.forEach(warn); // the kept pass's ("truncated …")
    if (kept === null) { // stopped in the first pass
      results.push(decoded[1].result);
      stopped = shield.restore(decoded[1].output).text; // what was written, its placeholders restored
      break;
    }
    if (kept.again) again++;
    if (decoded[kept.pass].result.retried) warn(RETRIED);
    results.push(decoded[kept.pass].result);
    report.push(...kept.applied.map((span) => [span, true]), ...kept.dropped.map((span) => [span, false]));
    done.push(finishSentence(piece, kept.text, pair));
  }
  show(joinPieces(plan, stopped === null ? done : [...done, stopped], text));
  // "Glossary: 삼성 → Samsung (applied). Not kept as written (the model dropped it): 127.95달러 → $127.95."
  const described = describe(report);
  if (described) warn(described);
  return translationStats(results, pieces.length, options, passes, again);
}

/** What a number input takes, from its min, max and step: "a number from 0 to 2", "a whole number, 0 or more". */
function numberRange(input) {
  const kind = input.step === "1" ? "a whole number" : "a number";
  if (input.min && input.max) return `${kind} from ${input.min} to ${input.max}`;
  return input.min ? `${kind}, ${input.min} or more` : kind;
}

/**
 * The first input of the chosen strategy that is empty or out of range, with a message naming it; null when all
 * are fine. The other strategies' inputs are hidden and unused: not checked (the form has novalidate).
 */
function optionProblem(form) {
  for (const input of form.querySelectorAll(`[data-strategy="${form.elements.strategy.value}"] input`)) {
    if (input.checkValidity()) continue;
    const name = input.closest("label").firstChild.textContent.trim();
    const got = input.value === "" ? "" : ` (it is ${input.value})`;
    return { input, message: `${name} must be ${numberRange(input)}${got}.` };
  }
  return null;
}

/** The glossary box's entries, or null with Glossary.parse's error (naming the line) shown below it. */
function readGlossary(form) {
  const error = $(".glossary-error", form);
  try {
    const parsed = Glossary.parse(form.elements.glossary.value, "glossary");
    error.hidden = true;
    return parsed;
  } catch (problem) {
    error.textContent = problem.message;
    error.hidden = false;
    $(".protection", form).open = true;
    return null;
  }
}

/** The task's defaults (site.json, from studio/tasks.py) in the decoding inputs; for those an older site.json
 * lacks, DecodeOptions' defaults and studio.tasks.SAMPLING. The strategy stays greedy, which streams (a beam search
 * here costs beamSize steps a position). */
function setUpOptions(form, entry) {
  const defaults = { ...DECODE_DEFAULTS, ...SAMPLING, ...entry.decoding };
  for (const name of ["beamSize", "lengthPenalty", "temperature", "topP", "topK"]) {
    form.elements[name].value = defaults[name];
  }
  showStrategyInputs(form);
  form.elements.strategy.addEventListener("change", () => showStrategyInputs(form));
}

/** A tab's panel. Returns start(), which loads its model (once): the page calls it when the tab is first shown. */
function setUpPanel(entry, panel) {
  const status = $(".status", panel);
  const transcript = $(".transcript", panel);
  const form = $("form", panel);
  const button = $("button", form);
  const notice = $(".notice", form);
  let model = null; // once loaded
  let failed = false;
  let running = null; // the AbortController of the answer being written
  const say = (message) => { // below the buttons: why nothing was sent (cleared by the next send)
    notice.textContent = message ?? "";
    notice.hidden = !message;
  };
  setUpOptions(form, entry);
  form.elements.glossary.addEventListener("change", () => readGlossary(form));

  let loading = null;
  const start = () => {
    if (!loading) failed = false;
    loading ??= loadModel(entry, {
      status: (text, detail = "") => {
        status.textContent = text;
        status.title = detail;
      },
      task: (task) => { // before the model has downloaded: the tab reads as its task
        button.dataset.label = button.textContent = task.action;
        form.elements.text.placeholder = task.placeholder;
        $(".protection", form).hidden = !task.translates;
      },
    }).then((loaded) => {
      model = loaded;
      button.disabled = false;
      $(".replies", form).hidden = !loaded.replies; // a chatbot with stored replies: stored or the model's
      say(null);
    }, (error) => {
      failed = true;
      loading = null; // opening the tab again tries again
      const title = entry.title ?? entry.name;
      status.textContent = error instanceof Unreachable && offlineCopy // no network, and nothing kept by sw.js
        ? `${title} cannot be loaded ${navigator.onLine === false ? "offline" : "now: the server cannot be reached"}` +
          ", and its model has not been downloaded in this browser yet. Connect to the network and open this tab " +
          "again."
        : /Aborted\(/.test(error.message) // LiteRT.js's WebAssembly stopped (seen with a 60 M-parameter float16 graph)
          ? `Could not load ${title}: the browser's WebAssembly runtime stopped while loading its graph ` +
            `(${error.message}). A large model loads as int8: build the site with --variant tflite-b1-int8.`
          : `Could not load ${title}: ${error.message} (open this tab again to try again)`;
      console.error(error);
    });
  };

  form.addEventListener("keydown", (event) => { // Enter sends, Shift+Enter is a new line (the glossary's: Enter)
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.target !== form.elements.glossary) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  button.addEventListener("click", (event) => { // Stop: no form submission
    if (!running) return;
    event.preventDefault();
    running.abort();
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (running) { // the button reads "Stop" while an answer is written
      running.abort();
      return;
    }
    const text = form.elements.text.value;
    if (!model) {
      say(failed ? "The model could not be loaded (see above)." : "The model is still loading (see above); your " +
        "text stays here: send it once the model is ready.");
      return;
    }
    if (!pyStrip(text)) return say(model.task.emptyInput);
    const problem = optionProblem(form);
    if (problem) {
      say(problem.message);
      problem.input.focus();
      return;
    }
    let protector = null;
    if (model.task.translates) {
      const glossary = readGlossary(form);
      if (glossary === null) return say(null); // nothing is translated until the glossary is fixed: said below it
      protector = new Protector({ glossary, auto: form.elements.protect.checked });
    }
    say(null);
    running = new AbortController();
    button.textContent = "Stop";
    form.classList.add("running"); // kept in view (style.css): the output growing above would push Stop away
    form.elements.text.value = "";
    try {
      const replies = form.elements.replies.value;
      await answer(model, text, { ...decodeOptions(form), replies, signal: running.signal }, transcript, protector);
    } finally {
      running = null;
      button.textContent = button.dataset.label;
      form.classList.remove("running");
    }
  });
  return start;
}

/** The input, its answer written as it comes (warnings above it) and the stats line, added to `transcript`. */
async function answer(model, text, options, transcript, protector) {
  addLine(transcript, "input", text);
  const output = addLine(transcript, "output", options.strategy === "beam" ? "searching…" : "…");
  const stats = addLine(transcript, "stats");
  const warned = new Set();
  const warn = (warning) => { // once each, above the output
    if (!warned.has(warning)) output.before(lineItem("warning", warning));
    warned.add(warning);
  };
  const show = (written) => { output.textContent = written; };
  try {
    stats.textContent = protector ? await translate(model, text, options, show, warn, protector)
      : await reply(model, text, options, show, warn);
  } catch (error) {
    output.textContent = `Error: ${error.message}`;
    console.error(error);
  }
}

/**
 * One tab per model of site.json; a tab's model loads when the tab is first shown: at once the one the address names
 * (index.html#translator), else the first. Opening a tab puts its name in the address, to link to it.
 */
function buildTabs() {
  const tabs = $("#tabs");
  const panels = $("#panels");
  const template = $("#panel-template");
  const starts = new Map(); // model name -> its panel's start()
  const select = (name) => {
    for (const button of tabs.children) button.setAttribute("aria-selected", String(button.dataset.name === name));
    for (const panel of panels.querySelectorAll(".panel")) panel.hidden = panel.dataset.name !== name;
    starts.get(name)?.();
  };
  for (const entry of site.models) {
    const button = document.createElement("button");
    button.setAttribute("role", "tab");
    button.dataset.name = entry.name;
    button.textContent = entry.title ?? entry.name;
    button.addEventListener("click", () => {
      select(entry.name);
      history.replaceState(null, "", `#${encodeURIComponent(entry.name)}`);
    });
    tabs.append(button);
    const panel = template.content.firstElementChild.cloneNode(true);
    panel.dataset.name = entry.name;
    panels.append(panel);
    starts.set(entry.name, setUpPanel(entry, panel));
  }
  const named = () => {
    try {
      return decodeURIComponent(location.hash.slice(1));
    } catch { // "#50%": no model's name
      return "";
    }
  };
  select(starts.has(named()) ? named() : site.models[0]?.name);
  addEventListener("hashchange", () => starts.has(named()) && select(named()));
}

// ---- ?golden=1: every golden sentence through LiteRT.js, the results as JSON for a headless test ----

async function goldenReport(entry) {
  const loadStarted = performance.now(); // fetching the graph, tokenizer and config, and LiteRT.js compiling it
  const model = await loadModel(entry);
  const loadMs = performance.now() - loadStarted;
  const goldenUrl = new URL(entry.golden ?? "golden/golden.json", model.base);
  const golden = await fetchJson(goldenUrl);
  const logitsBytes = await fetchBytes(new URL(golden.step0_logits.file, goldenUrl));
  const reference = new Float32Array(logitsBytes.buffer, logitsBytes.byteOffset, logitsBytes.byteLength / 4);
  const V = golden.vocab_size;
  const { bos, eos } = golden.special_ids;
  const sentences = [];
  let step0MaxAbsDiff = 0;
  for (const [i, s] of golden.sentences.entries()) {
    const prepared = prepareSource(s.text, model.pipeline, model.source, model.runtime.maxSourceLen, eos);
    const logits = await step0Logits(model.runtime, s.source_ids, bos);
    step0MaxAbsDiff = Math.max(step0MaxAbsDiff, maxAbsDiff(logits, reference.subarray(i * V, (i + 1) * V)));
    const { ids, timings } = await generate(model.runtime, s.source_ids, { bosId: bos, eosId: eos });
    const expected = expectedIds(s, entry.tflite);
    sentences.push({
      text: s.text,
      sourceIdsMatch: JSON.stringify(prepared.ids) === JSON.stringify(s.source_ids),
      ids, expected, match: JSON.stringify(ids) === JSON.stringify(expected),
      output: finishOutput(ids, model.pipeline, model.target),
      firstTokenMs: timings.firstTokenMs, msPerToken: timings.msPerToken,
    });
  }
  const mean = (key) => sentences.reduce((sum, s) => sum + (s[key] ?? 0), 0) / sentences.length;
  return {
    name: entry.name, tflite: entry.tflite, accelerator, loadMs,
    matches: sentences.filter((s) => s.match).length, total: sentences.length,
    sourceIdsMatches: sentences.filter((s) => s.sourceIdsMatch).length,
    step0MaxAbsDiff, meanFirstTokenMs: mean("firstTokenMs"), meanMsPerToken: mean("msPerToken"),
    sentences,
    beam: await goldenBeam(model, golden, entry.tflite),
  };
}

/** golden.json's beam search on its first ?beam=N sentences (default 2); null without beam ids or with N = 0. */
async function goldenBeam(model, golden, tflite) {
  const options = beamOptions(golden);
  const count = Math.min(Number(params.get("beam") ?? 2), golden.sentences.length);
  if (!options || !(count > 0)) return null;
  const sentences = [];
  for (const s of golden.sentences.slice(0, count)) {
    const { ids, timings } = await generate(model.runtime, s.source_ids, options);
    const expected = expectedIds(s, tflite, "beam");
    sentences.push({ text: s.text, ids, expected, match: JSON.stringify(ids) === JSON.stringify(expected),
      msPerPosition: timings.msPerToken, totalMs: timings.totalMs });
  }
  return { size: options.beamSize, lengthPenalty: options.lengthPenalty,
    matches: sentences.filter((s) => s.match).length, total: sentences.length, sentences };
}

async function runGolden() {
  const result = $("#golden-result");
  result.hidden = false;
  result.dataset.status = "running";
  result.textContent = "running…";
  const wanted = params.get("golden");
  try {
    const entries = site.models.filter((entry) => ["1", "all", entry.name].includes(wanted));
    const report = { format: "transformer-studio-web-golden/1", runtime: "litert.js", userAgent: navigator.userAgent, models: [] };
    if (entries.length === 0) throw new Error(`no model named ${JSON.stringify(wanted)} in site.json`);
    for (const entry of entries) report.models.push(await goldenReport(entry));
    if (report.models.length === 1) { // one list per sentence
      report.ids = report.models[0].sentences.map((s) => s.ids);
      if (report.models[0].beam) report.beamIds = report.models[0].beam.sentences.map((s) => s.ids);
    }
    result.textContent = JSON.stringify(report, null, 1);
    result.dataset.status = "done";
    document.title = "golden: done";
  } catch (error) {
    result.textContent = JSON.stringify({ error: String(error?.stack ?? error) });
    result.dataset.status = "error";
    document.title = "golden: error";
  }
  result.dataset.done = "true"; // finished, either way: data-status says how
}

try {
  offlineCopy = await startServiceWorker(); // first: site.json and the models then go through it
  site = await fetchJson("site.json");
  wasmFolder = new URL(site.litert?.wasm ?? "vendor/litertjs/wasm/", location.href).href;
  accelerator = params.get("accelerator") ?? site.litert?.accelerator ?? "wasm";
  $("#title").textContent = site.title ?? "Transformer Studio";
  document.title = site.title ?? document.title;
  $("#page-status").remove();
  if (params.has("golden")) runGolden();
  else buildTabs();
} catch (error) {
  $("#page-status").textContent = `Could not start: ${error.message}`;
  const result = $("#golden-result");
  result.textContent = JSON.stringify({ error: String(error?.stack ?? error) });
  result.dataset.status = "error";
  if (params.has("golden")) document.title = "golden: error";
}
