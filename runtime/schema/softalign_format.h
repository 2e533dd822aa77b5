// softalign_format.h — reading a .softalign buffer safely (header-only).
//
// The schema (softalign.fbs) is the format's reference; this header adds what
// the FlatBuffers Verifier cannot know: the schema version rule, that tensors
// are sorted by name (so lookups by binary search are valid), that each
// tensor's data and scales have the sizes its shape and dtype imply, and the
// shortlist's and the confidence calibration's rules (`shortlist_ok`,
// `confidence_ok`), and that the variant, score and scope have rows in the
// one table of their names (softalign_names.h). The converter checks its own
// output with it, and the runtime can load with it:
//
//   std::string err;
//   const softalign::fb::Model* m = softalign::format::verify_model(buf, size, &err);
//   if (!m) { /* err says why, in one line */ }
//   const softalign::fb::Tensor* t = softalign::format::find_tensor(*m, "generator.bias");
//
// Nothing here allocates except the error message on failure.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "softalign_generated.h"
#include "softalign_names.h"

namespace softalign::format {

// The schema version this code reads (and the highest it writes). Files with a
// higher version are refused ("made by a newer converter").
//   1: GRU, bidirectional encoders, the three variants.
//   2: Config's cell, enc_directions, reverse_source, source_eos, decoder_init,
//      query_bias, combine_bias, combine_tanh, pretokenized and Decoding's beam_rules
//      (models/WEIGHTS_FORMAT.md). A version-1 reader would ignore them and
//      compute another model; a file whose fields all have version 1's values
//      is written as version 1 (version_needed).
inline constexpr uint32_t kSchemaVersion = 2;

// The lowest schema version that holds config `c`: 1 while every version-2
// field has version 1's value (so version-1 readers still load the file), else 2.
inline uint32_t version_needed(const ModelConfig& c) {
  const bool version1 = c.cell == Cell::kGru && c.enc_directions == 2 && !c.reverse_source && c.source_eos &&
                        c.decoder_init == version1_decoder_init(c.variant) && !c.query_bias && !c.combine_bias &&
                        c.combine_tanh && !c.pretokenized && c.decoding.beam_rules == BeamRules::kSoftalign;
  return version1 ? 1 : 2;
}

// The decoder's first state a file's config means: its decoder_init field
// (version 2), or what its variant fixed (version 1). False for a value
// outside the tables.
inline bool file_decoder_init(const fb::Model& m, DecoderInit* out) {
  Variant v;
  if (!names::from_file(m.config()->variant(), &v)) return false;
  if (m.schema_version() < 2) {
    *out = version1_decoder_init(v);
    return true;
  }
  return names::from_file(m.config()->decoder_init(), out);
}

// Every tensor's data starts at a multiple of this many bytes from the start
// of the buffer (schema: `force_align: 32`).
inline constexpr size_t kDataAlignment = 32;

// Bytes per element of a dtype (0 for an unknown value).
inline size_t dtype_size(fb::DType t) {
  switch (t) {
    case fb::DType::F32: return 4;
    case fb::DType::F16: return 2;
    case fb::DType::I8: return 1;
  }
  return 0;
}

inline const char* dtype_name(fb::DType t) {
  switch (t) {
    case fb::DType::F32: return "f32";
    case fb::DType::F16: return "f16";
    case fb::DType::I8: return "i8";
  }
  return "?";
}

// Number of elements of a tensor (product of its shape; 1 for an empty shape).
inline uint64_t element_count(const fb::Tensor& t) {
  uint64_t n = 1;
  for (uint32_t d : *t.shape()) n *= d;
  return n;
}

namespace detail {
inline const fb::Model* fail(std::string* err, const std::string& msg) {
  if (err) *err = msg;
  return nullptr;
}
}  // namespace detail

// The shortlist's own rules (softalign.fbs `Shortlist`): one CSR row per
// source id, offsets starting at 0, non-decreasing and ending at ids' length;
// every id a target id; `frequent` strictly increasing. False with the first
// problem in *why.
inline bool shortlist_ok(const fb::Shortlist& sl, const fb::Config& cfg, std::string* why) {
  const auto* offsets = sl.offsets();
  const auto* ids = sl.ids();
  const auto* frequent = sl.frequent();
  const int64_t src_vocab = cfg.src_vocab(), tgt_vocab = cfg.tgt_vocab();
  if (src_vocab < 0 || offsets->size() != static_cast<uint64_t>(src_vocab) + 1) {
    *why = "offsets has " + std::to_string(offsets->size()) + " entries, src_vocab + 1 = " +
           std::to_string(src_vocab + 1) + " needed";
    return false;
  }
  if (offsets->Get(0) != 0) {
    *why = "offsets[0] is not 0";
    return false;
  }
  for (flatbuffers::uoffset_t s = 1; s < offsets->size(); ++s)
    if (offsets->Get(s) < offsets->Get(s - 1)) {
      *why = "offsets decrease at source id " + std::to_string(s - 1);
      return false;
    }
  if (offsets->Get(offsets->size() - 1) != ids->size()) {
    *why = "the last offset is not the number of ids";
    return false;
  }
  for (flatbuffers::uoffset_t i = 0; i < ids->size(); ++i)
    if (ids->Get(i) >= tgt_vocab) {
      *why = "target id " + std::to_string(ids->Get(i)) + " outside [0, tgt_vocab)";
      return false;
    }
  for (flatbuffers::uoffset_t i = 0; i < frequent->size(); ++i) {
    if (frequent->Get(i) >= tgt_vocab) {
      *why = "frequent id " + std::to_string(frequent->Get(i)) + " outside [0, tgt_vocab)";
      return false;
    }
    if (i > 0 && frequent->Get(i) <= frequent->Get(i - 1)) {
      *why = "frequent ids not strictly increasing";
      return false;
    }
  }
  return true;
}

// The confidence calibration's own rules (softalign.fbs `Confidence`): one
// finite weight per feature, names non-empty and each once, a finite bias.
// Whether the reader knows each name is the reader's business (an unknown one
// means a newer converter: the runtime then ignores the calibration).
inline bool confidence_ok(const fb::Confidence& c, std::string* why) {
  const auto* names = c.features();
  const auto* weights = c.weights();
  if (names->size() != weights->size()) {
    *why = std::to_string(names->size()) + " features but " + std::to_string(weights->size()) + " weights";
    return false;
  }
  if (!std::isfinite(c.bias())) {
    *why = "the bias is not finite";
    return false;
  }
  for (flatbuffers::uoffset_t i = 0; i < names->size(); ++i) {
    if (names->Get(i)->size() == 0) {
      *why = "feature " + std::to_string(i) + " has no name";
      return false;
    }
    if (!std::isfinite(weights->Get(i))) {
      *why = "the weight of feature " + std::to_string(i) + " is not finite";
      return false;
    }
    const flatbuffers::String* name = names->Get(i);
    for (flatbuffers::uoffset_t j = 0; j < i; ++j)
      if (names->Get(j)->size() == name->size() && std::memcmp(names->Get(j)->data(), name->data(), name->size()) == 0) {
        *why = "feature \"" + names->Get(i)->str() + "\" named twice";
        return false;
      }
  }
  return true;
}

// Checks a whole buffer: size, file identifier, schema version, FlatBuffers
// structure, then the format's own rules. Returns the root on success, or
// nullptr with a one-line reason in *err. `data` must stay valid while the
// returned Model is used. Safe on any bytes (never reads out of bounds).
inline const fb::Model* verify_model(const uint8_t* data, size_t size, std::string* err) {
  using detail::fail;
  if (data == nullptr || size < 8) return fail(err, "not a softalign model file (too short)");
  // The Verifier asserts on buffers of 2 GiB or more; FlatBuffers cannot hold them anyway.
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE) return fail(err, "not a softalign model file (larger than 2 GiB)");
  if (!fb::ModelBufferHasIdentifier(data))
    return fail(err, "not a softalign model file (wrong file identifier)");

