// The lexical vocabulary shortlist (softalign.fbs `Shortlist`), built from a
// parallel training corpus tokenised with the model's own SentencePiece
// models: for each source piece its K most likely target pieces, plus the F
// most frequent target pieces and the special ids.
//
// Two ways to rank a source piece's candidates (`method`):
// - "cooc": p(t|s) = (sentences holding both s and t) / (sentences holding s);
// - "ibm1": the lexical translation probabilities t(t|s) of IBM model 1
//   (with a NULL source word) after a few EM iterations, started uniform.
// Candidates already in the frequent list are left out of the per-source
// lists (the union holds them anyway). Ties go to the lower target id, and
// everything runs in a fixed order: the same corpus gives the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config.h"

namespace softalign::convert {

struct ShortlistParams {
  int top_k = 50;         // K: target pieces per source piece (>= 1)
  int frequent = 1000;    // F: most frequent target pieces always included (>= 0)
  std::string method = "ibm1";  // "cooc" or "ibm1"
  int ibm1_iterations = 5;
};

// What goes into the file, in the schema's layout.
struct ShortlistData {
  std::vector<uint32_t> offsets;   // src_vocab + 1 entries (CSR)
  std::vector<uint32_t> ids;       // per source id, best first
  std::vector<uint32_t> frequent;  // sorted ascending, specials included
  uint32_t top_k = 0;
  uint32_t frequent_count = 0;
  std::string method;
};

// Builds the shortlist from id sequences (sentence i: src[i], tgt[i], ids as
// the model sees them, EOS included). Ids must lie in [0, src_vocab) and
// [0, tgt_vocab); `specials` (pad, unk, bos, eos) always join `frequent`.
ShortlistData build_shortlist(const std::vector<std::vector<int32_t>>& src,
                              const std::vector<std::vector<int32_t>>& tgt, int src_vocab, int tgt_vocab,
                              const std::vector<int32_t>& specials, const ShortlistParams& params);

// Reads the parallel corpus (one sentence per line, the same number of lines
// on both sides), tokenises each side with its serialised SentencePiece
// model, appends EOS as the runtime does, and builds the shortlist. Throws
// Error (one line) on unreadable files, different line counts, an empty
// corpus or bad parameters.
ShortlistData build_shortlist_from_corpus(const std::string& src_path, const std::string& tgt_path,
                                          const std::string& src_spm, const std::string& tgt_spm,
                                          const ModelConfig& config, const ShortlistParams& params);

// Checks K, F, the method and the iteration count; throws Error.
void check_shortlist_params(const ShortlistParams& params);

}  // namespace softalign::convert
