// wasm.import: an imported LSTM model (OpenNMT-py's one-way LSTM fixture,
// tests/import/fixtures/onmt-lstm-rnn-general, imported by the native build's
// import_runtime_parity test) translated under node with each kernel set, its
// pieces compared with the toolkit's own greedy and beam-5 outputs.
//   node import_test.mjs WEB_DIR MODEL FIXTURE_DIR [KERNEL_SETS]
// Exit 77 (ctest: skipped, visibly) when MODEL is absent: the native tests
// write it (scripts/test.sh runs them before the web stage in CI).
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [webDir, modelPath, fixtureDir, kernelSets = 'ref,wasm_simd,wasm_simd128'] = process.argv.slice(2);
if (!existsSync(modelPath)) {
  console.log(`skipped: ${modelPath} is absent (the native build's ctest -R import_runtime_parity writes it)`);
  process.exit(77);
}
const { Translator } = await import(pathToFileURL(path.join(webDir, 'softalign.js')).href);
const lines = (f) => readFileSync(f, 'utf8').split('\n').slice(0, -1);
const sources = lines(path.join(fixtureDir, '..', 'data', 'test200.en'));
const bytes = readFileSync(modelPath);
let failed = false;
for (const kernels of kernelSets.split(',')) {
  for (const [name, beam] of [['greedy', 1], ['beam5', 5]]) {
    const want = lines(path.join(fixtureDir, `${name}.pieces`));
    const tr = await Translator.create(bytes, { beam, kernels, copyThrough: false, repairPlaceholders: false });
    if (tr.info.pretokenized) throw new Error('a SentencePiece-id model says it is pretokenized');
    const t0 = performance.now();
    const results = await tr.translateDetailed(sources);
    const ms = performance.now() - t0;
    let same = 0;
    results.forEach((r, i) => { if (r.hypotheses[0].pieces.join(' ') === want[i]) same++; });
    tr.dispose();
    const ok = same >= 0.98 * want.length;
    failed ||= !ok;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${kernels} ${name}: ${same}/${want.length} lines identical to ` +
                `the toolkit's own output (${ms.toFixed(0)} ms)`);
  }
}
process.exit(failed ? 1 : 0);
