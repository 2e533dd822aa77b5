// softalign in the browser: the JS API over the WebAssembly module
// (softalign-core.mjs, built by platforms/web/build.sh). An ES module:
//
//   import { Translator } from './softalign.js';
//   const tr = await Translator.create(modelBytes, { beam: 4 });
//   await tr.translate('A simple text editor.');          // 'Un éditeur de texte simple.'
//   await tr.translate(['One file.', 'Open file']);       // array in, array out, in order
//   const [r] = await tr.translateDetailed('Open file');  // n-best, pieces, scores, alignment
//   await tr.translateEach(['Open file', 'x\uD800']);     // ['Ouvrir un fichier', SoftalignError]: each fails alone
//   for await (const e of tr.translateIter('One. Two.')) e.kind, e.text;  // streaming: pieces, sentences
//   tr.dispose();
//
// Stopping: the option timeoutMs (every call's deadline, checked inside the
// module: a call past it rejects with 'deadline_exceeded'); and in
// WorkerTranslator an AbortSignal ({ signal }) per call, which rejects the
// call at once with 'cancelled' and ends the busy worker, starting a new one
// for the next call (the module is one thread: a message cannot reach it
// while it translates).
//
// Every call runs on the calling thread (one translation blocks it for its
// duration); WorkerTranslator below has the same API and runs in a Web
// Worker, so a page never blocks. Errors are rejected promises carrying a
// SoftalignError whose `status` is the C API's status name ("invalid_model",
// "invalid_utf8", ...). Nothing is downloaded but the package's own files:
// the module's code is softalign-core.wasm, beside softalign-core.mjs, and
// the model is the bytes you pass.
import createSoftalignCore from './softalign-core.mjs';

let corePromise = null;

/**
 * The WebAssembly module, instantiated once per thread (page or worker). In a
 * page or a worker emscripten's loader fetches softalign-core.wasm from beside
 * softalign-core.mjs and compiles it while it downloads
 * (WebAssembly.instantiateStreaming). Node's fetch() cannot read a file: URL,
 * so under node the file is read here and handed over (wasmBinary).
 */
function core() {
  if (corePromise === null) {
    corePromise = coreArguments().then(createSoftalignCore).catch((e) => {
      throw new SoftalignError('io_error', `softalign-core.wasm (beside softalign-core.mjs) could not be loaded: ${e?.message ?? e}`);
    });
  }
  return corePromise;
}

async function coreArguments() {
  if (typeof process !== 'object' || typeof process.versions?.node !== 'string') return {};
  const { readFile } = await import('node:fs/promises');
  return { wasmBinary: await readFile(new URL('./softalign-core.wasm', import.meta.url)) };
}

/**
 * Starts loading the module now (the worker does, when it starts, so that a
 * worker started online later works offline). Its failure is reported by the
 * first call that needs the module.
 */
export function preload() {
  core().catch(() => {});
}

export class SoftalignError extends Error {
  constructor(status, detail) {
    if (detail.startsWith(`${status}: `)) detail = detail.slice(status.length + 2);
    super(`${status}: ${detail}`);
    this.name = 'SoftalignError';
    this.status = status;   // "invalid_model", "invalid_argument", ... (softalign_status_name)
    this.detail = detail;   // the library's message
  }
}

function check(M, code) {
  if (code !== 0) {
    throw new SoftalignError(M.UTF8ToString(M._softalign_status_name(code)),
                             M.UTF8ToString(M._softalign_last_error()));
  }
}

function toUint8(bytes) {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new SoftalignError('invalid_argument', 'modelBytes must be an ArrayBuffer, a typed array or a Blob');
}

const encoder = new TextEncoder();

// Whether a string is well-formed UTF-16 (no lone surrogate): the built-in
// where there is one (node 20, Chromium 111), else a regex (with the u flag a
// pair is one code point, so only a lone surrogate matches).
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const wellFormed = typeof String.prototype.isWellFormed === 'function'
  ? (s) => s.isWellFormed()
  : (s) => !LONE_SURROGATE.test(s);

/**
 * A string's characters in UTF-8, written so that the library's one rule for
 * text decides what is not text (docs/guarantees.md), as for a C, Python or
 * Java caller: a lone surrogate is its own 3 bytes (ED A0..BF 80..BF, which
 * are not UTF-8) and U+0000 the 2 bytes C0 80 (a NUL as modified UTF-8 writes
 * it, which a C string can carry and which is not UTF-8). The library refuses
 * both (invalid_utf8) or, with replaceInvalidUtf8, writes one U+FFFD for each.
 * (TextEncoder would write a lone surrogate as U+FFFD whatever the option.)
 */