  // Read the version through a one-field view first: a newer file may not
  // verify as this version's Model, and then "newer" is the useful message.
  {
    flatbuffers::Verifier probe(data, size);
    if (!probe.VerifyBuffer<fb::VersionProbe>(fb::ModelIdentifier()))
      return fail(err, "corrupt softalign model file (bad root table)");
    uint32_t v = flatbuffers::GetRoot<fb::VersionProbe>(data)->schema_version();
    if (v > kSchemaVersion)
      return fail(err, "model file has schema version " + std::to_string(v) +
                           ", made by a newer converter (this build reads up to " +
                           std::to_string(kSchemaVersion) + ")");
    if (v == 0) return fail(err, "corrupt softalign model file (schema version 0)");
  }

  flatbuffers::Verifier verifier(data, size);
  if (!fb::VerifyModelBuffer(verifier))
    return fail(err, "corrupt softalign model file (FlatBuffers verification failed)");
  const fb::Model* model = fb::GetModel(data);

  const fb::Config* cfg = model->config();
  if (!names::find(cfg->variant()) || !names::find(cfg->score()) || !names::find(cfg->scope()) ||
      !names::find(cfg->cell()) || !names::find(cfg->decoder_init()) ||
      !names::find(cfg->decoding()->beam_rules()))
    return fail(err, "corrupt softalign model file (unknown variant, score, scope, cell, decoder init or beam rules value)");
  if (!cfg->shared_vocab() && model->tgt_spm() == nullptr)
    return fail(err, "corrupt softalign model file (no target SentencePiece model)");

