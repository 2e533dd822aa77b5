// wasm.chromium: the demo page (platforms/web/demo/) in a real headless
// Chromium, driven over the DevTools protocol (--remote-debugging-pipe: no
// WebSocket library needed).
//
//   node chromium_test.mjs --chromium /usr/bin/chromium --web BUILD/web \
//        --model models/en-fr/en-fr.int8.softalign --expected tests/expected_en-fr.int8.json \
//        [--screenshot docs/web-demo.png] [--runs N]
//
// The page is served from 127.0.0.1 by this script; after the shipped model
// is loaded the server is closed and the page put offline, so every
// translation runs with no network. Checks: the page lists the shipped
// models served (en-fr first) and each other one loads and translates; each
// sentence's translation equals the native CLI's (the expected file), the
// page's main thread keeps
// running while a translation is under way (it runs in a Web Worker), and a
// damaged model file picked in the file input shows an invalid_model error
// (not a hang); in the worker, translateEach gives a bad text its error in
// its place; a 900 kB line aborted (AbortSignal) after 100 ms rejects with
// 'cancelled' and the same translator then translates a short line; the
// timeoutMs deadline; translateIter's events equal the result, and leaving
// its loop stops the call; the page's Stop button (busy state, old output
// cleared). Prints the load time and per-sentence times.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serve, launch } from './chromium.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const webDir = path.resolve(args.web);
const expected = JSON.parse(readFileSync(args.expected, 'utf8'));
const runs = Number(args.runs ?? 1);
const deadline = setTimeout(() => fail('timed out (240 s)'), 240_000);

let browser = null;
function fail(msg) {
  console.log(`FAIL ${msg}`);
  browser?.close();
  process.exit(1);
}

// The page from a static server, closed once the model is loaded.
const server = await serve(webDir);
const base = server.base;
browser = await launch(args.chromium, fail);
const { S, evaluate, waitFor, once, tmp } = browser;