function textBytes(s) {
  if (wellFormed(s) && !s.includes('\0')) return encoder.encode(s);
  const out = [];
  for (let i = 0; i < s.length; ++i) {
    const c = s.charCodeAt(i);
    if (c !== 0 && c < 0x80) {
      out.push(c);
    } else if (c < 0x800) {  // U+0000 included: C0 80
      out.push(0xC0 | (c >> 6), 0x80 | (c & 0x3F));
    } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < s.length &&
               s.charCodeAt(i + 1) >= 0xDC00 && s.charCodeAt(i + 1) <= 0xDFFF) {
      const cp = 0x10000 + ((c - 0xD800) << 10) + (s.charCodeAt(++i) - 0xDC00);
      out.push(0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F));
    } else {  // a lone surrogate included: ED A0..BF 80..BF
      out.push(0xE0 | (c >> 12), 0x80 | ((c >> 6) & 0x3F), 0x80 | (c & 0x3F));
    }
  }
  return Uint8Array.from(out);
}

/**
 * A copy of a JS string as NUL-terminated UTF-8 in the module's memory
 * (sa_web_free it), by textBytes: it never holds a NUL byte before its end.
 */
function cString(M, s) {
  const bytes = textBytes(s);
  const p = M._sa_web_alloc(bytes.length + 1);
  if (p === 0) throw new SoftalignError('resource_exhausted', 'out of memory for the text');
  M.HEAPU8.set(bytes, p);
  M.HEAPU8[p + bytes.length] = 0;
  return p;
}

