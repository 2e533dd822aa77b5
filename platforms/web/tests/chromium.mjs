// What the Chromium tests share (chromium_test.mjs, package_test.mjs): a
// static HTTP server that logs what it serves, and headless Chromium driven
// over the DevTools protocol (--remote-debugging-pipe: no WebSocket library
// needed), with one page attached.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// instantiateStreaming needs application/wasm (else the module is fetched
// again and compiled from an ArrayBuffer, with a console warning).
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
                '.json': 'application/json', '.wasm': 'application/wasm', '.softalign': 'application/octet-stream' };

/**
 * Serves the files under root from 127.0.0.1 (and the files of `extra`,
 * URL path -> file). Returns { base, log, close }: log lists each request's
 * path in order.
 */
export async function serve(root, extra = {}) {
  root = path.resolve(root);
  const log = [];
  const server = createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    log.push(url);
    const p = extra[url] ?? path.join(root, url);
    if (!(url in extra) && !p.startsWith(root + path.sep) || !existsSync(p)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(p)] ?? 'application/octet-stream' });
    res.end(readFileSync(p));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${server.address().port}`, log, close: () => server.close() };
}

/**
 * Starts headless Chromium with one blank page attached. Returns { send,
 * S (a command to the page), evaluate, waitFor, once, tmp (a scratch folder),
 * close }. onExit is told if Chromium exits before close().
 */
export async function launch(chromium, onExit) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'softalign-chromium-'));
  const chrome = spawn(chromium, [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--disable-extensions', '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--remote-debugging-pipe', `--user-data-dir=${path.join(tmp, 'profile')}`, '--window-size=1000,720',
    'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let closed = false;
  let stderr = '';
  chrome.stderr.on('data', (d) => { stderr += d; });
  chrome.on('exit', (code) => { if (!closed) onExit(`chromium exited (${code}): ${stderr.slice(-2000)}`); });

  // fd 3: commands in, fd 4: replies out; NUL-separated JSON.
  let nextId = 1;
  const pending = new Map();
  const listeners = [];
  let buf = '';
  chrome.stdio[4].on('data', (d) => {
    buf += d.toString('utf8');
    let i;
    while ((i = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg.id && pending.has(msg.id)) {
        const { resolve, reject } = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.error) reject(new Error(`${msg.error.message} ${msg.error.data ?? ''}`));
        else resolve(msg.result);
      } else {
        for (const l of listeners) l(msg);
      }
    }
  });
  function send(method, params = {}, sessionId = undefined) {
    const id = nextId++;
    chrome.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }
  function once(method) {
    return new Promise((resolve) => {
      const l = (msg) => {
        if (msg.method === method) {
          listeners.splice(listeners.indexOf(l), 1);
          resolve(msg.params);
        }
      };
      listeners.push(l);
    });
  }
  listeners.push((msg) => {
    if (msg.method === 'Runtime.exceptionThrown')
      console.log(`page exception: ${JSON.stringify(msg.params.exceptionDetails).slice(0, 500)}`);
    if (msg.method === 'Runtime.consoleAPICalled' && ['error', 'warning'].includes(msg.params.type))
      console.log(`page console.${msg.params.type}: ${msg.params.args.map((a) => a.value ?? a.description).join(' ')}`);
  });

  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const S = (method, params) => send(method, params, sessionId);
  async function evaluate(expression) {
    const r = await S('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${JSON.stringify(r.exceptionDetails).slice(0, 500)}`);
    return r.result.value;
  }
  async function waitFor(expression, what, ms = 60_000) {
    const t0 = Date.now();
    for (;;) {
      const v = await evaluate(expression);
      if (v) return v;
      if (Date.now() - t0 > ms) throw new Error(`waited ${ms} ms for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  function close() {
    closed = true;
    if (chrome.exitCode === null) chrome.kill('SIGKILL');
    // Chromium may still be writing its profile for a moment after the kill.
    try { rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }); } catch {}
  }
  return { send, S, evaluate, waitFor, once, tmp, close };
}
