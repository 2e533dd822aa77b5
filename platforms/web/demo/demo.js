// The offline demo page: a model from a file (picked or dropped) or the
// shipped one, translated in a Web Worker (WorkerTranslator), the attention
// drawn as a heat map. Nothing is sent anywhere: after the page and the model
// are loaded, it works with no network. While a translation runs, Translate
// is disabled and Stop aborts it (an AbortSignal): the busy worker is ended
// and the spare one, started with the page, takes over.
import { WorkerTranslator } from '../softalign.js';

const $ = (id) => document.getElementById(id);
const SHIPPED = new URL('../models/', import.meta.url);  // the shipped models, listed in index.json
// The worker, and a spare for after a Stop, both started now (while the
// page is online): loading another model or stopping later needs no network.
let worker = WorkerTranslator.startWorker();
let spare = WorkerTranslator.startWorker();
let translator = null;
let last = null;  // { bytes, name }: the model loaded last, kept to reload it with another beam
let running = null;  // the AbortController of the translation under way

const translatorOptions = () => ({ beam: Number($('beam').value), nbest: 2, alignment: true });

function showError(e) {
  const box = $('error');
  box.textContent = e ? (e.status ? `${e.status}: ${e.detail}` : String(e)) : '';
  box.hidden = !e;
}

async function load(bytesPromise, name) {
  showError(null);
  $('translate').disabled = true;
  $('model-status').textContent = `Loading ${name} ...`;
  if (translator) translator.dispose();
  translator = null;
  const t0 = performance.now();
  try {
    const bytes = await bytesPromise;
    last = { bytes: bytes.slice(0), name };
    const tr = await WorkerTranslator.create(bytes, translatorOptions(), { transfer: true, worker });
    const ms = performance.now() - t0;
    translator = tr;
    const i = tr.info;
    $('model-status').textContent = `${name}: ${i.name} (${i.srcLang} → ${i.tgtLang}, ${i.variant}, ${i.weightType}, ` +
      `${(i.fileBytes / 1048576).toFixed(1)} MiB), beam ${tr.options.beam || i.defaultBeam}; loaded in ${ms.toFixed(0)} ms`;
    $('model-status').dataset.loadMs = ms.toFixed(1);
    $('translate').disabled = false;
    await translate();
  } catch (e) {
    $('model-status').textContent = `${name}: not loaded.`;
    showError(e);
  }
}

function heatmap(result) {
  const h = result.hypotheses[0];
  const div = $('heatmap');
  div.textContent = '';
  if (!h.alignment) return;
  const { rows, cols, weights } = h.alignment;
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement('th'));
  const src = [...result.sourcePieces, '</s>'];
  const tgt = [...h.pieces, '</s>'];
  for (let j = 0; j < cols; ++j) {
    const th = document.createElement('th');
    th.textContent = src[j];
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (let i = 0; i < rows; ++i) {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.textContent = tgt[i];
    tr.appendChild(th);
    for (let j = 0; j < cols; ++j) {
      const w = weights[i * cols + j];
      const td = tr.insertCell();
      td.style.background = `rgba(9, 105, 218, ${Math.min(1, Math.max(0, w)).toFixed(3)})`;
      td.title = `${tgt[i]} ← ${src[j]}: ${w.toFixed(3)}`;
    }
  }
  div.appendChild(table);
}

// Busy: Translate disabled and Stop offered while a translation runs.
function busy(on) {
  $('translate').disabled = on || !translator;
  $('stop').hidden = !on;
}

async function translate() {
  if (!translator || running) return;
  const out = $('output');
  const text = $('source').value;
  // The old translation goes at once: what is shown is always this text's.
  out.textContent = '';
  $('nbest').textContent = '';
  $('heatmap').textContent = '';
  $('time').textContent = '';
  out.dataset.state = 'busy';
  showError(null);
  running = new AbortController();
  busy(true);
  const t0 = performance.now();
  try {
    const lines = text.split('\n');
    const results = await translator.translateDetailed(lines, { signal: running.signal });
    const ms = performance.now() - t0;
    out.textContent = results.map((r) => r.hypotheses[0].text).join('\n');
    const last = results.filter((r) => r.hypotheses[0].pieces.length > 0).pop() ?? results[0];
    $('nbest').textContent = last.hypotheses.length > 1 ? `2nd best: ${last.hypotheses[1].text}` : '';
    heatmap(last);
    $('time').textContent = `${ms.toFixed(0)} ms (${lines.length} line${lines.length > 1 ? 's' : ''}, in a Web Worker)`;
    out.dataset.ms = ms.toFixed(1);
    out.dataset.state = 'done';
  } catch (e) {
    if (e.status === 'cancelled') {
      out.dataset.ms = (performance.now() - t0).toFixed(1);
      $('time').textContent = 'stopped';
      out.dataset.state = 'stopped';
      running = null;
      await replaceWorker();
    } else {
      showError(e);
      out.dataset.state = 'error';
    }
  } finally {
    running = null;
    busy(false);
  }
}

// After a Stop: the worker is still in the stopped call (it reads no message
// until it ends), so it is ended; the spare takes over with the same model.
async function replaceWorker() {
  const old = worker;
  worker = spare;
  translator?.dispose();
  translator = null;
  old.terminate();
  try {
    translator = await WorkerTranslator.create(last.bytes.slice(0), translatorOptions(), { transfer: true, worker });
    spare = WorkerTranslator.startWorker();  // for the next Stop (from the cache, or the network)
  } catch (e) {
    showError(e);
  }
}

$('file').addEventListener('change', (e) => {
  const f = e.target.files[0];
  if (f) load(f.arrayBuffer(), f.name);
});
// The shipped models served beside the page, in a list to pick from (the
// first, en-fr, selected).
fetch(new URL('index.json', SHIPPED)).then((r) => (r.ok ? r.json() : [])).then((models) => {
  for (const m of models) {
    const option = document.createElement('option');
    option.value = m.file;
    option.textContent = `${m.file.replace(/\.softalign$/, '')} (${(m.bytes / 1048576).toFixed(1)} MiB)`;
    $('shipped-model').append(option);
  }
}, () => {});
$('shipped').addEventListener('click', () => {
  const name = $('shipped-model').value;
  if (!name) {
    showError(new Error('no shipped model is served here'));
    return;
  }
  load(fetch(new URL(name, SHIPPED)).then((r) => {
    if (!r.ok) throw new Error(`the shipped model ${name} is not served here (${r.status})`);
    return r.arrayBuffer();
  }), name);
});
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  const f = e.dataTransfer.files[0];
  if (f) load(f.arrayBuffer(), f.name);
});
$('translate').addEventListener('click', translate);
$('stop').addEventListener('click', () => running?.abort());
$('source').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) translate();
});
$('beam').addEventListener('change', () => {
  if (last) load(Promise.resolve(last.bytes.slice(0)), last.name);
});