let failures = 0;
function check(ok, msg) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${msg}`);
  if (!ok) failures++;
}

try {
  await S('Page.enable');
  await S('Runtime.enable');
  await S('Network.enable');
  await S('Network.setCacheDisabled', { cacheDisabled: true });
  const loaded = once('Page.loadEventFired');
  await S('Page.navigate', { url: `${base}/demo/index.html` });
  await loaded;
  const version = await S('Browser.getVersion');
  console.log(`${version.product}, page ${base}/demo/index.html`);

  // The shipped models listed to pick from: every .softalign the web folder
  // serves in models/ (the build copies models/*/*.softalign), --model's
  // first. Each other one loads and translates the page's text; then --model.
  const served = readdirSync(path.join(webDir, 'models')).filter((f) => f.endsWith('.softalign')).sort();
  const listed = await waitFor(`(() => {
    const o = [...document.getElementById('shipped-model').options].map((x) => x.value);
    return o.length ? o : null; })()`, 'the list of shipped models');
  check(JSON.stringify([...listed].sort()) === JSON.stringify(served) && listed[0] === path.basename(args.model),
        `the page lists the shipped models, ${path.basename(args.model)} first (${listed.join(', ')})`);
  const pick = (name) => evaluate(`(() => { document.getElementById('shipped-model').value = ${JSON.stringify(name)};
    document.getElementById('shipped').click(); })()`);
  for (const name of listed.slice(1)) {
    await pick(name);
    await waitFor(`!document.getElementById('translate').disabled || !document.getElementById('error').hidden`,
                  `${name} to load`);
    await waitFor(`['done', 'error'].includes(document.getElementById('output').dataset.state)`, `${name}'s translation`);
    const r = await evaluate(`({ error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent,
      status: document.getElementById('model-status').textContent, output: document.getElementById('output').textContent })`);
    check(!r.error && r.status.startsWith(`${name}:`) && r.output.trim() !== '',
          `${name} loads and translates${r.error ? ': ' + r.error : ''} (${r.output.trim().split('\n')[0].slice(0, 60)})`);
  }

  // The shipped model, then no network.
  await pick(path.basename(args.model));
  await waitFor(`!document.getElementById('translate').disabled || !document.getElementById('error').hidden`,
                'the shipped model to load');
  const err0 = await evaluate(`document.getElementById('error').hidden ? '' : document.getElementById('error').textContent`);
  check(err0 === '', `the shipped model loads${err0 ? ': ' + err0 : ''}`);
  const loadMs = Number(await evaluate(`document.getElementById('model-status').dataset.loadMs`));
  console.log(`     ${await evaluate(`document.getElementById('model-status').textContent`)}`);
  await waitFor(`document.getElementById('output').dataset.state === 'done'`, 'the first translation');
  // Two translators in one worker (the API directly, not the page's UI):
  // each keeps its own model and options; disposing one leaves the other.
  const two = await evaluate(`(async () => {
    const { WorkerTranslator, SoftalignError } = await import('/softalign.js');
    const bytes = await (await fetch('/models/en-fr.int8.softalign')).arrayBuffer();
    const w = WorkerTranslator.startWorker();
    const a = await WorkerTranslator.create(bytes, { beam: 1 }, { worker: w });
    const b = await WorkerTranslator.create(bytes, { beam: 4, nbest: 2 }, { worker: w });
    const ra = await a.translateDetailed('Open file');
    const rb = await b.translateDetailed('Open file');
    // A text that fails fails alone, its SoftalignError rebuilt on this side of postMessage.
    const each = await b.translateEach(['One file.', 'x\\uD800y', 'One file.']);
    const eachOk = each.length === 3 && each[0] === 'Un fichier.' && each[2] === each[0] &&
      each[1] instanceof SoftalignError && each[1].status === 'invalid_utf8' && each[1].detail.startsWith('texts[1]: ');
    const detailedEach = await b.translateDetailedEach(['x\\u0000', 'Open file']);
    const detailedOk = detailedEach[0] instanceof SoftalignError && detailedEach[1].hypotheses.length === 2;
    b.dispose();
    let status = '';
    try { await b.translate('Open file'); } catch (e) { status = e.status; }
    const again = await a.translate('One file.');
    a.dispose();
    w.terminate();
    return { na: ra.hypotheses.length, nb: rb.hypotheses.length, status, again, eachOk, detailedOk,
             each: each.map(String) };
  })()`);
  check(two.na === 1 && two.nb === 2 && two.status === 'invalid_argument' && two.again === 'Un fichier.',
        `two translators in one worker: ${JSON.stringify(two)}`);
  check(two.eachOk && two.detailedOk, `translateEach in a worker: a bad text fails alone: ${JSON.stringify(two.each)}`);
  // Stopping and streaming in a worker of its own (while online: after an
  // abort it starts a new worker, which loads the scripts again).
  const stop = await evaluate(`(async () => {
    const { WorkerTranslator } = await import('/softalign.js');
    const bytes = await (await fetch('/models/en-fr.int8.softalign')).arrayBuffer();
    const s = 'This package contains the documentation. A simple text editor with many plugins. ';
    const huge = s.repeat(Math.floor(900 * 1024 / s.length)).trim();
    const tr = await WorkerTranslator.create(bytes, { beam: 1 });
    const expected = await tr.translate('A simple text editor.');
    const ac = new AbortController();
    const t0 = performance.now();
    let abortedAt = 0;
    setTimeout(() => { abortedAt = performance.now(); ac.abort(); }, 100);
    let status = '';
    try { await tr.translate(huge, { signal: ac.signal }); } catch (e) { status = e.status; }
    const abortMs = performance.now() - abortedAt;
    const after = await tr.translate('A simple text editor.');
    // The deadline, checked inside the module: the worker goes on.
    const timed = await WorkerTranslator.create(bytes, { beam: 4, timeoutMs: 100 });
    const t1 = performance.now();
    let deadline = '';
    try { await timed.translate(huge); } catch (e) { deadline = e.status; }
    const deadlineMs = performance.now() - t1;
    const timedAfter = await timed.translate('A simple text editor.');
    timed.dispose();
    // A per-call deadline through the worker; the next call has none.
    const t3 = performance.now();
    let perCall = '';
    try { await tr.translate(huge, { timeoutMs: 100 }); } catch (e) { perCall = e.status; }
    const perCallMs = performance.now() - t3;
    const perCallAfter = await tr.translate('A simple text editor.');
    // Streaming: the pieces and the sentences equal the result.
    const text = 'This package contains the documentation. A simple text editor. Tools to manage the files of a project.';
    const small = await WorkerTranslator.create(bytes, { beam: 1, maxSourceTokens: 16 });
    const events = [];
    const it = small.translateIter(text);
    let r;
    for (;;) { r = await it.next(); if (r.done) break; events.push(r.value); }
    const h = r.value.hypotheses[0];
    const pieces = events.filter((e) => e.kind === 'piece').map((e) => e.text);
    const sentences = events.filter((e) => e.kind === 'sentence').map((e) => e.text);
    const streamOk = JSON.stringify(pieces) === JSON.stringify(h.pieces) && sentences.length === 3 &&
      sentences.filter((x) => x).join(' ') === h.text && h.text === await small.translate(text);
    // Leaving the loop early stops the call; the translator goes on.
    let got = 0;
    const t2 = performance.now();
    for await (const e of small.translateIter(huge)) { if (++got === 3) break; }
    const breakMs = performance.now() - t2;
    const smallAfter = await small.translate('A simple text editor.');
    small.dispose();
    tr.dispose();
    return { status, abortMs, total: performance.now() - t0, after, expected, deadline, deadlineMs, timedAfter,
             perCall, perCallMs, perCallAfter,
             streamOk, pieces: pieces.length, sentences, got, breakMs, smallAfter };
  })()`);
  console.log(`     stop: JS worker AbortSignal at 100 ms: rejected ${stop.abortMs.toFixed(1)} ms later; ` +
              `timeoutMs 100: rejected at ${stop.deadlineMs.toFixed(1)} ms; translateIter break after 3 events: ${stop.breakMs.toFixed(0)} ms`);
  check(stop.status === 'cancelled' && stop.abortMs < 2000 && stop.after === stop.expected,
        `a 900 kB line aborted: cancelled, then the same translator translates: ${JSON.stringify(stop)}`);
  check(stop.deadline === 'deadline_exceeded' && stop.deadlineMs < 5000 && stop.timedAfter === stop.expected,
        `timeoutMs: deadline_exceeded, then a short line: ${stop.deadline} ${stop.timedAfter}`);
  console.log(`     stop: JS worker translate(text, { timeoutMs: 100 }): rejected at ${stop.perCallMs.toFixed(1)} ms`);
  check(stop.perCall === 'deadline_exceeded' && stop.perCallMs < 5000 && stop.perCallAfter === stop.expected,
        `timeoutMs per call: deadline_exceeded, then a short line: ${stop.perCall} ${stop.perCallAfter}`);
  check(stop.streamOk && stop.got === 3 && stop.smallAfter === stop.expected,
        `translateIter: the events equal the result; break stops it: ${JSON.stringify(stop.sentences)}`);
  const servedOnline = server.log.length;
  check(server.log.includes('/softalign-core.wasm'), 'the page fetched softalign-core.wasm');
  server.close();
  await S('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  console.log(`     offline now (${servedOnline} requests served while loading)`);

  // Each sentence through the page: type, click, read.
  async function translateInPage(text) {
    await evaluate(`(() => { const o = document.getElementById('output'); o.dataset.state = 'pending';
      document.getElementById('source').value = ${JSON.stringify(text)};
      document.getElementById('translate').click(); })()`);
    await waitFor(`['done', 'error'].includes(document.getElementById('output').dataset.state)`, `"${text}"`);
    return evaluate(`(() => { const o = document.getElementById('output');
      return { state: o.dataset.state, text: o.textContent, ms: Number(o.dataset.ms) }; })()`);
  }
  const times = [];
  for (let run = 0; run < runs; ++run) {
    for (const s of expected.sentences) {
      const r = await translateInPage(s.source);
      times.push(r.ms);
      if (run === 0) check(r.state === 'done' && r.text === s.native,
                           `"${s.source}" -> "${r.text}" (${r.ms.toFixed(0)} ms)${r.text === s.native ? '' : `; native: "${s.native}"`}`);
    }
  }
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(`TIMES load_ms=${loadMs.toFixed(0)} sentences=${times.length} mean_ms=${mean.toFixed(1)} ` +
              `min_ms=${Math.min(...times).toFixed(1)} max_ms=${Math.max(...times).toFixed(1)}`);

  // The page keeps running while the worker translates (a 40-line text).
  const gap = await evaluate(`new Promise((resolve) => {
    const o = document.getElementById('output');
    o.dataset.state = 'pending';
    document.getElementById('source').value = Array(40).fill('Please restart the computer to finish the installation.').join('\\n');
    let last = performance.now(), maxGap = 0, ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now(); maxGap = Math.max(maxGap, now - last); last = now; ticks++;
      if (o.dataset.state === 'done' || o.dataset.state === 'error') { clearInterval(timer); resolve({ maxGap, ticks, ms: Number(o.dataset.ms) }); }
    }, 10);
    document.getElementById('translate').click();
  })`);
  // On the page's thread the timer would stop for the whole translation; in
  // the worker it keeps ticking (a loaded machine may still delay it a little).
  check(gap.ticks >= 5 && gap.maxGap < Math.max(250, 0.5 * gap.ms),
        `the page stays responsive while translating 40 lines in ${gap.ms.toFixed(0)} ms (largest timer gap ${gap.maxGap.toFixed(0)} ms, ${gap.ticks} ticks)`);

  // The page's Stop: while a 900 kB line translates, Translate is disabled
  // and the old output is gone; Stop ends it, and the next text translates.
  const pageStop = await evaluate(`new Promise((resolve) => {
    const o = document.getElementById('output');
    const s = 'This package contains the documentation. A simple text editor with many plugins. ';
    document.getElementById('source').value = s.repeat(Math.floor(900 * 1024 / s.length)).trim();
    document.getElementById('translate').click();
    const busy = { state: o.dataset.state, cleared: o.textContent === '',
                   disabled: document.getElementById('translate').disabled,
                   stopShown: !document.getElementById('stop').hidden };
    setTimeout(() => {
      const t0 = performance.now();
      document.getElementById('stop').click();
      const timer = setInterval(() => {
        if (o.dataset.state !== 'busy') {
          clearInterval(timer);
          resolve({ ...busy, after: o.dataset.state, ms: performance.now() - t0 });
        }
      }, 1);
    }, 100);
  })`);
  console.log(`     stop: the page's Stop at 100 ms: "${pageStop.after}" ${pageStop.ms.toFixed(1)} ms later`);
  check(pageStop.state === 'busy' && pageStop.cleared && pageStop.disabled && pageStop.stopShown,
        `busy while translating: ${JSON.stringify(pageStop)}`);
  check(pageStop.after === 'stopped' && pageStop.ms < 2000, `Stop stops it: ${JSON.stringify(pageStop)}`);
  await waitFor(`!document.getElementById('translate').disabled`, 'the translator in the spare worker');
  const next = await translateInPage(expected.sentences[0].source);
  check(next.state === 'done' && next.text === expected.sentences[0].native, `after Stop: "${next.text}"`);

  // A screenshot of the page with a translation and its heat map.
  if (args.screenshot) {
    const r = await translateInPage('A simple text editor for the GNOME desktop.');
    check(r.state === 'done', 'the screenshot sentence');
    const { cssContentSize: size } = await S('Page.getLayoutMetrics');
    const shot = await S('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true,
      clip: { x: 0, y: 0, width: Math.min(size.width, 1000), height: Math.min(size.height, 1100), scale: 1 } });
    writeFileSync(args.screenshot, Buffer.from(shot.data, 'base64'));
    console.log(`     screenshot: ${args.screenshot}`);
  }

  // A damaged model file, picked in the file input.
  const bad = Uint8Array.from(readFileSync(args.model));
  for (let i = 0; i < 64; ++i) bad[16 + i] ^= 0x5a;
  const badPath = path.join(tmp, 'damaged.softalign');
  writeFileSync(badPath, bad);
  const { root } = await S('DOM.getDocument');
  const { nodeId } = await S('DOM.querySelector', { nodeId: root.nodeId, selector: '#file' });
  await S('DOM.setFileInputFiles', { nodeId, files: [badPath] });
  const errText = await waitFor(`(() => { const e = document.getElementById('error');
    return e.hidden ? '' : e.textContent; })()`, 'the damaged file\'s error', 30_000);
  check(errText.startsWith('invalid_model'), `a damaged model file shows "${errText}"`);
  check(await evaluate(`document.getElementById('translate').disabled`), 'and the page offers no translation for it');
  check(server.log.length === servedOnline, `no request after going offline: ${server.log.slice(servedOnline)}`);
} catch (e) {
  failures++;
  console.log(`FAIL ${e.stack ?? e}`);
}
clearTimeout(deadline);
browser.close();
console.log(failures === 0 ? 'all passed' : `${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
