// The web against native, in one run (docs/web.md, "Measured"): the same DDTP
// test sentences translated one at a time, at each beam, by
//   - the native CLI on one thread with each kernel set this CPU runs
//     (`softalign translate --kernels SET --threads 1 --batch 1 --stats`: its
//     translation time, load excluded);
//   - the WebAssembly module under node (softalign.js's Translator);
//   - the same module in headless Chromium (Translator on a page's thread,
//     served from 127.0.0.1; platforms/web/tests/chromium.mjs drives it);
// with each WebAssembly kernel set asked for. Prints ms a sentence, the
// ratio to native avx2 (or the fastest native set where there is no avx2)
// at the same beam, and how many outputs equal that native set's. Nothing
// here fails on a timing.
//
//   node tests/bench/web_bench.mjs [--data-dir DIR] [--sentences 200] [--beams 1,4]
//        [--model models/en-fr/en-fr.int8.softalign] [--cli build/bin/softalign]
//        [--web build-wasm/web] [--chromium chromium] [--wasm-kernels wasm_simd128,wasm_simd]
//        [--warmup 10] [--json FILE]
//
// --data-dir: the folder with test.en, default ../shared/data/ddtp/en-fr
// beside the repository (tests/bench/run_bench.py's convention); the first
// --sentences lines. Before timing, each WebAssembly translator translates
// the first --warmup sentences (the engine compiles the module's hot code
// with its optimising tier in the background); the CLI needs no warm-up.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = {
  'data-dir': path.join(path.dirname(root), 'shared', 'data', 'ddtp', 'en-fr'),
  sentences: '200', beams: '1,4', model: path.join(root, 'models/en-fr/en-fr.int8.softalign'),
  cli: path.join(root, 'build/bin/softalign'), web: path.join(root, 'build-wasm/web'), chromium: 'chromium',
  'wasm-kernels': 'wasm_simd128,wasm_simd', warmup: '10', json: '',
};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in args) || i + 1 >= process.argv.length) {
    console.error(`web_bench: unknown option or no value: ${process.argv[i]}`);
    process.exit(2);
  }
  args[k] = process.argv[i + 1];
}
const srcPath = path.join(args['data-dir'], 'test.en');
if (!existsSync(srcPath)) {
  console.error(`web_bench: no ${srcPath} (see --data-dir)`);
  process.exit(2);
}
const sentences = readFileSync(srcPath, 'utf8').split('\n').slice(0, Number(args.sentences));
const beams = args.beams.split(',').map(Number);
const wasmKernels = args['wasm-kernels'].split(',');
const warmup = Number(args.warmup);
const modelBytes = readFileSync(args.model);
const rows = [];  // { engine, kernels, beam, ms, outputs }

// Native: every set the CLI knows of; one this CPU lacks is refused at prepare.
const tmp = mkdtempSync(path.join(tmpdir(), 'softalign-web-bench-'));
const input = path.join(tmp, 'input.txt');
writeFileSync(input, sentences.join('\n') + '\n');
for (const kernels of ['ref', 'avx2', 'avx512', 'neon', 'neon_dot']) {
  for (const beam of beams) {
    const r = spawnSync(args.cli, ['translate', '-m', args.model, '--beam', String(beam), '--threads', '1', '--batch', '1',
                                   '--kernels', kernels, '--stats'], { input: readFileSync(input), maxBuffer: 1 << 26 });
    if (r.status !== 0) {
      console.log(`native ${kernels}: skipped (${String(r.stderr).trim().split('\n').pop()})`);
      break;
    }
    const m = /pieces in ([0-9.]+) s/.exec(String(r.stderr));
    const outputs = String(r.stdout).split('\n').slice(0, sentences.length);
    rows.push({ engine: 'native', kernels, beam, ms: (Number(m[1]) * 1000) / sentences.length, outputs });
  }
}

