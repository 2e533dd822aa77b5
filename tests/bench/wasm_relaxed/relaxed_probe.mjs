// Is a relaxed-SIMD int8 kernel set worth a second WebAssembly module?
// Builds relaxed_probe.cpp with Debian's clang-16 (apt-get install clang-16
// lld-16: the first Debian compiler that emits the final relaxed opcodes;
// the module's emscripten 3.1.6 cannot) and times, in headless Chromium, the
// shipped wasm_simd128 matmat_i8 against the same walk over a relaxed block
// (i32x4.relaxed_dot_i8x16_i7x16_add_s) and the set's previous walk, on
// the int8 products of a decoder
// step of the shipped 384-unit, 12,000-piece models, for 1 and 4 inputs
// (beam 1 and 4). Both must give the same floats (exact integer sums).
//
//   node tests/bench/wasm_relaxed/relaxed_probe.mjs [--clang DIR] [--chromium chromium] [--ms 400]
//
// --clang: the folder of clang++ and wasm-ld (default /usr/lib/llvm-16/bin).
// --ms: how long each product runs after its warm-up (as long again).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const args = { clang: '/usr/lib/llvm-16/bin', chromium: 'chromium', ms: '400' };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in args) || i + 1 >= process.argv.length) {
    console.error(`relaxed_probe: unknown option or no value: ${process.argv[i]}`);
    process.exit(2);
  }
  args[k] = process.argv[i + 1];
}
const chromium = args.chromium.includes('/') ? args.chromium
  : (process.env.PATH ?? '').split(':').map((d) => path.join(d, args.chromium)).find((p) => existsSync(p));
for (const [what, p] of [['clang++', path.join(args.clang, 'clang++')], ['wasm-ld', path.join(args.clang, 'wasm-ld')],
                         ['chromium', chromium ?? args.chromium]]) {
  if (!existsSync(p)) {
    console.error(`relaxed_probe: no ${what} (${p}); apt-get install clang-16 lld-16 chromium`);
    process.exit(2);
  }
}

// Compiled against emscripten's headers (the module's libc++), linked by
// wasm-ld alone (bulk memory: memset is memory.fill, no libc needed):
// clang's driver would run binaryen's wasm-opt, whose
// version 108 misreads the relaxed opcodes.
const tmp = mkdtempSync(path.join(tmpdir(), 'softalign-relaxed-'));
const sysroot = '/usr/share/emscripten/cache/sysroot';
function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`relaxed_probe: ${cmd} failed:\n${r.stderr}`);
    process.exit(1);
  }
}
run(path.join(args.clang, 'clang++'), ['--target=wasm32-unknown-emscripten', '-std=c++17', '-O2', '-msimd128', '-mrelaxed-simd', '-mbulk-memory',
  '-fno-exceptions', '-nostdinc++', '-isystem', `${sysroot}/include/c++/v1`, '-isystem', `${sysroot}/include`,
  '-isystem', path.join(root, 'build-wasm-sysroot/include'), '-isystem', '/usr/include/fp16', '-I', path.join(root, 'runtime'),
  '-c', path.join(here, 'relaxed_probe.cpp'), '-o', path.join(tmp, 'probe.o')]);
run(path.join(args.clang, 'wasm-ld'), ['--no-entry', '--import-memory', '--initial-memory=268435456', '--allow-undefined',
  path.join(tmp, 'probe.o'), '-o', path.join(tmp, 'probe.wasm')]);

// Runs in the page: each product on random int8 weights and inputs, warmed
// up, then timed; returns ms a call for each kernel and whether they agree.
async function probe(ms) {
  const memory = new WebAssembly.Memory({ initial: 4096 });
  const { instance } = await WebAssembly.instantiate(await (await fetch('/probe.wasm')).arrayBuffer(), { env: { memory } });
  const k = instance.exports;
  const shapes = [['output layer', 12000, 384], ['maxout readout', 768, 1536], ['GRU input', 1152, 1152],
                  ['GRU recurrent', 1152, 384], ['attention query', 384, 384]];
  let seed = 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8;
  const rows = [];
  for (const [name, n, cols] of shapes) {
    for (const m of [1, 4]) {
      const base = 1 << 20, w = base, scales = w + n * cols, xq = scales + 4 * n, xs = xq + 4 * cols, y1 = xs + 16, y2 = y1 + 4 * n * m;
      const i8 = new Int8Array(memory.buffer), f32 = new Float32Array(memory.buffer);
      for (let i = 0; i < n * cols; ++i) i8[w + i] = (rand() % 255) - 127;  // [-127, 127], as the converter quantizes
      for (let i = 0; i < m * cols; ++i) i8[xq + i] = (rand() % 255) - 127;
      for (let i = 0; i < n; ++i) f32[scales / 4 + i] = 1 / 127;
      for (let i = 0; i < m; ++i) f32[xs / 4 + i] = 1 / 127;
      const call = (f, y) => f(w, scales, n, cols, xq, xs, m, y);
      let equal = true;
      call(k.simd128_matmat_i8, y1);
      for (const f of [k.narrow_matmat_i8, k.relaxed_matmat_i8]) {
        call(f, y2);
        for (let i = 0; i < n * m; ++i) if (f32[y1 / 4 + i] !== f32[y2 / 4 + i]) { equal = false; break; }
      }
      const time = (f, y) => {
        for (let t0 = performance.now(); performance.now() - t0 < ms;) call(f, y);
        let calls = 0;
        const t0 = performance.now();
        while (performance.now() - t0 < ms) { call(f, y); ++calls; }
        return (performance.now() - t0) / calls;
      };
      const narrow = time(k.narrow_matmat_i8, y2), simd128 = time(k.simd128_matmat_i8, y1), relaxed = time(k.relaxed_matmat_i8, y2);
      rows.push({ name, n, cols, m, narrow, simd128, relaxed, equal });
    }
  }
  return rows;
}

const { serve, launch } = await import(pathToFileURL(path.join(root, 'platforms/web/tests/chromium.mjs')).href);
const server = await serve(tmp, { '/probe.html': path.join(here, 'relaxed_probe.html'), '/probe.wasm': path.join(tmp, 'probe.wasm') });
const browser = await launch(chromium, (msg) => { console.log(msg); process.exit(1); });
let failed = false;
try {
  await browser.S('Page.navigate', { url: `${server.base}/probe.html` });
  await browser.waitFor('document.readyState === "complete"', 'the page');
  const version = await browser.send('Browser.getVersion');
  const rows = await browser.evaluate(`(${probe})(${Number(args.ms)})`);
  console.log(`${version.product}, int8 products (matmat_i8), ms a call`);
  console.log('| product | rows × cols | inputs | narrow (4 × 4) | wasm_simd128 | relaxed | simd128 ÷ narrow | relaxed ÷ simd128 | same floats |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.n} × ${r.cols} | ${r.m} | ${r.narrow.toFixed(4)} | ${r.simd128.toFixed(4)} | ${r.relaxed.toFixed(4)} | ` +
                `${(r.simd128 / r.narrow).toFixed(2)} | ${(r.relaxed / r.simd128).toFixed(2)} | ${r.equal ? 'yes' : 'NO'} |`);
    failed ||= !r.equal;
  }
} finally {
  browser.close();
  server.close();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
