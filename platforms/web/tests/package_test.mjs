// wasm.package: the npm package as a user gets it.
//   node package_test.mjs --web BUILD/web --model MODEL --expected EXPECTED_JSON [--chromium CHROMIUM]
// npm pack in the build output (its files: the JS API, softalign-core.mjs and
// softalign-core.wasm apart), npm install --offline of the tarball into an
// empty folder, then `import { Translator } from 'softalign'` translates
// under node (no shim, no NODE_PATH; without its .wasm the package rejects
// with an io_error naming it), and a page served from that folder
// imports the installed files (an import map) and translates on its thread
// and in a Web Worker; the .wasm is fetched as its own file (the server's
// request log, the page's Performance API) and compiled as it streams
// (WebAssembly.instantiateStreaming, not instantiate on a buffer).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve, launch } from './chromium.mjs';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const webDir = path.resolve(args.web);
const model = path.resolve(args.model);
const expected = JSON.parse(readFileSync(args.expected, 'utf8'));
const natives = expected.sentences.map((s) => s.native);

let failures = 0;
function check(ok, msg) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${msg}`);
  if (!ok) failures++;
}
const tmp = mkdtempSync(path.join(tmpdir(), 'softalign-package-'));
let browser = null;
function finish() {
  browser?.close();
  rmSync(tmp, { recursive: true, force: true });
  console.log(failures === 0 ? 'all passed' : `${failures} failed`);
  process.exit(failures === 0 ? 0 : 1);
}
const deadline = setTimeout(() => { failures++; console.log('FAIL timed out (240 s)'); finish(); }, 240_000);

// npm with a cache of its own and nothing to ask the network; no NODE_PATH:
// the app finds the package in its node_modules only.
const env = { ...process.env, npm_config_cache: path.join(tmp, 'npm-cache'), npm_config_audit: 'false',
              npm_config_fund: 'false', npm_config_update_notifier: 'false' };
delete env.NODE_PATH;
const run = (cmd, argv, cwd) => execFileSync(cmd, argv, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

try {
  // ---- npm pack
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], webDir));
  const files = Object.fromEntries(packed.files.map((f) => [f.path, f.size]));
  const want = ['README.md', 'package.json', 'softalign-core.mjs', 'softalign-core.wasm', 'softalign-worker.js',
                'softalign.d.ts', 'softalign.js'];
  console.log(`     ${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked; ` +
              Object.entries(files).map(([f, n]) => `${f} ${n}`).join(', '));
  check(JSON.stringify(Object.keys(files).sort()) === JSON.stringify(want), `the package's files: ${Object.keys(files).sort()}`);
  const coreJs = readFileSync(path.join(webDir, 'softalign-core.mjs'), 'utf8');
  check(!/[A-Za-z0-9+/]{10000}/.test(coreJs), 'softalign-core.mjs has no wasm inlined (no long base64 run)');
  const pkg = JSON.parse(readFileSync(path.join(webDir, 'package.json'), 'utf8'));

  // ---- an empty folder, the tarball installed offline
  const app = path.join(tmp, 'app');
  mkdirSync(app);
  run('npm', ['install', '--offline', path.join(tmp, packed.filename)], app);
  const installed = JSON.parse(readFileSync(path.join(app, 'node_modules/softalign/package.json'), 'utf8'));
  check(installed.version === pkg.version, `installed softalign ${installed.version}`);

  // ---- node: the documented import, nothing set up before it
  writeFileSync(path.join(app, 'translate.mjs'), `
    import { readFileSync } from 'node:fs';
    import { createRequire } from 'node:module';
    import { Translator } from 'softalign';
    const [model, beam, texts] = process.argv.slice(2);
    const tr = await Translator.create(readFileSync(model), { beam: Number(beam) });
    console.log(JSON.stringify({ version: await Translator.version(), out: await tr.translate(JSON.parse(texts)),
                                 worker: createRequire(import.meta.url).resolve('softalign/worker') }));
  `);
  const sources = JSON.stringify(expected.sentences.map((s) => s.source));
  const r = JSON.parse(run('node', ['translate.mjs', model, String(expected.beam), sources], app));
  check(JSON.stringify(r.out) === JSON.stringify(natives), `node: import { Translator } from 'softalign' translates as the native CLI`);
  check(r.version === pkg.version, `node: the library's version ${r.version} is the package's ${pkg.version}`);
  check(r.worker === path.join(app, 'node_modules/softalign/softalign-worker.js'), `'softalign/worker' resolves to ${r.worker}`);
  // Without its .wasm the package says so: a SoftalignError (io_error) naming the file.
  const broken = path.join(tmp, 'broken');
  cpSync(path.join(app, 'node_modules/softalign'), broken, { recursive: true });
  rmSync(path.join(broken, 'softalign-core.wasm'));
  writeFileSync(path.join(tmp, 'broken.mjs'), `
    const { Translator } = await import(${JSON.stringify(pathToFileURL(path.join(broken, 'softalign.js')).href)});
    try { await Translator.create(new Uint8Array(8)); } catch (e) { console.log(JSON.stringify([e.name, e.status, e.detail])); }
  `);
  const [name, status, detail] = JSON.parse(run('node', ['broken.mjs'], tmp));
  check(name === 'SoftalignError' && status === 'io_error' && detail.includes('softalign-core.wasm'),
        `no softalign-core.wasm: ${name} ${status}: ${detail}`);

  // ---- a page: the installed files served as they are
  if (args.chromium) {
    writeFileSync(path.join(app, 'index.html'), `<!doctype html>
<meta charset="utf-8"><title>softalign package test</title>
<script type="importmap">{ "imports": { "softalign": "./node_modules/softalign/softalign.js" } }</script>
<script type="module">
  // How this thread compiles the module: as it streams, or from a buffer.
  const compiled = { streaming: 0, buffer: 0 };
  const { instantiateStreaming, instantiate } = WebAssembly;
  WebAssembly.instantiateStreaming = (...a) => { compiled.streaming++; return instantiateStreaming(...a); };
  WebAssembly.instantiate = (...a) => { compiled.buffer++; return instantiate(...a); };
  try {
    const { Translator, WorkerTranslator } = await import('softalign');
    const bytes = await (await fetch('/model.softalign')).arrayBuffer();
    const texts = ${sources};
    const tr = await Translator.create(bytes, { beam: ${expected.beam} });
    const page = await tr.translate(texts);
    const wt = await WorkerTranslator.create(bytes, { beam: ${expected.beam} });
    const worker = await wt.translate(texts);
    wt.dispose();
    const wasm = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/softalign-core.wasm'))
      .map((e) => ({ name: e.name, bytes: e.encodedBodySize }));
    window.result = { page, worker, compiled, wasm };
  } catch (e) {
    window.result = { error: String(e) };
  }
</script>`);
    const server = await serve(app, { '/model.softalign': model });
    browser = await launch(args.chromium, (msg) => { failures++; console.log(`FAIL ${msg}`); finish(); });
    await browser.S('Runtime.enable');
    await browser.S('Network.setCacheDisabled', { cacheDisabled: true });
    await browser.S('Page.navigate', { url: `${server.base}/index.html` });
    const p = await browser.waitFor('window.result', 'the page to translate', 120_000);
    server.close();
    check(!p.error, `the page ran${p.error ? `: ${p.error}` : ''}`);
    check(JSON.stringify(p.page) === JSON.stringify(natives), 'page: Translator (the page\'s thread) translates as the native CLI');
    check(JSON.stringify(p.worker) === JSON.stringify(natives), 'page: WorkerTranslator translates as the native CLI');
    const wasmRequests = server.log.filter((u) => u === '/node_modules/softalign/softalign-core.wasm').length;
    check(wasmRequests === 2, `softalign-core.wasm fetched as its own file, by the page and by the worker: ${wasmRequests} requests`);
    check(p.wasm.length === 1 && p.wasm[0].bytes === files['softalign-core.wasm'],
          `the page's resource entry: ${JSON.stringify(p.wasm)}`);
    check(p.compiled.streaming === 1 && p.compiled.buffer === 0,
          `the page compiled it as it streamed: ${JSON.stringify(p.compiled)}`);
    console.log(`     served: ${server.log.join(' ')}`);
  } else {
    console.log('     no --chromium: the page is not tried');
  }
} catch (e) {
  failures++;
  console.log(`FAIL ${e.stack ?? e}`);
}
clearTimeout(deadline);
finish();
