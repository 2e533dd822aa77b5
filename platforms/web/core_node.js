// Prepended to softalign-core.mjs, outside emscripten's module factory
// (--extern-pre-js). Under node, emscripten 3.1.6's ES-module output calls
// require() and reads __dirname, which an ES module does not have (later
// emscripten versions make both themselves, this way). They are this
// module's own variables: nothing global is set, and in a page or a worker
// they stay undefined.
let require, __dirname;
if (typeof process === 'object' && typeof process.versions?.node === 'string') {
  const { createRequire } = await import('node:module');
  const { fileURLToPath } = await import('node:url');
  require = createRequire(import.meta.url);
  __dirname = fileURLToPath(new URL('.', import.meta.url)).replace(/\/$/, '');
}
