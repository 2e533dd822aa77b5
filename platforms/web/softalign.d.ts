// TypeScript declarations of softalign.js (the JS API of the WebAssembly build).

/** The C API's status names (softalign_status_name). */
export type StatusName =
  | 'invalid_argument' | 'not_found' | 'io_error' | 'invalid_model' | 'unsupported_version'
  | 'input_too_long' | 'invalid_utf8' | 'unsupported' | 'internal' | 'resource_exhausted'
  | 'cancelled' | 'deadline_exceeded';

/** What every rejected promise of this API carries. */
export class SoftalignError extends Error {
  readonly name: 'SoftalignError';
  /** The status name, e.g. "invalid_model". */
  readonly status: StatusName;
  /** The library's message, without the status name. */
  readonly detail: string;
}

/**
 * A translator's options, fixed when it is made: the library's options (softalign.h,
 * softalign_translator_create_json) in camelCase. Only those given are passed; an omitted one
 * takes the library's default (the search options: the model's). An unknown name or a value of
 * the wrong type (a NaN included) is invalid_argument, as a value out of range is.
 */
export interface TranslatorOptions {
  /** Beam size >= 1 (1 is greedy). */
  beam?: number;
  /** Hypotheses per sentence, 1..beam. */
  nbest?: number;
  /** Results carry the attention matrix and Pharaoh alignments. */
  alignment?: boolean;
  /** The longest source in pieces (EOS included); 0: the model's. */
  maxSourceTokens?: number;
  /** URLs, paths, identifiers and code come out unchanged. */
  copyThrough?: boolean;
  /** Every placeholder of the source (%s, {0}, <b>, &amp;) comes out exactly once. */
  repairPlaceholders?: boolean;
  /** Terms that must come out as given: [source, target] pairs, or TSV text. */
  glossary?: [string, string][] | string;
  /** The model's vocabulary shortlist, if it has one. */
  useShortlist?: boolean;
  /** Split a source longer than maxSourceTokens; false: input_too_long. */
  splitLongInput?: boolean;
  /**
   * A lone surrogate or a NUL in a text is not text: rejected with invalid_utf8, or with true
   * replaced by U+FFFD, one each (docs/guarantees.md).
   */
  replaceInvalidUtf8?: boolean;
  /** Refuse repeats of up to this many pieces, 0 (off) to 8. */
  blockRepeats?: number;
  /**
   * Whose beam search: softalign's, or OpenNMT-py's or JoeyNMT's (an imported model's default;
   * models/WEIGHTS_FORMAT.md "Beam rules"); null: the model's.
   */
  beamRules?: 'softalign' | 'opennmt' | 'joeynmt' | null;
  /** Length and coverage penalties, max length floor(a * S + b), each >= 0. */
  alpha?: number;
  beta?: number;
  maxLenA?: number;
  maxLenB?: number;
  /** Sentences of an array decoded together. */
  maxBatch?: number;
  /** The longest text one translation takes, in UTF-8 bytes. */
  maxLineBytes?: number;
  /** The most working memory the translator may reserve, in bytes. */
  maxArenaBytes?: number;
  /** '': the best kernel set (wasm_simd128); 'wasm_simd' (the NEON kernels through SIMDe); 'ref': the reference kernels. */
  kernels?: string;
  /**
   * Every call's deadline in milliseconds from its start (0: none), checked inside the module: a
   * call past it rejects with deadline_exceeded within a decoder step, and the translator goes on.
   */
  timeoutMs?: number;
}

/** What a model file says about itself. */
export interface ModelInfo {
  name: string;
  srcLang: string;
  tgtLang: string;
  variant: string;
  weightType: 'f32' | 'f16' | 'i8';
  srcVocab: number;
  tgtVocab: number;
  maxSourceTokens: number;
  defaultBeam: number;
  fileBytes: number;
  /** Text in and out is tokens separated by spaces (softalign-import --pretokenized). */
  pretokenized: boolean;
}

export interface Alignment {
  /** Target pieces + the EOS row (no EOS row when cut at the max length). */
  rows: number;
  /** Source pieces + the source EOS. */
  cols: number;
  /** Row-major attention weights, rows x cols. */
  weights: Float32Array;
}

export interface Hypothesis {
  text: string;
  /** The ranking score: log-probability / length penalty + coverage penalty. */
  score: number;
  /** Summed log-probability, EOS included. */
  logProb: number;
  /** How far to trust the text, in [0, 1] (docs/api.md, "Confidence"). */
  confidence: number;
  /** The model's own text lacked a placeholder of the source, or held another (repairPlaceholders). */
  placeholdersRepaired: boolean;
  ids: number[];
  pieces: string[];
  /** With options.alignment only. */
  alignment?: Alignment;
  /** Piece alignment, "src-tgt" pairs ("0-0 1-2 ..."); with options.alignment only. */
  pharaoh?: string;
  /** The same over whitespace-separated words. */
  pharaohWords?: string;
}

export interface TranslationResult {
  sourcePieces: string[];
  /** Copied-through spans of the source, [begin, end) UTF-8 bytes. */
  protectedSpans: [number, number][];
  /** The glossary terms' occurrences in the source, the same way. */
  glossaryMatches: [number, number][];
  /** The n-best hypotheses, best first. */
  hypotheses: Hypothesis[];
}

/** What any call takes. */
export interface CallOptions {
  /**
   * This call's deadline in milliseconds from its start (0: none), over the translator's
   * timeoutMs: past it the call rejects with deadline_exceeded within a decoder step (an array
   * translated each alone: the texts not done get it), and the translator goes on.
   */
  timeoutMs?: number;
}

export interface TranslateOptions extends CallOptions {
  /** Forces the translation's beginning (one text only). */
  prefix?: string;
}

