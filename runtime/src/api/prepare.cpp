// Prepare: resolve the options, pick the kernels and the engine, plan + reserve the arena.
#include <pthreadpool.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <sentencepiece_processor.h>

#include "api/translator_impl.hpp"
#include "backends/cpu/cpu_engine.hpp"
#include "search/ensemble_engine.hpp"
#if SOFTALIGN_HAVE_VULKAN
#include "backends/vulkan/vulkan_backend.hpp"
#endif

namespace softalign::internal {

TranslatorImpl::~TranslatorImpl() {
  if (pool != nullptr) pthreadpool_destroy(pool);
}

int TranslatorImpl::max_target_for(int src_len, const Search& s) const {
  const double t = std::floor(static_cast<double>(s.max_len_a) * src_len + static_cast<double>(s.max_len_b));
  return static_cast<int>(std::max(1.0, std::min(t, 1e6)));
}

Status TranslatorImpl::resolve(const SearchOptions& o, Search* out) const {
  const DecodingDefaults& d = c->decoding;
  Search s;
  s.beam = o.beam_size.value_or(d.beam);
  s.nbest = o.nbest.value_or(std::min(d.nbest, s.beam));
  s.alpha = o.alpha.value_or(d.alpha);
  s.beta = o.beta.value_or(d.beta);
  s.max_len_a = o.max_len_a.value_or(d.max_len_a);
  s.max_len_b = o.max_len_b.value_or(d.max_len_b);
  s.block_repeats = o.block_repeats.value_or(d.block_repeats);
  s.rules = o.beam_rules.value_or(d.beam_rules);
  s.shortlist = o.use_shortlist.value_or(options.use_shortlist) && m->shortlist.present();
  auto bad = [](const std::string& m) { return Status(StatusCode::kInvalidArgument, m); };
  if (s.shortlist && !options.use_shortlist)
    return bad("use_shortlist: this translator was prepared without the shortlist (TranslatorOptions::use_shortlist)");
  if (!o.target_prefix.empty())
    return bad("target_prefix is text for translate() and translate_batch(); the ids calls take target_prefix_ids");
  if (!o.target_prefix_ids.empty() && o.target_prefix_ids.data() == nullptr)
    return bad("target_prefix_ids: null data");
  for (std::size_t i = 0; i < o.target_prefix_ids.size(); ++i) {
    const int32_t id = o.target_prefix_ids[i];
    if (id < 0 || id >= c->tgt_vocab || id == c->eos_id)
      return bad("target prefix id " + std::to_string(id) + " at position " + std::to_string(i) +
                 " is outside [0, " + std::to_string(c->tgt_vocab) + ") or is the EOS id");
  }
  // A forced id must have its column: a prefix decodes over the whole vocabulary.
  if (!o.target_prefix_ids.empty()) s.shortlist = false;
  s.prefix = o.target_prefix_ids.data();
  s.prefix_len = static_cast<int>(std::min<std::size_t>(o.target_prefix_ids.size(), INT32_MAX));
  using L = ConfigLimits;
  if (s.beam < 1 || s.beam > L::kMaxBeam)
    return bad("beam size must be in [1, " + std::to_string(L::kMaxBeam) + "], got " + std::to_string(s.beam));
  // Top-k indices (beam x vocabulary candidates) are int32: the limits keep them so.
  static_assert(static_cast<int64_t>(L::kMaxBeam) * L::kMaxVocab <= INT32_MAX, "top-k indices overflow int32");
  if (K > 0 && s.beam > K)
    return bad("beam size " + std::to_string(s.beam) + " exceeds the prepared beam size " + std::to_string(K));
  if (s.nbest < 1 || s.nbest > s.beam)
    return bad("nbest must be in [1, beam size], got " + std::to_string(s.nbest));
  const std::string penalty = std::to_string(static_cast<int>(L::kMaxPenalty));
  if (!(s.alpha >= 0.0f && s.alpha < L::kMaxPenalty)) return bad("alpha must be in [0, " + penalty + ")");
  if (!(s.beta >= 0.0f && s.beta < L::kMaxPenalty)) return bad("beta must be in [0, " + penalty + ")");
  if (!(s.max_len_a >= 0.0f && s.max_len_a <= L::kMaxLenA))
    return bad("max_len_a must be in [0, " + std::to_string(static_cast<int>(L::kMaxLenA)) + "]");
  if (!(s.max_len_b >= 0.0f && s.max_len_b <= L::kMaxLenB))
    return bad("max_len_b must be in [0, " + std::to_string(static_cast<int>(L::kMaxLenB)) + "]");
  if (o.timeout_ms.value_or(0) < 0)
    return bad("timeout_ms must be >= 0 (0: no deadline), got " + std::to_string(*o.timeout_ms));
  if (s.block_repeats < 0 || s.block_repeats > L::kMaxBlockRepeats)
    return bad("block_repeats must be in [0, " + std::to_string(L::kMaxBlockRepeats) + "], got " +
               std::to_string(s.block_repeats));
  if (s.rules != BeamRules::kSoftalign && (s.nbest != 1 || s.beta != 0.0f || s.block_repeats != 0 || s.prefix_len > 0))
    return bad(std::string("beam_rules ") + beam_rules_name(s.rules) +
               " returns one hypothesis and has no coverage penalty, repetition blocking or target prefix: nbest must "
               "be 1, beta 0, block_repeats 0, and no prefix (beam_rules softalign has them)");
  *out = s;
  return Status::Ok();
}

Status TranslatorImpl::prepare(const std::vector<std::shared_ptr<const Model>>& mdls, const TranslatorOptions& opts) {
  auto bad = [](const std::string& msg) { return Status(StatusCode::kInvalidArgument, msg); };
  if (mdls.empty()) return bad("no model: a translator needs one model, or several for an ensemble");
  if (mdls.size() > static_cast<std::size_t>(TranslatorOptions::kMaxEnsemble))
    return bad("an ensemble of " + std::to_string(mdls.size()) + " models; at most " +
               std::to_string(TranslatorOptions::kMaxEnsemble));
  std::vector<const ModelImpl*> impls;
  for (std::size_t i = 0; i < mdls.size(); ++i) {
    if (mdls[i] == nullptr) return bad("model " + std::to_string(i) + " is null");
    impls.push_back(&ModelAccess::impl(*mdls[i]));
  }
  Status st = check_ensemble(impls);
  if (!st.ok()) return st;
  models = mdls;
  model = models[0];
  m = impls[0];
  c = &m->config;
  options = opts;
  // S_max is a planning limit, except where the weights have S_max rows; an
  // ensemble takes its members' smallest.
  int longest = ConfigLimits::kMaxSourceLength, max_src_len = impls[0]->config.max_src_len;
  for (const ModelImpl* mi : impls) {
    const ModelConfig& mc = mi->config;
    longest = std::min(longest, mc.score == Score::kLocation ? mc.max_src_len : ConfigLimits::kMaxSourceLength);
    max_src_len = std::min(max_src_len, mc.max_src_len);
  }
  if (opts.max_source_tokens < 0 || opts.max_source_tokens > longest)
    return bad("max_source_tokens must be in [0, " + std::to_string(longest) + "] (0 = the model's " +
               std::to_string(max_src_len) + "), got " + std::to_string(opts.max_source_tokens));
  if (opts.threads < 1 || opts.threads > TranslatorOptions::kMaxThreads)
    return bad("threads must be in [1, " + std::to_string(TranslatorOptions::kMaxThreads) + "]");
  constexpr int kMaxBatch = TranslatorOptions::kMaxBatch;
  if (opts.max_batch < 1 || opts.max_batch > kMaxBatch)
    return bad("max_batch must be in [1, " + std::to_string(kMaxBatch) + "], got " + std::to_string(opts.max_batch));
  if (!opts.search.target_prefix.empty() || !opts.search.target_prefix_ids.empty())
    return bad("a target prefix is an option of one call, not of the translator");
  st = check_glossary(opts.glossary);
  if (!st.ok()) return st;
  glossary = GlossaryIndex(opts.glossary);
  B = opts.max_batch;
  S = opts.max_source_tokens == 0 ? max_src_len : opts.max_source_tokens;
  options.max_source_tokens = S;

  Search s;
  st = resolve(opts.search, &s);
  if (!st.ok()) return st;
  K = s.beam;
  T = max_target_for(S, s);
  // Record the resolved defaults.
  options.search.beam_size = s.beam;
  options.search.nbest = s.nbest;
  options.search.alpha = s.alpha;
  options.search.beta = s.beta;
  options.search.max_len_a = s.max_len_a;
  options.search.max_len_b = s.max_len_b;
  options.search.block_repeats = s.block_repeats;
  options.search.beam_rules = s.rules;

  // The lookup reads the name as a C string: a NUL would cut it ("\0bogus" was "", the default set).
  if (opts.kernels.find('\0') != std::string::npos) return bad("kernels holds a NUL character");
  k = kernels::select_kernels(opts.kernels.c_str());
  if (k == nullptr)
    return bad("unknown or unsupported kernel set \"" + std::string(kernels::requested_kernels(opts.kernels.c_str())) +
               "\" (" + (opts.kernels.empty() ? "SOFTALIGN_KERNELS" : "options.kernels") + ")");
  if (opts.threads > 1) {
    pool = pthreadpool_create(static_cast<size_t>(opts.threads));
    if (pool == nullptr) return Status(StatusCode::kInternal, "cannot create the thread pool");
  }

  EngineLimits limits;
  limits.max_source = S;
  limits.max_rows = K;
  limits.max_sentences = B;
  limits.shortlist = options.use_shortlist;
  st = choose_engine(limits, impls);
  if (!st.ok()) return st;

  // Plan, check against the cap (this translator and translate_batch's
  // workers each reserve one such arena), reserve, lay out for real.
  Arena measure;
  layout(measure);
  const double mib = 1024.0 * 1024.0;
  auto in_mib = [&](double bytes) { return std::to_string(static_cast<long long>(std::ceil(bytes / mib))) + " MiB"; };
  const double planned = static_cast<double>(measure.used()) * opts.threads;
  if (measure.overflowed() || planned > static_cast<double>(opts.max_arena_bytes))
    return Status(StatusCode::kResourceExhausted,
                  "this translator needs " + in_mib(planned) + " of working memory, more than max_arena_bytes (" +
                      in_mib(static_cast<double>(opts.max_arena_bytes)) +
                      "): lower the beam size, max_len_a/max_len_b, max_source_tokens or threads, or raise the limit");
  if (!arena.reserve(measure.used()))
    return Status(StatusCode::kResourceExhausted, "cannot reserve " + in_mib(static_cast<double>(measure.used())) +
                                                      " for the translator's working memory");
  layout(arena);
  if (arena.overflowed()) return Status(StatusCode::kInternal, "the arena layout does not fit its plan");
  const sentencepiece::SentencePieceProcessor* tgt = m->tgt();
  uint8_t* word_start = search_.word_start();
  // A piece starts a word when it starts with U+2581; a pretokenized model's tokens are words each.
  for (int id = 0; id < c->tgt_vocab; ++id)
    word_start[id] = id < tgt->GetPieceSize() && !tgt->IsControl(id) &&
                     (c->pretokenized || tgt->IdToPiece(id).rfind("\xE2\x96\x81", 0) == 0);
  return Status::Ok();
}

// The engine (engine.hpp): Vulkan when asked for (or, for auto, on a real
// GPU), else the CPU; a backend's transformed weights belong to the Model.
// An ensemble is one engine per member, of the same backend, every member
// selecting from the first member's shortlist.
Status TranslatorImpl::choose_engine(const EngineLimits& limits, const std::vector<const ModelImpl*>& impls) {
  const Backend asked = options.backend;
  auto one_engine = [&](std::vector<std::unique_ptr<Engine>> engines) {
    if (engines.size() == 1)
      engine_ = std::move(engines[0]);
    else
      engine_ = std::make_unique<EnsembleEngine>(std::move(engines), *k, limits, c->tgt_vocab);
  };
  // auto's rule: a GPU only for a translator that decodes batches together.
  // One sentence at a time a GPU gains little (an H200: 1.08x one CPU core at
  // batch 1, 2.9x at 32, 6.6x at 256; tests/bench/README.md) and costs its
  // upload and device memory.
  constexpr int kAutoGpuBatch = 8;
  if (asked == Backend::kCpu) {
    backend.reason = "backend=cpu";
  } else if (asked == Backend::kAuto && limits.max_sentences < kAutoGpuBatch) {
    backend.reason = "backend=auto: the CPU for fewer than " + std::to_string(kAutoGpuBatch) +
                     " sentences decoded together (max_batch " + std::to_string(limits.max_sentences) +
                     "); a GPU pays from batches";
  } else {
    Status vs;
    std::vector<std::unique_ptr<Engine>> engines;
#if SOFTALIGN_HAVE_VULKAN
    for (const ModelImpl* mi : impls) {
      std::unique_ptr<Engine> e;
      vs = make_vulkan_engine(mi->plan, m->shortlist, *k, limits, asked == Backend::kVulkan, &e, &backend.device);
      if (!vs.ok()) break;
      engines.push_back(std::move(e));
    }
#else
    vs = Status(StatusCode::kUnsupported, "this build has no Vulkan backend (SOFTALIGN_VULKAN=OFF)");
#endif
    if (vs.ok()) {
      one_engine(std::move(engines));
      backend.backend = Backend::kVulkan;
      backend.name = "vulkan";
      backend.reason = asked == Backend::kVulkan ? "backend=vulkan" : "backend=auto: a Vulkan GPU";
      const DeviceCosts costs = engine_->costs();
      device_costs.step_dispatches = costs.step.dispatches;
      device_costs.step_barriers = costs.step.barriers;
      device_costs.step_weight_bytes = costs.step.weight_bytes;
      device_costs.greedy_step_dispatches = costs.greedy.dispatches;
      device_costs.greedy_step_barriers = costs.greedy.barriers;
      device_costs.greedy_steps_per_submit = engine_->greedy_steps();
      device_costs.encoder_dispatches = costs.encoder.dispatches;
      device_costs.encoder_barriers = costs.encoder.barriers;
      device_costs.host_operations = costs.host_operations;
      return Status::Ok();
    }
    if (asked == Backend::kVulkan)
      return Status(vs.code(), "backend=vulkan: " + vs.message());
    backend.device.clear();
    backend.reason = "backend=auto: " + vs.message();
  }
  std::vector<std::unique_ptr<Engine>> engines;
  for (const ModelImpl* mi : impls) {
    auto cw = std::make_unique<CpuWeights>();
    Status st = build_cpu_weights(mi->plan, cw.get());
    if (!st.ok()) return st;
    engines.push_back(std::make_unique<CpuEngine>(mi->plan, m->shortlist, std::move(cw), *k, pool, limits));
  }
  one_engine(std::move(engines));
  return Status::Ok();
}

void TranslatorImpl::layout(Arena& a) {
  engine_->layout(a);
  SearchLimits limits;
  limits.max_source = S;
  limits.max_beam = K;
  limits.max_target = T;
  limits.max_sentences = B;
  limits.vocab = c->tgt_vocab;
  limits.bos_id = c->bos_id;
  limits.pad_id = c->pad_id;
  limits.eos_id = c->eos_id;
  search_.layout(a, limits, *k);
  const std::size_t b = B;
  src_len_ = a.take<int32_t>(b);
  t_max_ = a.take<int32_t>(b);
  batch_srcs_ = a.take<const int32_t*>(b);
  batch_lens_ = a.take<std::size_t>(b);
}

}  // namespace softalign::internal
