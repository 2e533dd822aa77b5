// safetensors weights + SentencePiece models -> one .softalign file.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "shortlist.h"

namespace softalign::convert {

enum class Precision { F32, F16, Int8 };

struct Options {
  std::string input;                      // INPUT.safetensors
  std::string output;                     // OUTPUT.softalign
  Precision precision = Precision::F32;
  std::vector<std::string> keep_fp32;     // glob patterns (fnmatch) of tensors left f32
  std::string src_spm, tgt_spm;           // empty: beside the input
  std::vector<std::string> meta;          // "key=value"
  bool report = false;                    // per-tensor quantisation error table
  // Lexical shortlist from a parallel corpus (both empty: none).
  std::string shortlist_src, shortlist_tgt;
  ShortlistParams shortlist;
  // Or a shortlist made by the caller (library use); it must satisfy the
  // format's rules (format::shortlist_ok) or convert() throws.
  std::optional<ShortlistData> shortlist_data;
  // A confidence calibration (FIT.json, confidence.h); empty: none.
  std::string confidence;
};

// Reads, checks, quantises and writes. Throws Error (one line) on any bad
// input; then no output file is created or changed. The report, if asked
// for, goes to `report_out`.
void convert(const Options& options, std::ostream& report_out);

}  // namespace softalign::convert
