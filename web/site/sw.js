// The page's service worker (registered by app.js as "sw.js", so its scope is the site's folder: the site may be
// served under a sub-path, as `studio launch --site` serves it at /site/). It keeps every same-origin GET response
// the page fetches inside that folder (index.html, the JS modules, style.css, the WASM, site.json, and each model's
// files once its tab has loaded) in Cache Storage, and answers from there when the network fails: after a reload
// offline, a tab whose model was loaded before works again; a model never loaded is not there, and the page says so.
//
// Network first everywhere, the cache only when the network fails. Not cache-first for the large files: a rebuilt
// site (`studio web SITE` again) writes its new graph, config and tokenizer under the same names, and a cached old
// .tflite served with a new config.json would be a mismatch nobody could see. Online this costs what the page cost
// without a worker (the browser's HTTP cache still answers, or revalidates with a small 304), and a response whose
// Last-Modified/ETag and length match the kept copy's is not written again (no 28 MB write per reload).

const VERSION = 1; // a new version deletes the caches of the older ones (on activate)
const PREFIX = "transformer-studio-site-v";
const SCOPE = self.registration.scope; // e.g. http://host/site/
const CACHE = `${PREFIX}${VERSION} ${SCOPE}`; // per folder: two sites on one origin keep their own

self.addEventListener("install", () => self.skipWaiting()); // nothing to precache: the page's own fetches fill it

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name.endsWith(` ${SCOPE}`) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim(); // the page that registered us: its model's files go through us at once
  })());
});

const kept = (request) => request.method === "GET" && request.url.startsWith(SCOPE);
const withoutHash = (url) => url.split("#")[0];

/** Whether two responses are the same file (Last-Modified or ETag, and length, as the server sent them). */
function sameFile(a, b) {
  const header = (response, name) => response.headers.get(name);
  const validator = (r) => header(r, "etag") ?? header(r, "last-modified");
  return validator(a) !== null && validator(a) === validator(b) &&
    header(a, "content-length") === header(b, "content-length");
}

async function keep(key, response) {
  const cache = await caches.open(CACHE);
  const old = await cache.match(key);
  if (old && sameFile(old, response)) {
    await response.body?.cancel(); // this copy is not read: do not hold it in memory
    return;
  }
  await cache.put(key, response);
}

async function fromCache(request) {
  const cache = await caches.open(CACHE);
  const found = await cache.match(request.url);
  if (found || request.mode !== "navigate") return found;
  // the page at another address of the same file: index.html?golden=1, the folder itself, index.html
  return (await cache.match(request.url, { ignoreSearch: true })) ?? (await cache.match(SCOPE)) ??
    cache.match(new URL("index.html", SCOPE).href);
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (!kept(request)) return; // another origin or folder, or not a GET: the browser's own way
  event.respondWith((async () => {
    let response;
    try {
      response = await fetch(request);
    } catch (error) { // no network (or no server): the copy kept, or the same network error for the page
      const found = await fromCache(request);
      if (found) return found;
      throw error;
    }
    if (response.ok && response.type === "basic" && response.status === 200) {
      event.waitUntil(keep(withoutHash(request.url), response.clone()).catch((e) => console.warn(e)));
    }
    return response;
  })());
});

// From the page once we control it: what it fetched before (itself, its modules, style.css, site.json), kept too.
self.addEventListener("message", (event) => {
  const urls = Array.isArray(event.data?.keep) ? event.data.keep.map(String).map(withoutHash) : [];
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const url of new Set(urls.filter((url) => url.startsWith(SCOPE)))) {
      if (!(await cache.match(url))) await cache.add(url).catch((e) => console.warn(url, e));
    }
  })());
});
