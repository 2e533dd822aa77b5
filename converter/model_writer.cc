#include "model_writer.h"

#include <algorithm>
#include <cstring>

#include "error.h"
#include "softalign_format.h"
#include "softalign_names.h"

namespace softalign::convert {

namespace {

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> key_values(
    flatbuffers::FlatBufferBuilder& b, const std::map<std::string, std::string>& kv) {
  std::vector<flatbuffers::Offset<fb::KeyValue>> v;
  for (const auto& [k, val] : kv)  // std::map: already sorted by key
    v.push_back(fb::CreateKeyValue(b, b.CreateString(k), b.CreateString(val)));
  return b.CreateVector(v);
}

}  // namespace

flatbuffers::DetachedBuffer build_model_file(const ModelConfig& c, std::vector<OutTensor> tensors,
                                      const std::string& src_spm, const std::string& tgt_spm,
                                      const OutMetadata& meta, const ShortlistData* shortlist,
                                      const ConfidenceData* confidence) {
  // FlatBuffers offsets are 32-bit: the whole file must stay below 2 GiB.
  uint64_t total = src_spm.size() + tgt_spm.size();
  if (shortlist)
    total += 4 * (shortlist->offsets.size() + shortlist->ids.size() + shortlist->frequent.size()) + 64;
  for (const OutTensor& t : tensors) total += t.data.size() + 4 * t.scales.size() + t.name.size() + 64;
  if (total > (uint64_t(1) << 31) - (uint64_t(1) << 20))
    throw Error("model too large for the file format (" + std::to_string(total >> 20) + " MiB; the limit is 2 GiB)");

  // Sorted by name in byte order, as `Model.tensors` requires (strcmp order).
  std::sort(tensors.begin(), tensors.end(), [](const OutTensor& a, const OutTensor& b) {
    return std::strcmp(a.name.c_str(), b.name.c_str()) < 0;
  });

  // Reserve the whole file at once: no regrowth copies of a large model.
  flatbuffers::FlatBufferBuilder b(static_cast<size_t>(total) + (1 << 20));
  std::vector<flatbuffers::Offset<fb::Tensor>> offsets;
  for (const OutTensor& t : tensors) {
    auto name = b.CreateString(t.name);
    auto shape = b.CreateVector(t.shape);
    flatbuffers::Offset<flatbuffers::Vector<float>> scales = 0;
    if (t.dtype == fb::DType::I8) scales = b.CreateVector(t.scales);
    // The generated CreateTensor does not apply `force_align`; this call does:
    // it pads so that the data (after the vector's length) starts 32-aligned.
    b.ForceVectorAlignment(t.data.size(), 1, format::kDataAlignment);
    auto data = b.CreateVector(t.data);
    offsets.push_back(fb::CreateTensor(b, name, shape, t.dtype, scales, data));
  }
  auto tensor_vec = b.CreateVector(offsets);

  auto src = b.CreateVector(reinterpret_cast<const uint8_t*>(src_spm.data()), src_spm.size());
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> tgt = 0;
  if (!c.shared_vocab) tgt = b.CreateVector(reinterpret_cast<const uint8_t*>(tgt_spm.data()), tgt_spm.size());

  auto metadata = fb::CreateMetadata(b, b.CreateString(meta.name), b.CreateString(meta.src_lang),
                                     b.CreateString(meta.tgt_lang), b.CreateString(meta.corpus),
                                     key_values(b, meta.metrics), b.CreateString(meta.converter_version),
                                     key_values(b, meta.extra));

  const softalign::DecodingDefaults& d = c.decoding;
  auto decoding = fb::CreateDecoding(b, d.beam, d.alpha, d.beta, d.max_len_a, d.max_len_b, d.nbest, d.block_repeats,
                                     names::to_file(d.beam_rules));
  auto config = fb::CreateConfig(b, names::to_file(c.variant), names::to_file(c.score), names::to_file(c.scope),
                                 c.window_d, c.input_feeding, c.enc_layers, c.dec_layers, c.emb_size, c.enc_hidden,
                                 c.dec_hidden, c.att_hidden, c.maxout_size, c.src_vocab, c.tgt_vocab,
                                 c.shared_vocab, c.pad_id, c.unk_id, c.bos_id, c.eos_id, c.max_src_len,
                                 decoding, names::to_file(c.cell), c.enc_directions, c.reverse_source, c.source_eos,
                                 names::to_file(c.decoder_init), c.query_bias, c.combine_bias, c.combine_tanh,
                                 c.pretokenized);

  flatbuffers::Offset<fb::Shortlist> sl = 0;
  if (shortlist)
    sl = fb::CreateShortlist(b, b.CreateVector(shortlist->offsets), b.CreateVector(shortlist->ids),
                             b.CreateVector(shortlist->frequent), shortlist->top_k, shortlist->frequent_count,
                             b.CreateString(shortlist->method));

  flatbuffers::Offset<fb::Confidence> conf = 0;
  if (confidence)
    conf = fb::CreateConfidence(b, b.CreateVectorOfStrings(confidence->features), b.CreateVector(confidence->weights),
                                confidence->bias, b.CreateString(confidence->fitted_on));

  fb::ModelBuilder mb(b);
  mb.add_schema_version(format::version_needed(c));
  mb.add_config(config);
  mb.add_tensors(tensor_vec);
  mb.add_src_spm(src);
  if (!c.shared_vocab) mb.add_tgt_spm(tgt);
  mb.add_metadata(metadata);
  if (shortlist) mb.add_shortlist(sl);
  if (confidence) mb.add_confidence(conf);
  fb::FinishModelBuffer(b, mb.Finish());
  return b.Release();
}

}  // namespace softalign::convert
