// The Web Worker behind WorkerTranslator (softalign.js): one Translator per
// worker; each message { id, op, args } gets { id, ok, value } or
// { id, ok: false, status, detail }.
import { Translator } from './softalign.js';

let translator = null;

self.onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    let value;
    if (op === 'create') {
      if (translator !== null) translator.dispose();
      translator = await Translator.create(args[0], args[1]);
      value = { info: translator.info, options: translator.options };
    } else if (op === 'dispose') {
      if (translator !== null) translator.dispose();
      translator = null;
    } else if (translator === null) {
      throw Object.assign(new Error('no model loaded'), { status: 'invalid_argument', detail: 'no model loaded' });
    } else if (op === 'translate') {
      value = await translator.translate(args[0], args[1]);
    } else if (op === 'translateDetailed') {
      value = await translator.translateDetailed(args[0], args[1]);
    } else if (op === 'arenaBytes') {
      value = translator.arenaBytes();
    } else {
      throw Object.assign(new Error(op), { status: 'invalid_argument', detail: `unknown operation "${op}"` });
    }
    self.postMessage({ id, ok: true, value });
  } catch (err) {
    self.postMessage({ id, ok: false, status: err.status ?? 'internal', detail: err.detail ?? String(err) });
  }
};
