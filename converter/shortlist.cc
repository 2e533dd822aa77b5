#include "shortlist.h"

#include <algorithm>
#include <fstream>
#include <numeric>

#include <sentencepiece_processor.h>

#include "error.h"

namespace softalign::convert {

namespace {

// Compressed rows: row r holds values[start[r] .. start[r+1]).
struct Rows {
  std::vector<uint64_t> start;
  std::vector<uint32_t> values;
  uint64_t begin(std::size_t r) const { return start[r]; }
  uint64_t end(std::size_t r) const { return start[r + 1]; }
};

// The distinct ids of each sentence, sorted.
Rows distinct_ids(const std::vector<std::vector<int32_t>>& sentences) {
  Rows out;
  out.start.push_back(0);
  std::vector<uint32_t> tmp;
  for (const auto& s : sentences) {
    tmp.assign(s.begin(), s.end());
    std::sort(tmp.begin(), tmp.end());
    tmp.erase(std::unique(tmp.begin(), tmp.end()), tmp.end());
    out.values.insert(out.values.end(), tmp.begin(), tmp.end());
    out.start.push_back(out.values.size());
  }
  return out;
}

// For each id in [0, vocab), the sentences that hold it (an inverted index).
Rows sentences_of(const Rows& distinct, int vocab) {
  Rows out;
  out.start.assign(static_cast<std::size_t>(vocab) + 1, 0);
  for (uint32_t id : distinct.values) ++out.start[id + 1];
  for (int v = 0; v < vocab; ++v) out.start[v + 1] += out.start[v];
  out.values.resize(distinct.values.size());
  std::vector<uint64_t> fill(out.start.begin(), out.start.end() - 1);
  for (std::size_t k = 0; k + 1 < distinct.start.size(); ++k)
    for (uint64_t i = distinct.begin(k); i < distinct.end(k); ++i) out.values[fill[distinct.values[i]]++] = k;
  return out;
}

// The co-occurrence support: for each source row (the source ids, then one
// NULL row that co-occurs with every sentence), the target ids that appear in
// a sentence with it (sorted) and in how many sentences (`count`).
struct Support {
  Rows targets;
  std::vector<uint32_t> count;
  std::vector<uint32_t> sentences;  // per row: sentences holding the source id
};

Support cooccurrence(const Rows& src_distinct, const Rows& tgt_distinct, int src_vocab, int tgt_vocab) {
  const Rows inverted = sentences_of(src_distinct, src_vocab);
  const uint32_t n_sent = static_cast<uint32_t>(src_distinct.start.size() - 1);
  Support sup;
  sup.targets.start.push_back(0);
  std::vector<uint32_t> counter(tgt_vocab, 0), touched;
  std::vector<uint32_t> all_sentences(n_sent);
  std::iota(all_sentences.begin(), all_sentences.end(), 0u);
  for (int r = 0; r <= src_vocab; ++r) {  // r == src_vocab: NULL
    const bool null_row = r == src_vocab;
    const uint32_t* sent = null_row ? all_sentences.data() : inverted.values.data() + inverted.begin(r);
    const uint64_t count = null_row ? n_sent : inverted.end(r) - inverted.begin(r);
    touched.clear();
    for (uint64_t k = 0; k < count; ++k)
      for (uint64_t i = tgt_distinct.begin(sent[k]); i < tgt_distinct.end(sent[k]); ++i) {
        const uint32_t t = tgt_distinct.values[i];
        if (counter[t]++ == 0) touched.push_back(t);
      }
    std::sort(touched.begin(), touched.end());
    for (uint32_t t : touched) {
      sup.targets.values.push_back(t);
      sup.count.push_back(counter[t]);
      counter[t] = 0;
    }
    sup.targets.start.push_back(sup.targets.values.size());
    sup.sentences.push_back(static_cast<uint32_t>(count));
  }
  return sup;
}

// IBM model 1 with a NULL source word: `iterations` EM steps from uniform
// probabilities over the co-occurrence support. Returns t(t|s) for each
// support entry.
std::vector<float> ibm1(const Support& sup, const std::vector<std::vector<int32_t>>& src,
                        const std::vector<std::vector<int32_t>>& tgt, int src_vocab, int iterations) {
  const Rows& rows = sup.targets;
  std::vector<float> prob(rows.values.size(), 1.0f);
  std::vector<double> counts(rows.values.size());
  std::vector<uint64_t> idx;
  std::vector<uint32_t> src_rows;
  for (int it = 0; it < iterations; ++it) {
    std::fill(counts.begin(), counts.end(), 0.0);
    for (std::size_t k = 0; k < src.size(); ++k) {
      src_rows.assign(src[k].begin(), src[k].end());
      src_rows.push_back(static_cast<uint32_t>(src_vocab));  // NULL
      idx.resize(src_rows.size());
      for (int32_t t : tgt[k]) {
        double z = 0.0;
        for (std::size_t i = 0; i < src_rows.size(); ++i) {
          const uint32_t* b = rows.values.data() + rows.begin(src_rows[i]);
          const uint32_t* e = rows.values.data() + rows.end(src_rows[i]);
          idx[i] = static_cast<uint64_t>(std::lower_bound(b, e, static_cast<uint32_t>(t)) - rows.values.data());
          z += prob[idx[i]];
        }
        if (!(z > 0.0)) continue;  // every probability underflowed: nothing to share out
        for (std::size_t i = 0; i < src_rows.size(); ++i) counts[idx[i]] += prob[idx[i]] / z;
      }
    }
    for (std::size_t r = 0; r + 1 < rows.start.size(); ++r) {
      double total = 0.0;
      for (uint64_t i = rows.begin(r); i < rows.end(r); ++i) total += counts[i];
      for (uint64_t i = rows.begin(r); i < rows.end(r); ++i)
        prob[i] = total > 0.0 ? static_cast<float>(counts[i] / total) : 0.0f;
    }
  }
  return prob;
}

std::vector<std::string> read_lines(const std::string& path, const char* side) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(std::string("cannot open the shortlist ") + side + " corpus " + path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  if (in.bad()) throw Error("cannot read " + path);
  return lines;
}

std::vector<std::vector<int32_t>> tokenise(const std::vector<std::string>& lines, const std::string& spm_bytes,
                                           int vocab, int eos, const std::string& path) {
  sentencepiece::SentencePieceProcessor sp;
  const auto st = sp.LoadFromSerializedProto(spm_bytes);
  if (!st.ok()) throw Error("SentencePiece model: " + st.ToString());
  std::vector<std::vector<int32_t>> out(lines.size());
  std::vector<int> ids;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto enc = sp.Encode(lines[i], &ids);
    if (!enc.ok()) throw Error(path + ":" + std::to_string(i + 1) + ": SentencePiece: " + enc.ToString());
    for (int id : ids)
      if (id < 0 || id >= vocab) throw Error(path + ": piece id " + std::to_string(id) + " outside the vocabulary");
    out[i].assign(ids.begin(), ids.end());
    out[i].push_back(eos);
  }
  return out;
}

}  // namespace

