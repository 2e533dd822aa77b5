// Fuzz target: a whole model file from bytes. Model::load_from_bytes, then,
// when it loads, prepare (bounded options, see below), translate an ASCII and a
// non-ASCII sentence, one with and without attention/alignments, translate_ids, decode_target and (for
// small vocabularies) force_decode. Every outcome must be a Status or a
// translation: a crash, an abort, a sanitizer report, a timeout or an
// out-of-memory is a finding. Seeds: every golden model in every precision
// and the shipped int8 files (tests/fuzz/run_fuzzers.sh makes the corpus).
//
// prepare uses explicit, small limits (max 64 source tokens, beam 2, T <= 1 * S
// + 8) so that the arena stays proportional to the file, not to fuzzed
// defaults: unbounded model defaults are the corruption sweep's and the
// runtime's own tests' business (a prepare cap is a separate, known issue).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "softalign/softalign.hpp"

using namespace softalign;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<const Model> model;
  if (!Model::load_from_bytes(data, size, &model).ok()) return 0;
  const ModelConfig& c = model->config();
  TranslatorOptions opt;
  opt.max_source_tokens = std::min(c.max_src_len, 64);
  opt.search.beam_size = 2;
  opt.search.nbest = 2;
  opt.search.max_len_a = 1.0f;
  opt.search.max_len_b = 8.0f;
  opt.long_input = LongInputPolicy::kSplit;
  opt.invalid_utf8 = InvalidUtf8Policy::kReplace;
  std::unique_ptr<Translator> tr;
  if (!Translator::prepare(model, opt, &tr).ok()) return 0;

  TranslationResult r;
  (void)tr->translate("This is a test.", &r);
  // Text the normaliser rewrites (full-width, ligature, circled, combining, CJK, emoji).
  (void)tr->translate("\xEF\xBC\xA1\xEF\xBC\xA2 \xEF\xAC\x81le \xE2\x91\xA0 cafe\xCC\x81 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80", &r);
  SearchOptions so;
  so.beam_size = 1;
  so.return_alignment = true;
  (void)tr->translate("A simple text editor.", so, &r);

  std::vector<int32_t> ids = {std::min(5, c.src_vocab - 1), std::min(6, c.src_vocab - 1), c.eos_id};
  NBestView view;
  (void)tr->translate_ids(Span<const int32_t>(ids.data(), ids.size()), &view);
  std::string text;
  (void)model->decode_target(ids.data(), ids.size(), &text);

  if (c.tgt_vocab <= 65536) {
    const std::vector<int32_t> target_in = {c.bos_id, std::min(5, c.tgt_vocab - 1)};
    std::vector<float> logits(target_in.size() * static_cast<size_t>(c.tgt_vocab));
    std::vector<float> attention(target_in.size() * ids.size());
    (void)tr->force_decode(Span<const int32_t>(ids.data(), ids.size()),
                           Span<const int32_t>(target_in.data(), target_in.size()), logits.data(), attention.data());
  }
  return 0;
}