// The same measurement under node and in a page: translate `warmup` sentences,
// then each sentence alone, timed as a whole. Its source is sent to the page.
async function timeSet(Translator, bytes, sentences, beam, kernels, warmup) {
  const tr = await Translator.create(bytes, { beam, kernels });
  for (const s of sentences.slice(0, warmup)) await tr.translate(s);
  const outputs = [];
  const t0 = performance.now();
  for (const s of sentences) outputs.push(await tr.translate(s));
  const ms = (performance.now() - t0) / sentences.length;
  tr.dispose();
  return { ms, outputs };
}
// Whether the engine runs relaxed SIMD: a function of one
// i32x4.relaxed_dot_i8x16_i7x16_add_s (0xfd 0x113) on three v128 constants.
function relaxedSimd() {
  const z = new Array(16).fill(0);
  const body = [0, 0xfd, 12, ...z, 0xfd, 12, ...z, 0xfd, 12, ...z, 0xfd, 0x93, 0x02, 0x0b];
  return WebAssembly.validate(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7b, 3, 2, 1, 0,
                                              10, body.length + 2, 1, body.length, ...body]));
}

const { Translator } = await import(pathToFileURL(path.join(args.web, 'softalign.js')).href);
console.log(`node ${process.version}: relaxed SIMD ${relaxedSimd() ? 'yes' : 'no'}`);
for (const kernels of wasmKernels)
  for (const beam of beams)
    rows.push({ engine: 'node', kernels, beam, ...(await timeSet(Translator, modelBytes, sentences, beam, kernels, warmup)) });

// Chromium: a blank page from the package's folder (the model and the
// sentences served beside it), the same function evaluated in it.
// --chromium: a path, or a name looked up in PATH.
const chromiumPath = args.chromium.includes('/')
  ? (existsSync(args.chromium) ? args.chromium : '')
  : (process.env.PATH ?? '').split(':').map((d) => path.join(d, args.chromium)).find((p) => existsSync(p)) ?? '';
if (!chromiumPath) {
  console.log(`chromium: skipped (no ${args.chromium})`);
} else {
  const { serve, launch } = await import(pathToFileURL(path.join(root, 'platforms/web/tests/chromium.mjs')).href);
  const page = path.join(tmp, 'bench.html');
  writeFileSync(page, '<!doctype html><title>web_bench</title>');
  writeFileSync(path.join(tmp, 'sentences.json'), JSON.stringify(sentences));
  const server = await serve(args.web, { '/bench.html': page, '/bench.softalign': args.model,
                                         '/sentences.json': path.join(tmp, 'sentences.json') });
  const browser = await launch(chromiumPath, (msg) => { console.log(msg); process.exit(1); });
  try {
    await browser.S('Page.enable');
    const loaded = browser.once('Page.loadEventFired');
    await browser.S('Page.navigate', { url: `${server.base}/bench.html` });
    await loaded;
    const version = await browser.S('Browser.getVersion');
    console.log(`${version.product}: relaxed SIMD ${(await browser.evaluate(`(${relaxedSimd})()`)) ? 'yes' : 'no'}`);
    for (const kernels of wasmKernels)
      for (const beam of beams) {
        const r = await browser.evaluate(`(async () => {
          const { Translator } = await import('/softalign.js');
          const bytes = new Uint8Array(await (await fetch('/bench.softalign')).arrayBuffer());
          const sentences = await (await fetch('/sentences.json')).json();
          return (${timeSet})(Translator, bytes, sentences, ${beam}, ${JSON.stringify(kernels)}, ${warmup});
        })()`);
        rows.push({ engine: 'chromium', kernels, beam, ...r });
      }
  } finally {
    browser.close();
    server.close();
  }
}
rmSync(tmp, { recursive: true, force: true });

// The table: per beam, each row against native avx2 (else the fastest native set).
console.log(`\n${sentences.length} sentences of ${srcPath}, ${path.basename(args.model)}, one at a time, one thread`);
console.log('| beam | engine | kernels | ms a sentence | × native avx2 | outputs equal avx2\'s |');
console.log('|---|---|---|---|---|---|');
for (const beam of beams) {
  const natives = rows.filter((r) => r.beam === beam && r.engine === 'native');
  const base = natives.find((r) => r.kernels === 'avx2') ?? natives.slice().sort((a, b) => a.ms - b.ms)[0];
  for (const r of rows.filter((r) => r.beam === beam)) {
    const same = base ? r.outputs.filter((o, i) => o === base.outputs[i]).length : 0;
    console.log(`| ${beam} | ${r.engine} | ${r.kernels} | ${r.ms.toFixed(2)} | ${base ? (r.ms / base.ms).toFixed(2) : '-'} | ` +
                `${same}/${sentences.length} |`);
  }
}
if (args.json)
  writeFileSync(args.json, JSON.stringify(rows.map(({ outputs, ...r }) => r), null, 1) + '\n');
