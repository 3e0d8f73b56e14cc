// Node helpers shared by the tests: find an export folder's golden data and bundle,
// load the tokenizer, the pipeline and the runtimes. Environment variables (relative paths: from the
// current directory):
//   GOLDEN_DIR           an export folder holding golden/ (default: ../assets/chatbot/exports, from web/)
//   BUNDLE_DIR           its bundle: config.json, tokenizer/ (default: GOLDEN_DIR's parent)
//   NORMALIZATION_CASES  a normalization.json (default: GOLDEN_DIR/golden/normalization.json)
//   LITERT_TFLITE        comma-separated .tflite files for the LiteRT.js checks (relative: to GOLDEN_DIR;
//                        default: every .tflite in GOLDEN_DIR; ones with dynamic shapes are skipped)

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { standardTflite } from "../src/golden.js";
import { pipeline } from "../src/normalize.js";
import { loadTokenizer } from "../src/tokenizer.js";

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the app keeps a shipped bundle's exports, as studio.variants.export_dir_for finds them: the user cache
 * (STUDIO_CACHE_DIR, else ~/.cache/transformer-studio on Linux), keyed by the bundle's checksums.json. */
function shippedExportDir(bundle) {
  const cache = process.env.STUDIO_CACHE_DIR ?? join(homedir(), ".cache", "transformer-studio");
  const key = createHash("sha256").update(readFileSync(join(bundle, "checksums.json"))).digest("hex").slice(0, 16);
  return join(cache, "exports", `${basename(bundle)}-${key}`);
}

const SHIPPED_CHATBOT = join(WEB, "../assets/chatbot");
export const GOLDEN_DIR = resolve(process.env.GOLDEN_DIR ?? shippedExportDir(SHIPPED_CHATBOT));
export const BUNDLE_DIR = resolve(process.env.BUNDLE_DIR ?? (process.env.GOLDEN_DIR ? dirname(GOLDEN_DIR) : SHIPPED_CHATBOT));
export const NORMALIZATION_CASES = resolve(process.env.NORMALIZATION_CASES ??
  join(GOLDEN_DIR, "golden/normalization.json"));

const GOLDEN_FILE = join(GOLDEN_DIR, "golden/golden.json");

/** Why the golden checks cannot run (a message for test skips), or null when they can. */
export function goldenMissing() {
  return existsSync(GOLDEN_FILE) ? null : `no golden data at ${GOLDEN_FILE} (set GOLDEN_DIR to an export folder with golden/)`;
}

export const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
export const readBytes = (path) => new Uint8Array(readFileSync(path));

/** golden.json plus its step-0 logits as a Float32Array (row i: sentence i). */
export function readGolden() {
  const golden = readJson(GOLDEN_FILE);
  const logits = readFileSync(join(GOLDEN_DIR, "golden", golden.step0_logits.file));
  golden.step0 = new Float32Array(logits.buffer, logits.byteOffset, logits.byteLength / 4); // little-endian
  return golden;
}

export function readManifest() {
  return readJson(join(GOLDEN_DIR, "manifest.json"));
}

/** The golden data's pipeline (golden.json names it; the bundle's config.json says the same). */
export function goldenPipeline(golden) {
  return pipeline(golden.pipeline.name, golden.pipeline.lowercase_target);
}

/** The source tokenizer named by golden.json (paths relative to the bundle). */
export async function goldenTokenizer(golden, side = "source") {
  return loadTokenizer(readBytes(join(BUNDLE_DIR, golden.tokenizer[side])));
}

/** The .tflite files the LiteRT.js checks use (see LITERT_TFLITE above). */
export function tfliteFiles() {
  if (process.env.LITERT_TFLITE) {
    return process.env.LITERT_TFLITE.split(",").filter(Boolean).map((file) => resolve(GOLDEN_DIR, file));
  }
  return readdirSync(GOLDEN_DIR).filter((file) => file.endsWith(".tflite")).sort().map((file) => join(GOLDEN_DIR, file));
}

/** Whether a .tflite holds float32 weights (then its logits must match the reference closely). */
export function isFloat32(tflitePath) {
  return standardTflite(basename(tflitePath)) === "model.tflite";
}
