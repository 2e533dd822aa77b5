// Building the .softalign FlatBuffer (schema: runtime/schema/softalign.fbs).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config.h"
#include "confidence.h"
#include "shortlist.h"
#include "softalign_generated.h"

namespace softalign::convert {

// A tensor as it goes into the file: data already in its final dtype.
struct OutTensor {
  std::string name;
  std::vector<uint32_t> shape;
  fb::DType dtype = fb::DType::F32;
  std::vector<float> scales;  // I8 only: one per row
  std::vector<uint8_t> data;  // little-endian elements
};

struct OutMetadata {
  std::string name, src_lang, tgt_lang, corpus, converter_version;
  std::map<std::string, std::string> metrics, extra;
};

// The complete file. Tensors are written sorted by name; every tensor's data
// starts at a multiple of 32 bytes. `tgt_spm` is left out when the config has
// shared_vocab; the shortlist table when `shortlist` is not null, the
// confidence table when `confidence` is not null. Same inputs give the same
// bytes.
flatbuffers::DetachedBuffer build_model_file(const ModelConfig& config, std::vector<OutTensor> tensors,
                                      const std::string& src_spm, const std::string& tgt_spm,
                                      const OutMetadata& meta, const ShortlistData* shortlist = nullptr,
                                      const ConfidenceData* confidence = nullptr);

}  // namespace softalign::convert
