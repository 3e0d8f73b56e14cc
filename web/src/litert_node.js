// Node only: load LiteRT.js outside a browser (the tests).
//
// LiteRT.js loads its WASM glue (a classic script that defines `ModuleFactory`) with a <script> tag, or
// `importScripts` in a worker. The glue itself supports Node (it reads the .wasm with node:fs), so while
// LiteRT.js loads, this file provides `self` and an `importScripts` that evaluates the glue with a Node
// `require`, and quietens the runtime's INFO/WARNING log lines (errors still print).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

import { initLiteRt } from "./litert_runtime.js";

const require = createRequire(import.meta.url);

/** The folder of @litertjs/core's wasm/ files in node_modules. */
export function liteRtWasmFolder() {
  return dirname(require.resolve("@litertjs/core/package.json")) + "/wasm/";
}

let loaded = null;

export function initLiteRtNode(wasmFolder = liteRtWasmFolder()) {
  loaded ??= load(wasmFolder);
  return loaded;
}

async function load(wasmFolder) {
  const hadSelf = "self" in globalThis;
  globalThis.self ??= globalThis;
  globalThis.importScripts = (url) => {
    const path = url.startsWith("file:") ? fileURLToPath(url) : url;
    const glue = new Function("require", "__filename", "__dirname", `${readFileSync(path, "utf8")}\nreturn ModuleFactory;`);
    globalThis.ModuleFactory = glue(createRequire(path), path, dirname(path));
  };
  // Emscripten reads its options from `self.Module` when LiteRT.js starts it: route its log lines
  const quiet = (line) => { if (!/^(INFO|WARNING): /.test(line)) console.error(line); };
  globalThis.Module = { print: quiet, printErr: quiet };
  const warn = console.warn; // "Failed to create default WebGPU device": Node has no WebGPU, as expected
  console.warn = (...args) => { if (!String(args[0]).includes("WebGPU")) warn(...args); };
  try {
    return await initLiteRt(wasmFolder);
  } finally {
    console.warn = warn;
    delete globalThis.importScripts; // other libraries take `importScripts` as the sign of a web worker
    delete globalThis.Module;
    if (!hadSelf) delete globalThis.self;
  }
}
