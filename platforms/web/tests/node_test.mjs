// wasm.node: the JS API (softalign.js over softalign-core.mjs) under node.
//   node node_test.mjs WEB_DIR MODEL EXPECTED_JSON [KERNEL_SETS]
// KERNEL_SETS: the sets the module was built with, comma-separated (ctest
// passes SOFTALIGN_KERNEL_SETS; default ref,wasm_simd,wasm_simd128), each
// forced in turn.
// Translates the expected file's sentences (the native CLI's outputs, beam 4)
// and checks the text, n-best and alignments, and that errors are rejected
// promises with the status name: a damaged model, a truncated one, bad
// options, a source too long, bad text (lone surrogates, NUL), a disposed
// translator; translateEach: a text that fails fails alone.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import assert from 'node:assert/strict';

const [webDir, modelPath, expectedPath, kernelSets = 'ref,wasm_simd,wasm_simd128'] = process.argv.slice(2);
const { Translator, SoftalignError } = await import(pathToFileURL(path.join(webDir, 'softalign.js')).href);

const expected = JSON.parse(readFileSync(expectedPath, 'utf8'));
const bytes = readFileSync(modelPath);
let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e.stack ?? e}`);
  }
}
async function rejects(promiseFn, status) {
  let err = null;
  try {
    await promiseFn();
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof SoftalignError, `expected a SoftalignError, got ${err}`);
  assert.equal(err.status, status, err.message);
  return err;
}

let t0 = performance.now();
const tr = await Translator.create(bytes, { beam: expected.beam });
const loadMs = performance.now() - t0;
console.log(`version ${await Translator.version()}, model ${tr.info.name} (${tr.info.weightType}), ` +
            `load+prepare ${loadMs.toFixed(1)} ms, arena ${tr.arenaBytes()} bytes`);

await check('translations equal the native CLI', async () => {
  const times = [];
  for (const s of expected.sentences) {
    const t = performance.now();
    const out = await tr.translate(s.source);
    times.push(performance.now() - t);
    assert.equal(out, s.native, `"${s.source}"`);
  }
  console.log(`     per sentence: mean ${(times.reduce((a, b) => a + b) / times.length).toFixed(1)} ms`);
});
await check(`the same with each kernel set forced (${kernelSets})`, async () => {
  for (const kernels of kernelSets.split(',')) {
    const t = await Translator.create(bytes, { beam: expected.beam, kernels });
    const t0 = performance.now();
    const out = await t.translate(expected.sentences.map((s) => s.source));
    console.log(`     ${kernels}: ${((performance.now() - t0) / out.length).toFixed(1)} ms per sentence`);
    assert.deepEqual(out, expected.sentences.map((s) => s.native), kernels);
    t.dispose();
  }
});
await check('an array in, an array out, in order', async () => {
  const out = await tr.translate(expected.sentences.map((s) => s.source));
  assert.deepEqual(out, expected.sentences.map((s) => s.native));
});
await check('n-best and alignments', async () => {
  const t2 = await Translator.create(bytes, { beam: 4, nbest: 3, alignment: true });
  const r = await t2.translateDetailed(expected.sentences[1].source);
  assert.equal(r.hypotheses.length, 3);
  assert.equal(r.hypotheses[0].text, expected.sentences[1].native);
  assert.ok(r.hypotheses[0].score >= r.hypotheses[1].score);
  for (const h of r.hypotheses) assert.ok(h.confidence >= 0 && h.confidence <= 1, `confidence ${h.confidence}`);
  const a = r.hypotheses[0].alignment;
  assert.equal(a.cols, r.sourcePieces.length + 1);
  assert.equal(a.rows, r.hypotheses[0].pieces.length + 1);
  assert.equal(a.weights.length, a.rows * a.cols);
  for (let i = 0; i < a.rows; ++i) {
    let sum = 0;
    for (let j = 0; j < a.cols; ++j) sum += a.weights[i * a.cols + j];
    assert.ok(Math.abs(sum - 1) < 1e-3, `row ${i} sums to ${sum}`);
  }
  assert.match(r.hypotheses[0].pharaoh, /^\d+-\d+( \d+-\d+)*$/);
  const p = await t2.translateDetailed('A simple text editor.', { prefix: 'Un éditeur' });
  assert.ok(p.hypotheses[0].text.startsWith('Un éditeur'), p.hypotheses[0].text);
  t2.dispose();
});
await check('a damaged model is rejected with invalid_model', async () => {
  const bad = Uint8Array.from(bytes);
  for (let i = 0; i < 64; ++i) bad[16 + i] ^= 0x5a;  // the FlatBuffer's root tables
  const e = await rejects(() => Translator.create(bad), 'invalid_model');
  console.log(`     ${e.message}`);
});
await check('a truncated model is rejected with invalid_model', async () => {
  await rejects(() => Translator.create(bytes.subarray(0, 1000)), 'invalid_model');
  await rejects(() => Translator.create(new Uint8Array(0)), 'invalid_model');
});
await check('bad options: invalid_argument', async () => {
  await rejects(() => Translator.create(bytes, { beam: -3 }), 'invalid_argument');
  await rejects(() => Translator.create(bytes, { bogus: 1 }), 'invalid_argument');
  await rejects(() => Translator.create(bytes, { kernels: 'avx512' }), 'invalid_argument');
});
await check('a too long source without splitting: input_too_long; the translator still works', async () => {
  const t4 = await Translator.create(bytes, { maxSourceTokens: 8, splitLongInput: false });
  await rejects(() => t4.translate('one two three four five six seven eight nine ten eleven twelve'), 'input_too_long');
  assert.equal(await t4.translate(''), '');
  assert.equal(await t4.translate(expected.sentences[2].source), expected.sentences[2].native);
  t4.dispose();
});
// Issue 49, one rule for bad text (docs/guarantees.md): a lone surrogate and a NUL are invalid text,
// as invalid UTF-8 is: invalid_utf8 (TextEncoder used to turn a lone surrogate into U+FFFD silently,
// and a NUL was invalid_argument), or with replaceInvalidUtf8 one U+FFFD each.
const BAD_TEXTS = ['a\uDC80b', 'x\uD800y', 'Open\0 file', '\uDFFF', '\uDE00\uD83D'];
const withFffd = (s) => Array.from(s, (c) => (c === '\0' || /^[\uD800-\uDFFF]$/.test(c) ? '\uFFFD' : c)).join('');
await check('a lone surrogate or a NUL is invalid_utf8, alone or in an array, in a text or a prefix', async () => {
  for (const text of BAD_TEXTS) {
    await rejects(() => tr.translate(text), 'invalid_utf8');
    await rejects(() => tr.translate(['Open file', text]), 'invalid_utf8');
    await rejects(() => tr.translateDetailed('Open file', { prefix: `Ouvrir${text}` }), 'invalid_utf8');
  }
  const e = await rejects(() => tr.translate('caf\u00e9\uDC80'), 'invalid_utf8');
  assert.match(e.detail, /at byte 5/);  // UTF-8 bytes, as every surface counts them
  // A pair is one character, translated as its UTF-8.
  assert.equal(await tr.translate('Smile \uD83D\uDE00'), await tr.translate('Smile \u{1F600}'));
  assert.equal(await tr.translate(expected.sentences[0].source), expected.sentences[0].native);
});
await check('with replaceInvalidUtf8 each lone surrogate or NUL is one U+FFFD', async () => {
  const t5 = await Translator.create(bytes, { beam: expected.beam, replaceInvalidUtf8: true });
  for (const text of BAD_TEXTS) {
    const fixed = withFffd(text);
    assert.notEqual(fixed, text);
    assert.deepEqual((await t5.translateDetailed(text)).sourcePieces, (await t5.translateDetailed(fixed)).sourcePieces);
    assert.equal(await t5.translate(text), await t5.translate(fixed));
    assert.deepEqual(await t5.translate(['Open file', text]), await t5.translate(['Open file', fixed]));
  }
  t5.dispose();
});
// Issue 49, a failing line fails alone: translateEach / translateDetailedEach give each text its
// translation or, in its place, its error; translate() with an array stays all or nothing.
await check('translateEach: 30 texts, 10 bad: the good ones translated in place, the bad ones their error', async () => {
  const over = 'x'.repeat((1 << 20) + 1);  // over max_line_bytes (1 MiB): input_too_long before tokenising
  const offsets = new Map([['a\uDC80b', 1], ['x\uD800y', 1], ['Open\0 file', 4], ['\uDFFF', 0], ['\uDE00\uD83D', 0],
                           ['caf\u00e9\uDC80', 5]]);
  const bad = [...offsets.keys(), over];
  const texts = [];
  const want = [];  // null: a bad text
  for (let i = 0, n = 0; i < 30; ++i) {
    const s = expected.sentences[i % expected.sentences.length];
    texts.push(i % 3 === 1 ? bad[n++ % bad.length] : s.source);
    want.push(i % 3 === 1 ? null : s.native);
  }
  assert.equal(want.filter((w) => w === null).length, 10);
  const out = await tr.translateEach(texts);
  const detailed = await tr.translateDetailedEach(texts);
  assert.equal(out.length, 30);
  assert.equal(detailed.length, 30);
  for (let i = 0; i < texts.length; ++i) {
    if (want[i] !== null) {
      assert.equal(out[i], want[i], `texts[${i}]`);
      assert.equal(detailed[i].hypotheses[0].text, want[i], `texts[${i}] detailed`);
      continue;
    }
    const status = texts[i] === over ? 'input_too_long' : 'invalid_utf8';
    for (const e of [out[i], detailed[i]]) {
      assert.ok(e instanceof SoftalignError, `texts[${i}]: ${e}`);
      assert.equal(e.status, status, e.message);
      assert.ok(e.message.startsWith(`${status}: texts[${i}]: `), e.message);
      // Its own message, the one it gets alone: the offset of its bad character.
      if (status === 'invalid_utf8') assert.match(e.detail, new RegExp(`\\(at byte ${offsets.get(texts[i])}\\)$`));
    }
  }
  await rejects(() => tr.translate(texts), 'invalid_utf8');  // all or nothing, as before
  await rejects(() => tr.translateDetailed(texts), 'invalid_utf8');
  const good = texts.filter((_, i) => want[i] !== null);
  assert.deepEqual(await tr.translateEach(good), await tr.translate(good));
  assert.deepEqual(await tr.translateEach([]), []);
  await rejects(() => tr.translateEach('Open file'), 'invalid_argument');  // a wrong call still rejects
  await rejects(() => tr.translateEach(['Open file', 3]), 'invalid_argument');
  assert.equal(await tr.translate(texts[0]), want[0]);  // usable after
  // With replaceInvalidUtf8 the bad texts are translated (U+FFFD in place); the long line still fails.
  const t6 = await Translator.create(bytes, { beam: expected.beam, replaceInvalidUtf8: true, alignment: true });
  const fixed = await t6.translateDetailedEach(texts);
  for (let i = 0; i < texts.length; ++i) {
    if (texts[i] === over) {
      assert.ok(fixed[i] instanceof SoftalignError && fixed[i].status === 'input_too_long', `${fixed[i]}`);
      continue;
    }
    assert.ok(!(fixed[i] instanceof SoftalignError), `texts[${i}]: ${fixed[i]}`);
    assert.ok(fixed[i].hypotheses[0].alignment.weights instanceof Float32Array);
    assert.equal(fixed[i].hypotheses[0].text, want[i] ?? await t6.translate(withFffd(texts[i])), `texts[${i}]`);
  }
  t6.dispose();
});
await check('float options refuse NaN: invalid_argument', async () => {
  for (const name of ['alpha', 'beta', 'maxLenA', 'maxLenB'])
    await rejects(() => Translator.create(bytes, { [name]: NaN }), 'invalid_argument');
});
await check('a disposed translator rejects', async () => {
  const t3 = await Translator.create(bytes);
  t3.dispose();
  t3.dispose();
  await rejects(() => t3.translate('Hello'), 'invalid_argument');
  await rejects(() => t3.translateEach(['Hello']), 'invalid_argument');
});
await check('streaming: the events equal the result; false from onEvent stops it (cancelled)', async () => {
  const t = await Translator.create(bytes, { beam: 1, maxSourceTokens: 16 });
  const text = 'This package contains the documentation. A simple text editor. Tools to manage the files of a project.';
  const events = [];
  const r = await t.translateStream(text, (e) => { events.push(e); });
  const h = r.hypotheses[0];
  assert.deepEqual(events.filter((e) => e.kind === 'piece').map((e) => e.text), h.pieces);
  const sentences = events.filter((e) => e.kind === 'sentence');
  assert.deepEqual(sentences.map((e) => e.index), [0, 1, 2]);
  assert.equal(sentences.map((e) => e.text).filter((x) => x).join(' '), h.text);
  const iterated = [];
  for await (const e of t.translateIter(text)) iterated.push(e);
  assert.deepEqual(iterated, events);
  let n = 0;
  await rejects(() => t.translateStream(text, () => ++n < 3), 'cancelled');
  assert.equal(n, 3);
  const mine = new Error('mine');
  await assert.rejects(() => t.translateStream(text, () => { throw mine; }), (e) => e === mine);
  assert.equal((await t.translateDetailed(text)).hypotheses[0].text, h.text);
  t.dispose();
});
await check('timeoutMs: a 900 kB line rejects with deadline_exceeded; the translator goes on', async () => {
  const t = await Translator.create(bytes, { beam: 4, timeoutMs: 100 });
  const s = 'This package contains the documentation. A simple text editor with many plugins. ';
  const start = performance.now();
  await rejects(() => t.translate(s.repeat(Math.floor(900 * 1024 / s.length)).trim()), 'deadline_exceeded');
  const ms = performance.now() - start;
  console.log(`     stop: JS (node, this thread) timeoutMs 100: rejected at ${ms.toFixed(1)} ms`);
  assert.ok(ms < 5000);
  // It goes on (this call without the deadline: on a loaded machine a short
  // text may take 100 ms too, and no test may fail on a timing).
  assert.equal(await t.translate('A simple text editor.', { timeoutMs: 0 }), await tr.translate('A simple text editor.'));
  t.dispose();
});
await check('timeoutMs per call: that call\'s deadline, then the translator\'s again', async () => {
  const t = await Translator.create(bytes, { beam: 4 });
  const s = 'This package contains the documentation. A simple text editor with many plugins. ';
  const huge = s.repeat(Math.floor(900 * 1024 / s.length)).trim();
  const start = performance.now();
  await rejects(() => t.translate(huge, { timeoutMs: 100 }), 'deadline_exceeded');
  console.log(`     stop: JS (node) translate(text, { timeoutMs: 100 }): rejected at ${(performance.now() - start).toFixed(1)} ms`);
  const each = await t.translateEach(['A simple text editor.', huge], { timeoutMs: 100 });
  assert.equal(each[1].status, 'deadline_exceeded');
  await rejects(() => t.translateStream(huge, () => true, { timeoutMs: 100 }), 'deadline_exceeded');
  await rejects(() => t.translate('x', { timeoutMs: -1 }), 'invalid_argument');
  // The next call has no deadline again.
  assert.equal(await t.translate('A simple text editor.'), await tr.translate('A simple text editor.'));
  const timed = await Translator.create(bytes, { beam: 4, timeoutMs: 100 });
  assert.equal(await timed.translate('A simple text editor.', { timeoutMs: 0 }), await tr.translate('A simple text editor.'));
  await rejects(() => timed.translate(huge), 'deadline_exceeded');  // the translator's own again
  timed.dispose();
  t.dispose();
});
tr.dispose();
console.log(failures === 0 ? 'all passed' : `${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