void check_shortlist_params(const ShortlistParams& p) {
  if (p.top_k < 1 || p.top_k > 100000) throw Error("--shortlist-top must be in [1, 100000], got " + std::to_string(p.top_k));
  if (p.frequent < 0 || p.frequent > 10000000)
    throw Error("--shortlist-frequent must be in [0, 10000000], got " + std::to_string(p.frequent));
  if (p.method != "cooc" && p.method != "ibm1")
    throw Error("--shortlist-method must be cooc or ibm1, got \"" + p.method + "\"");
  if (p.ibm1_iterations < 1 || p.ibm1_iterations > 100)
    throw Error("--shortlist-iterations must be in [1, 100], got " + std::to_string(p.ibm1_iterations));
}

ShortlistData build_shortlist(const std::vector<std::vector<int32_t>>& src,
                              const std::vector<std::vector<int32_t>>& tgt, int src_vocab, int tgt_vocab,
                              const std::vector<int32_t>& specials, const ShortlistParams& params) {
  check_shortlist_params(params);
  if (src.size() != tgt.size()) throw Error("shortlist corpus: the two sides have different sentence counts");
  for (const auto* side : {&src, &tgt})
    for (const auto& s : *side)
      for (int32_t id : s)
        if (id < 0 || id >= (side == &src ? src_vocab : tgt_vocab)) throw Error("shortlist corpus: id out of range");

  ShortlistData out;
  out.top_k = static_cast<uint32_t>(params.top_k);
  out.frequent_count = static_cast<uint32_t>(params.frequent);
  out.method = params.method;

  // Frequent: the F target ids with the most tokens (ties: lower id), then the specials.
  std::vector<uint64_t> tokens(tgt_vocab, 0);
  for (const auto& s : tgt)
    for (int32_t id : s) ++tokens[id];
  std::vector<uint32_t> order(tgt_vocab);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return tokens[a] > tokens[b]; });
  std::vector<bool> in_frequent(tgt_vocab, false);
  for (int i = 0; i < std::min(params.frequent, tgt_vocab) && tokens[order[i]] > 0; ++i) in_frequent[order[i]] = true;
  for (int32_t id : specials)
    if (id >= 0 && id < tgt_vocab) in_frequent[id] = true;
  for (int v = 0; v < tgt_vocab; ++v)
    if (in_frequent[v]) out.frequent.push_back(static_cast<uint32_t>(v));

  // Per source id: the K best candidates outside the frequent list.
  const Support sup = cooccurrence(distinct_ids(src), distinct_ids(tgt), src_vocab, tgt_vocab);
  std::vector<float> score;
  if (params.method == "ibm1") {
    score = ibm1(sup, src, tgt, src_vocab, params.ibm1_iterations);
  } else {
    score.resize(sup.count.size());
    for (int r = 0; r < src_vocab; ++r)
      for (uint64_t i = sup.targets.begin(r); i < sup.targets.end(r); ++i)
        score[i] = static_cast<float>(static_cast<double>(sup.count[i]) / sup.sentences[r]);
  }
  out.offsets.push_back(0);
  std::vector<uint64_t> cand;
  for (int r = 0; r < src_vocab; ++r) {
    cand.clear();
    for (uint64_t i = sup.targets.begin(r); i < sup.targets.end(r); ++i)
      if (!in_frequent[sup.targets.values[i]] && score[i] > 0.0f) cand.push_back(i);
    // Support entries are sorted by target id, so a stable sort keeps lower ids first on ties.
    std::stable_sort(cand.begin(), cand.end(), [&](uint64_t a, uint64_t b) { return score[a] > score[b]; });
    const std::size_t keep = std::min<std::size_t>(cand.size(), static_cast<std::size_t>(params.top_k));
    for (std::size_t i = 0; i < keep; ++i) out.ids.push_back(sup.targets.values[cand[i]]);
    out.offsets.push_back(static_cast<uint32_t>(out.ids.size()));
  }
  return out;
}

ShortlistData build_shortlist_from_corpus(const std::string& src_path, const std::string& tgt_path,
                                          const std::string& src_spm, const std::string& tgt_spm,
                                          const ModelConfig& c, const ShortlistParams& params) {
  check_shortlist_params(params);
  const std::vector<std::string> src_lines = read_lines(src_path, "source");
  const std::vector<std::string> tgt_lines = read_lines(tgt_path, "target");
  if (src_lines.size() != tgt_lines.size())
    throw Error("shortlist corpus: " + src_path + " has " + std::to_string(src_lines.size()) + " lines, " +
                tgt_path + " has " + std::to_string(tgt_lines.size()));
  if (src_lines.empty()) throw Error("shortlist corpus: " + src_path + " is empty");
  const auto src = tokenise(src_lines, src_spm, c.src_vocab, c.eos_id, src_path);
  const auto tgt = tokenise(tgt_lines, c.shared_vocab ? src_spm : tgt_spm, c.tgt_vocab, c.eos_id, tgt_path);
  return build_shortlist(src, tgt, c.src_vocab, c.tgt_vocab, {c.pad_id, c.unk_id, c.bos_id, c.eos_id}, params);
}

}  // namespace softalign::convert
