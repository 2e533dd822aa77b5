// The Web Worker behind WorkerTranslator (softalign.js). It holds any number
// of translators, each under a handle; each message { id, op, handle, args }
// gets { id, ok, value } or { id, ok: false, status, detail }. Messages run
// one after another, in order; while one runs the worker reads no other (a
// translation is one synchronous call), so WorkerTranslator stops a call by
// ending the worker. translateStream posts { id, event } for each event
// during the call, which reach the page at once. translateEach and translateDetailedEach give
// an array whose failed items are { softalignError: { status, detail } }
// made SoftalignErrors again on the page (fromMessage in softalign.js).
import { Translator, SoftalignError, preload } from './softalign.js';

// The module now, while the page that started this worker may still be
// online: its translators are then made and run with no network.
preload();

const translators = new Map();
let nextHandle = 1;

// A SoftalignError in an array, as a plain object: postMessage's structured
// clone keeps neither an Error's class nor its status and detail.
function toMessage(items) {
  return items.map((x) => (x instanceof SoftalignError ? { softalignError: { status: x.status, detail: x.detail } } : x));
}

function fail(status, detail) {
  return Object.assign(new Error(detail), { status, detail });
}

self.onmessage = async (e) => {
  const { id, op, handle, args } = e.data;
  try {
    let value;
    if (op === 'create') {
      const t = await Translator.create(args[0], args[1]);
      const h = nextHandle++;
      translators.set(h, t);
      value = { handle: h, info: t.info, options: t.options };
    } else {
      const t = translators.get(handle);
      if (t === undefined) throw fail('invalid_argument', 'the translator was disposed');
      if (op === 'dispose') {
        t.dispose();
        translators.delete(handle);
      } else if (op === 'translate') {
        value = await t.translate(args[0], args[1]);
      } else if (op === 'translateStream') {
        value = await t.translateStream(args[0], (event) => {
          self.postMessage({ id, event });
          return true;
        }, args[1]);
      } else if (op === 'translateDetailed') {
        value = await t.translateDetailed(args[0], args[1]);
      } else if (op === 'translateEach') {
        value = toMessage(await t.translateEach(args[0], args[1]));
      } else if (op === 'translateDetailedEach') {
        value = toMessage(await t.translateDetailedEach(args[0], args[1]));
      } else if (op === 'arenaBytes') {
        value = t.arenaBytes();
      } else {
        throw fail('invalid_argument', `unknown operation "${op}"`);
      }
    }
    if (id !== 0) self.postMessage({ id, ok: true, value });
  } catch (err) {
    if (id !== 0) self.postMessage({ id, ok: false, status: err.status ?? 'internal', detail: err.detail ?? String(err) });
  }
};