/** WorkerTranslator's calls also take an AbortSignal. */
export interface WorkerCallOptions {
  /**
   * Its abort rejects the call at once with 'cancelled'. The worker, busy in the call, reads no
   * message until it ends, so a translator's own worker is ended and a new one makes the
   * translator again for the next calls (its other waiting calls are rejected too); in a worker
   * passed to create(), the call runs on there and its result is dropped.
   */
  signal?: AbortSignal;
}

/** What streaming tells, as the translation goes on. */
export interface StreamEvent {
  /**
   * 'piece' (beam 1 only): a decoder step's piece of sentence `index`; the pieces of a sentence
   * are its best hypothesis's pieces. 'sentence': sentence `index` is done, `text` its
   * translation; a text within maxSourceTokens is one sentence, a longer one is split, and the
   * result's text is the sentences' texts joined by a space (empty ones skipped).
   */
  kind: 'piece' | 'sentence';
  index: number;
  /** A piece's target id; -1 for a sentence. */
  id: number;
  /** The piece ("\u2581fichier") or the sentence's translation. */
  text: string;
}

export type ModelBytes = ArrayBuffer | ArrayBufferView | Blob;

/**
 * Starts loading the WebAssembly module (softalign-core.wasm, compiled while
 * it downloads) without waiting for it; the first call that needs it waits
 * and reports a failure (io_error). The worker calls it when it starts.
 */
export function preload(): void;

/** A translator on the calling thread. */
export class Translator {
  /** Loads a model from its bytes and makes a translator; rejects with a SoftalignError. */
  static create(modelBytes: ModelBytes, options?: TranslatorOptions): Promise<Translator>;
  /** The library's version, e.g. "0.1.0". */
  static version(): Promise<string>;
  readonly info: ModelInfo;
  readonly options: Required<TranslatorOptions> & Record<string, unknown>;
  translate(text: string, options?: TranslateOptions): Promise<string>;
  translate(texts: string[], options?: TranslateOptions): Promise<string[]>;
  translateDetailed(text: string, options?: TranslateOptions): Promise<TranslationResult>;
  translateDetailed(texts: string[], options?: TranslateOptions): Promise<TranslationResult[]>;
  /**
   * Texts translated together, each failing alone: one item per text, in order, its translation
   * or, in its place (not thrown), the SoftalignError it failed with (invalid_utf8,
   * input_too_long, ...; detail "texts[I]: " and the message the text gets alone). translate()
   * with an array is all or nothing. Rejects only for a wrong call (not an array of strings, a
   * disposed translator) or an error of the call itself.
   */
  translateEach(texts: string[], options?: CallOptions): Promise<(string | SoftalignError)[]>;
  /** translateEach with the full results. */
  translateDetailedEach(texts: string[], options?: CallOptions): Promise<(TranslationResult | SoftalignError)[]>;
  /**
   * Streaming, on this thread inside the call: onEvent is told each event; returning false stops
   * the call (rejects with 'cancelled'). Resolves to the result.
   */
  translateStream(text: string, onEvent: (event: StreamEvent) => boolean | void, options?: CallOptions):
    Promise<TranslationResult>;
  /** The events as an async iterator (here they come when the call is done); returns the result. */
  translateIter(text: string, options?: CallOptions): AsyncGenerator<StreamEvent, TranslationResult, undefined>;
  /** Bytes of working memory the translator reserved. */
  arenaBytes(): number;
  /** Frees the translator and the model; later calls reject with invalid_argument. */
  dispose(): void;
}

export interface WorkerOptions {
  /** A worker from WorkerTranslator.startWorker() to use (and keep running after dispose); it may hold several translators. */
  worker?: Worker;
  /** Where softalign-worker.js is (default: beside softalign.js). */
  workerUrl?: string | URL;
  /** Hand the ArrayBuffer over to the worker instead of copying it. */
  transfer?: boolean;
}

/** The same API in a Web Worker: the page never blocks. */
export class WorkerTranslator {
  /** A worker running softalign-worker.js, for create({ worker }): start it while online. */
  static startWorker(workerUrl?: string | URL): Worker;
  static create(modelBytes: ModelBytes, options?: TranslatorOptions, worker?: WorkerOptions): Promise<WorkerTranslator>;
  readonly info: ModelInfo;
  readonly options: Required<TranslatorOptions> & Record<string, unknown>;
  translate(text: string, options?: TranslateOptions & WorkerCallOptions): Promise<string>;
  translate(texts: string[], options?: TranslateOptions & WorkerCallOptions): Promise<string[]>;
  translateDetailed(text: string, options?: TranslateOptions & WorkerCallOptions): Promise<TranslationResult>;
  translateDetailed(texts: string[], options?: TranslateOptions & WorkerCallOptions): Promise<TranslationResult[]>;
  translateEach(texts: string[], options?: CallOptions & WorkerCallOptions): Promise<(string | SoftalignError)[]>;
  translateDetailedEach(texts: string[], options?: CallOptions & WorkerCallOptions):
    Promise<(TranslationResult | SoftalignError)[]>;
  /** Streaming in the worker: onEvent is told each event as it happens. */
  translateStream(text: string, onEvent: (event: StreamEvent) => void, options?: CallOptions & WorkerCallOptions):
    Promise<TranslationResult>;
  /**
   * The events as an async iterator, as they happen; returns the result. Leaving the loop early
   * stops the call as an abort does.
   */
  translateIter(text: string, options?: CallOptions & WorkerCallOptions): AsyncGenerator<StreamEvent, TranslationResult, undefined>;
  arenaBytes(): Promise<number>;
  /** Ends the worker, or frees the model in a worker passed to create(). */
  dispose(): void;
}