// Options and results cross as the library's JSON: its option names are
// snake_case (max_len_a), this API's camelCase (maxLenA); only the options
// given are passed, the library holds every default (softalign.h:
// softalign_option_defaults_json) and refuses an unknown name or a value of
// the wrong type (invalid_argument).
const snakeCase = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camelCase = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** The options given, as the library's JSON (NaN and Infinity as strings: refused, not null). */
function optionsJson(options) {
  const o = {};
  for (const [k, v] of Object.entries(options)) o[snakeCase(k)] = v;
  return JSON.stringify(o, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
}

/** The library's JSON object with camelCase keys. */
function camelKeys(o) {
  const out = {};
  for (const [k, v] of Object.entries(o)) out[camelCase(k)] = v;
  return out;
}

/**
 * A result as this API gives it, from the library's JSON (softalign_result_json):
 * { sourcePieces, protectedSpans, glossaryMatches, hypotheses: [{ text, score,
 * logProb, confidence, placeholdersRepaired, ids, pieces, alignment?: { rows,
 * cols, weights: Float32Array }, pharaoh?, pharaohWords? }] }.
 */
function fromLibrary(r) {
  if (r.failed !== undefined) return r;
  const hypotheses = r.hypotheses.map((h) => {
    const out = {
      text: h.text, score: h.score, logProb: h.log_prob, confidence: h.confidence,
      placeholdersRepaired: h.placeholders_repaired, ids: h.ids, pieces: h.pieces,
    };
    if (h.attention) {
      const rows = h.attention.length;
      const cols = rows > 0 ? h.attention[0].length : 0;
      out.alignment = { rows, cols, weights: Float32Array.from(h.attention.flat()) };
      out.pharaoh = h.alignment;
      out.pharaohWords = h.word_alignment;
    }
    return out;
  });
  return {
    sourcePieces: r.source_pieces, protectedSpans: r.protected_spans, glossaryMatches: r.glossary_matches,
    hypotheses,
  };
}

export class Translator {
  /** @private use Translator.create */
  constructor(M, model, translator, bytesPtr, info, options) {
    this._M = M;
    this._model = model;
    this._tr = translator;
    this._bytes = bytesPtr;
    this.info = info;         // the model's name, languages, variant, weight type, vocabularies, ...
    this.options = options;   // the options as prepared (every one; the model's defaults filled in)
  }

  /**
   * Loads a model from its bytes (ArrayBuffer, typed array or Blob) and makes
   * a translator. Rejects with a SoftalignError ("invalid_model" for a
   * damaged file, "unsupported_version", "invalid_argument" for bad options).
   */
  static async create(modelBytes, options = {}) {
    if (typeof Blob !== 'undefined' && modelBytes instanceof Blob) modelBytes = await modelBytes.arrayBuffer();
    const bytes = toUint8(modelBytes);
    if (options === null || typeof options !== 'object' || Array.isArray(options))
      throw new SoftalignError('invalid_argument', 'options must be an object');
    const M = await core();
    const out = M._sa_web_alloc(8);
    const data = M._sa_web_alloc(bytes.length);
    let model = 0;
    let json = 0;
    try {
      if (data === 0) throw new SoftalignError('resource_exhausted', `no memory for a ${bytes.length}-byte model`);
      M.HEAPU8.set(bytes, data);
      check(M, M._sa_web_model_load(data, bytes.length, out));
      model = M.getValue(out, 'i32');
      const infoPtr = M._sa_web_model_info(model);
      const info = JSON.parse(M.UTF8ToString(infoPtr));
      M._sa_web_free(infoPtr);
      json = cString(M, optionsJson(options));
      check(M, M._sa_web_translator_create(model, json, out));
      const tr = M.getValue(out, 'i32');
      // The options as prepared: every one, the model's defaults filled in.
      const used = camelKeys(JSON.parse(M.UTF8ToString(M._softalign_translator_options_json(tr))));
      return new Translator(M, model, tr, data, info, used);
    } catch (e) {
      if (model !== 0) M._softalign_model_free(model);
      M._sa_web_free(data);
      throw e;
    } finally {
      M._sa_web_free(json);
      M._sa_web_free(out);
    }
  }

  /** The library's version, e.g. "0.1.0". */
  static async version() {
    const M = await core();
    return M.UTF8ToString(M._softalign_version());
  }

  /** Bytes of working memory the translator reserved. */
  arenaBytes() {
    this._live();
    return this._M._softalign_translator_arena_bytes(this._tr) >>> 0;
  }

  _live() {
    if (this._tr === 0) throw new SoftalignError('invalid_argument', 'the translator was disposed');
  }

  /**
   * The full results: for a string, one result; for an array, one per text,
   * in order. A result is { sourcePieces, hypotheses: [{ text, score, logProb,
   * confidence, ids, pieces, alignment?: { rows, cols, weights }, pharaoh?, pharaohWords? }] },
   * n-best hypotheses best first. options.prefix (one text only) forces the
   * translation's beginning.
   */
  async translateDetailed(input, options = {}) {
    this._live();
    const M = this._M;
    const many = Array.isArray(input);
    const texts = many ? input : [input];
    for (const t of texts)
      if (typeof t !== 'string') throw new SoftalignError('invalid_argument', 'texts must be strings');
    const prefix = options.prefix ?? '';
    if (prefix !== '' && texts.length !== 1)
      throw new SoftalignError('invalid_argument', 'a prefix goes with one text');
    let prefixPtr = 0;
    try {
      prefixPtr = cString(M, prefix);
      const results = this._translate(texts, (array, out) =>
        M._sa_web_translate(this._tr, array, texts.length, prefixPtr, out), options);
      return many ? results : results[0];
    } finally {
      M._sa_web_free(prefixPtr);
    }
  }

  /**
   * The texts in the module's memory, the call (array, out) => status over
   * them, and its JSON array of results parsed (alignments as Float32Array).
   * options.timeoutMs: this call's deadline (softalign_translator_set_timeout_ms
   * before it, and back to the translator's after it).
   */
  _translate(texts, call, options = {}) {
    const M = this._M;
    const timed = options.timeoutMs !== undefined;
    if (timed && !(Number.isInteger(options.timeoutMs) && options.timeoutMs >= 0))
      throw new SoftalignError('invalid_argument', `timeoutMs must be an integer >= 0, got ${options.timeoutMs}`);
    const ptrs = [];
    const array = M._sa_web_alloc(4 * Math.max(texts.length, 1));
    const out = M._sa_web_alloc(8);
    try {
      if (timed) check(M, M._softalign_translator_set_timeout_ms(this._tr, options.timeoutMs));
      for (let i = 0; i < texts.length; ++i) {
        ptrs.push(cString(M, texts[i]));
        M.setValue(array + 4 * i, ptrs[i], 'i32');
      }
      check(M, call(array, out));
      const json = M.getValue(out, 'i32');
      const results = JSON.parse(M.UTF8ToString(json));
      M._sa_web_free(json);
      return results.map(fromLibrary);
    } finally {
      if (timed) M._softalign_translator_set_timeout_ms(this._tr, -1);
      for (const p of ptrs) M._sa_web_free(p);
      M._sa_web_free(array);
      M._sa_web_free(out);
    }
  }

  /**
   * Streaming: translates one text as translateDetailed does, calling
   * onEvent({ kind, index, id, text }) for each finished sentence (kind
   * 'sentence', text its translation; a text within maxSourceTokens is one
   * sentence, a longer one is split) and, with beam 1, each decoder step's
   * piece (kind 'piece', id and text the piece) as the call goes on, on
   * this thread. onEvent returning false stops it: the promise rejects with
   * 'cancelled'. Resolves to the result. options.timeoutMs: the call's deadline.
   */
  async translateStream(text, onEvent, options = {}) {
    this._live();
    if (typeof text !== 'string') throw new SoftalignError('invalid_argument', 'text must be a string');
    if (typeof onEvent !== 'function') throw new SoftalignError('invalid_argument', 'onEvent must be a function');
    const M = this._M;
    let thrown = null;
    M.onStreamEvent = (kind, index, id, piece) => {
      try {
        return onEvent({ kind: kind === 0 ? 'piece' : 'sentence', index, id, text: piece }) === false;
      } catch (e) {
        thrown = e;
        return true;
      }
    };
    try {
      return this._translate([text], (array, out) => M._sa_web_translate_stream(this._tr, M.getValue(array, 'i32'), out),
        options)[0];
    } catch (e) {
      throw thrown ?? e;  // onEvent's own exception, which stopped the call
    } finally {
      M.onStreamEvent = null;
    }
  }

  /**
   * The events of translateStream as an async iterator. Here, on the
   * calling thread, they come when the translation is done;
   * WorkerTranslator's come as they happen. Its return value is the result.
   */
  async *translateIter(text, options = {}) {
    const events = [];
    const result = await this.translateStream(text, (e) => { events.push(e); }, options);
    yield* events;
    return result;
  }

  /** The translation of a string, or of each string of an array (in order). */
  async translate(input, options = {}) {
    const r = await this.translateDetailed(input, options);
    return Array.isArray(input) ? r.map((x) => x.hypotheses[0].text) : r.hypotheses[0].text;
  }

  /**
   * An array of texts translated together, each failing alone
   * (softalign_translate_batch_status): one item per text, in order, its full
   * result (as translateDetailed gives it) or, for a text that fails (invalid
   * text, a line over the line limit, a source too long without splitting),
   * the SoftalignError it failed with, in its place and not thrown; its
   * detail is the one the text gets alone, after its index
   * ("texts[3]: the input is not valid UTF-8 (at byte 1)"). translate() and
   * translateDetailed() with an array stay all or nothing. Rejects only for a
   * wrong call (not an array, an item not a string, a disposed translator) or
   * an error of the call itself, not of a text. options.timeoutMs: the
   * call's deadline (the texts not done by then get deadline_exceeded).
   */
  async translateDetailedEach(texts, options = {}) {
    this._live();
    if (!Array.isArray(texts)) throw new SoftalignError('invalid_argument', 'texts must be an array of strings');
    for (const t of texts)
      if (typeof t !== 'string') throw new SoftalignError('invalid_argument', 'texts must be strings');
    const M = this._M;
    const items = this._translate(texts, (array, out) =>
      M._sa_web_translate_each(this._tr, array, texts.length, out), options);
    for (let i = 0; i < items.length; ++i)
      if (items[i].failed !== undefined) items[i] = this._itemError(texts[i], i, items[i].failed);
    return items;
  }

  /** The translation of each text of an array, or the SoftalignError it failed with in its place (translateDetailedEach). */
  async translateEach(texts, options = {}) {
    const r = await this.translateDetailedEach(texts, options);
    return r.map((x) => (x instanceof SoftalignError ? x : x.hypotheses[0].text));
  }

  /**
   * The error of text i, which failed in a batch with this status code. The
   * C API names only the first failure, so the text is translated again alone
   * for its own message: a text fails for what it is (invalid text, length)
   * before it is translated, so this costs little. A text stopped by the
   * call's deadline is not translated again.
   */
  _itemError(text, i, code) {
    const M = this._M;
    const status = M.UTF8ToString(M._softalign_status_name(code));
    // A text the call's stop (a deadline; a cancel) left undone: nothing of its own to tell, and
    // translating it again would run past the stop.
    if (status === 'deadline_exceeded' || status === 'cancelled')
      return new SoftalignError(status, `texts[${i}]: the call stopped before this text was done`);
    let detail = 'failed in a batch';
    try {
      this._translate([text], (array, out) => M._sa_web_translate(this._tr, array, 1, 0, out));
      detail += ' (translated alone, it did not fail)';
    } catch (e) {
      if (e.status === status) detail = e.detail;
      else detail += ` (translated alone: ${e.message})`;
    }
    return new SoftalignError(status, `texts[${i}]: ${detail}`);
  }

  /** Frees the translator, the model and its bytes. Calls after it reject. */
  dispose() {
    if (this._tr === 0) return;
    this._M._softalign_translator_free(this._tr);
    this._M._softalign_model_free(this._model);
    this._M._sa_web_free(this._bytes);
    this._tr = 0;
    this._model = 0;
    this._bytes = 0;
  }
}

/**
 * translate(Detailed)Each's items from the worker: a structured clone of an
 * Error keeps neither its class nor its status and detail, so a
 * SoftalignError travels as { softalignError: { status, detail } }
 * (softalign-worker.js).
 */
function fromMessage(items) {
  return items.map((x) => (x !== null && typeof x === 'object' && x.softalignError
    ? new SoftalignError(x.softalignError.status, x.softalignError.detail) : x));
}

/**
 * The same API in a Web Worker (softalign-worker.js): the model is loaded and
 * every translation runs off the page's thread. create() transfers a copy of
 * the bytes to the worker (pass { transfer: true } to hand over an
 * ArrayBuffer instead of copying it). By default each translator starts its
 * own worker, which fetches softalign-worker.js, softalign.js,
 * softalign-core.mjs and softalign-core.wasm when it starts; a page that
 * must keep working offline makes one worker while it is online
 * (WorkerTranslator.startWorker()) and passes it as { worker } to every
 * create(): a worker holds any number of translators
 * (their calls run one after another), and dispose() then frees the
 * translator and leaves the worker running.
 */
let nextMessageId = 1;

const aborted = () => new SoftalignError('cancelled',
  'aborted (AbortSignal): the busy worker was ended; a new one serves the next call');

export class WorkerTranslator {
  constructor(worker, owned, workerUrl) {
    this._owned = owned;
    this._workerUrl = workerUrl;
    this._pending = new Map();
    this._handle = 0;  // the translator's handle in the worker
    this._ready = Promise.resolve();  // a restarted worker's translator, made again
    this._remake = null;  // [model bytes, options]: to make it again in a new worker (owned workers)
    this.info = null;
    this.options = null;
    this._onmessage = (e) => this._reply(e.data);
    this._onerror = (e) => {
      const why = e.message || 'the worker failed to start (softalign-worker.js or its imports could not be loaded)';
      for (const { reject } of this._pending.values()) reject(new SoftalignError('internal', `worker: ${why}`));
      this._pending.clear();
    };
    this._attach(worker);
  }

  _attach(worker) {
    this._worker = worker;
    worker.addEventListener('message', this._onmessage);
    worker.addEventListener('error', this._onerror);
  }

  _detach() {
    this._worker.removeEventListener('message', this._onmessage);
    this._worker.removeEventListener('error', this._onerror);
  }

  /** A worker for create({ worker }) (softalign-worker.js beside softalign.js, or workerUrl). */
  static startWorker(workerUrl = undefined) {
    return new Worker(workerUrl ?? new URL('./softalign-worker.js', import.meta.url), { type: 'module' });
  }

  /**
   * Its own worker (the default) keeps a copy of the model's bytes, to make
   * the translator again in a new worker after an aborted call.
   */
  static async create(modelBytes, options = {}, { worker, workerUrl, transfer = false } = {}) {
    if (typeof Blob !== 'undefined' && modelBytes instanceof Blob) {
      modelBytes = await modelBytes.arrayBuffer();
      transfer = true;
    }
    let bytes = toUint8(modelBytes);
    if (!transfer || bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) bytes = bytes.slice();
    const w = new WorkerTranslator(worker ?? WorkerTranslator.startWorker(workerUrl), !worker, workerUrl);
    if (!worker) w._remake = [bytes.slice(), options];
    try {
      const { handle, info, options: used } = await w._post('create', [bytes.buffer, options], [bytes.buffer]);
      w._handle = handle;
      w.info = info;
      w.options = used;
      return w;
    } catch (e) {
      w.dispose();
      throw e;
    }
  }

  /** A call, once the translator is there; { signal, onEvent } as _post takes them. */
  async _call(op, args, how = {}) {
    await this._ready;
    return this._post(op, args, [], how);
  }

  /**
   * Posts a call. signal (an AbortSignal): its abort rejects the call at
   * once (_abort). onEvent: told the call's stream events.
   */
  _post(op, args, transfer = [], { signal, onEvent } = {}) {
    if (this._worker === null)
      return Promise.reject(new SoftalignError('invalid_argument', 'the translator was disposed'));
    if (signal?.aborted) return Promise.reject(aborted());
    const id = nextMessageId++;
    return new Promise((resolve, reject) => {
      const call = { resolve, reject, onEvent, done: () => {} };
      if (signal) {
        const abort = () => this._abort(id);
        signal.addEventListener('abort', abort, { once: true });
        call.done = () => signal.removeEventListener('abort', abort);
      }
      this._pending.set(id, call);
      this._worker.postMessage({ id, op, handle: this._handle, args }, transfer);
    });
  }

  _reply({ id, ok, value, status, detail, event }) {
    const p = this._pending.get(id);
    if (!p) return;
    if (event !== undefined) {
      p.onEvent?.(event);
      return;
    }
    this._pending.delete(id);
    p.done();
    if (ok) p.resolve(value);
    else p.reject(new SoftalignError(status, detail));
  }

  /**
   * An aborted call. The worker reads no message while it translates, so
   * its own worker is ended (terminate: at once) and a new one makes the
   * translator again for the next calls; the calls waiting in the old one
   * are rejected too ('cancelled'). In a worker passed to create(), which
   * other translators share, the call is rejected at once but runs on to its
   * end there, its result dropped.
   */
  _abort(id) {
    const call = this._pending.get(id);
    if (!call) return;
    this._pending.delete(id);
    call.done();
    call.reject(aborted());
    if (!this._owned || this._worker === null) return;
    for (const other of this._pending.values()) {
      other.done();
      other.reject(new SoftalignError('cancelled', 'another call of this translator was aborted: its worker was ended'));
    }
    this._pending.clear();
    this._detach();
    this._worker.terminate();
    this._attach(WorkerTranslator.startWorker(this._workerUrl));
    this._handle = 0;
    const [bytes, options] = this._remake;
    const copy = bytes.slice();
    this._ready = this._post('create', [copy.buffer, options], [copy.buffer]).then(({ handle }) => {
      this._handle = handle;
    });
  }

  /** options: translateDetailed's (prefix, timeoutMs) and signal (an AbortSignal). */
  translate(input, { signal, ...options } = {}) { return this._call('translate', [input, options], { signal }); }
  translateDetailed(input, { signal, ...options } = {}) {
    return this._call('translateDetailed', [input, options], { signal });
  }
  async translateEach(texts, { signal, ...options } = {}) {
    return fromMessage(await this._call('translateEach', [texts, options], { signal }));
  }
  async translateDetailedEach(texts, { signal, ...options } = {}) {
    return fromMessage(await this._call('translateDetailedEach', [texts, options], { signal }));
  }
  /** Translator.translateStream in the worker: onEvent is told each event as it happens. */
  translateStream(text, onEvent, { signal, ...options } = {}) {
    return this._call('translateStream', [text, options], { signal, onEvent });
  }
  /**
   * The stream's events as an async iterator, as they happen; its return
   * value is the result. Leaving the loop early (break) stops the call as
   * an abort does.
   */
  async *translateIter(text, { signal, ...options } = {}) {
    const queue = [];
    let wake = () => {};
    let end = null;  // { result } or { error }
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.translateStream(text, (e) => { queue.push(e); wake(); }, { ...options, signal: stop.signal }).then(
      (result) => { end = { result }; wake(); }, (error) => { end = { error }; wake(); });
    try {
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift();
        } else if (end !== null) {
          if (end.error) throw end.error;
          return end.result;
        } else {
          await new Promise((resolve) => { wake = resolve; });
        }
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (end === null) stop.abort();  // left early: the call stops
    }
  }
  arenaBytes() { return this._call('arenaBytes', []); }

  /** Frees the translator: ends its worker, or frees the model in a worker passed to create(). */
  dispose() {
    if (this._worker === null) return;
    for (const p of this._pending.values()) {
      p.done();
      p.reject(new SoftalignError('invalid_argument', 'the translator was disposed'));
    }
    this._pending.clear();
    this._detach();
    if (this._owned) this._worker.terminate();
    else if (this._handle !== 0) this._worker.postMessage({ id: 0, op: 'dispose', handle: this._handle, args: [] });
    this._worker = null;
  }
}