  if (const fb::Shortlist* sl = model->shortlist()) {
    std::string why;
    if (!shortlist_ok(*sl, *cfg, &why)) return fail(err, "corrupt softalign model file (shortlist: " + why + ")");
  }

  if (const fb::Confidence* conf = model->confidence()) {
    std::string why;
    if (!confidence_ok(*conf, &why)) return fail(err, "corrupt softalign model file (confidence: " + why + ")");
  }

  const auto* tensors = model->tensors();
  for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
    const fb::Tensor* t = tensors->Get(i);
    const char* name = t->name()->c_str();
    // The order LookupByKey's binary search assumes (strcmp), strictly increasing.
    if (i > 0 && tensors->Get(i - 1)->KeyCompareWithValue(name) >= 0)
      return fail(err, std::string("corrupt softalign model file (tensors not sorted by name at \"") +
                           name + "\")");
    const size_t esize = dtype_size(t->dtype());
    if (esize == 0) return fail(err, std::string("tensor ") + name + ": unknown dtype");
    if (t->shape()->size() == 0) return fail(err, std::string("tensor ") + name + ": empty shape");
    uint64_t count = 1;
    for (uint32_t d : *t->shape()) {
      if (d == 0) return fail(err, std::string("tensor ") + name + ": zero dimension");
      count *= d;
      if (count > size) return fail(err, std::string("tensor ") + name + ": shape larger than the file");
    }
    if (t->data()->size() != count * esize)
      return fail(err, std::string("tensor ") + name + ": data has " + std::to_string(t->data()->size()) +
                           " bytes, shape and dtype need " + std::to_string(count * esize));
    if (static_cast<size_t>(t->data()->data() - data) % kDataAlignment != 0)
      return fail(err, std::string("tensor ") + name + ": data not 32-byte aligned in the file");
    if (t->dtype() == fb::DType::I8) {
      if (t->shape()->size() != 2)
        return fail(err, std::string("tensor ") + name + ": i8 tensors must be 2-D");
      if (t->scales() == nullptr || t->scales()->size() != t->shape()->Get(0))
        return fail(err, std::string("tensor ") + name + ": i8 tensor needs one scale per row");
    } else if (t->scales() != nullptr) {
      return fail(err, std::string("tensor ") + name + ": scales given for a non-i8 tensor");
    }
  }
  return model;
}

// The tensor called `name`, or nullptr. Binary search: valid on any buffer
// verify_model accepted.
inline const fb::Tensor* find_tensor(const fb::Model& model, const char* name) {
  return model.tensors()->LookupByKey(name);
}

// The target side's SentencePiece model bytes (the source one when shared).
inline const flatbuffers::Vector<uint8_t>* tgt_spm(const fb::Model& model) {
  return model.config()->shared_vocab() ? model.src_spm() : model.tgt_spm();
}

}  // namespace softalign::format
