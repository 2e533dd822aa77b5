// The golden tests' comparison of a search with the reference's record
// (doctest checks; golden_util.hpp has the rest, usable without doctest).
#pragma once

#include <doctest/doctest.h>

#include "golden_util.hpp"

namespace golden {

// One search's n-best list against the reference's record (golden.json's
// "search" entries): ids identical, scores, log-probabilities and attention
// rows within the tolerance. The ids are compared when exact (f32) or when
// the record's decision margin is more than twice the bound on a summed
// log-probability (2 · tol.score per step over the longest hypothesis).
struct SearchCheck {
  bool same = false;      // the ids are the reference's
  bool compared = false;  // and were required to be
  double score = 0, att = 0;  // the largest errors seen
};

inline SearchCheck check_search(const softalign::NBestView& nb, const nlohmann::json& search, bool exact,
                                const Tolerance& tol, std::size_t S) {
  using softalign::HypothesisView;
  SearchCheck out;
  const auto& hyps = search["hyps"];
  std::size_t longest = 1;
  for (const auto& h : hyps) longest = std::max(longest, h["attn"].size());
  out.same = nb.count == hyps.size();
  for (std::size_t r = 0; out.same && r < nb.count; ++r)
    out.same = std::vector<int32_t>(nb.hypotheses[r].ids, nb.hypotheses[r].ids + nb.hypotheses[r].length) ==
               ids(hyps[r]["ids"]);
  const double margin = search["margin"].get<double>();
  out.compared = exact || margin > 2 * tol.score * static_cast<double>(longest);
  if (!out.compared) return out;
  REQUIRE(nb.count == hyps.size());
  for (std::size_t r = 0; r < nb.count; ++r) {
    const HypothesisView& v = nb.hypotheses[r];
    const auto& h = hyps[r];
    INFO("hypothesis ", r);
    CHECK(std::vector<int32_t>(v.ids, v.ids + v.length) == ids(h["ids"]));
    const double tol_s = exact ? tol.score : tol.score * static_cast<double>(longest);
    const double ds = std::fabs(v.score - h["score"].get<double>());
    CHECK_MESSAGE(ds <= tol_s, "score error ", ds);
    CHECK_MESSAGE(std::fabs(v.log_prob - h["logprob"].get<double>()) <= tol_s, "log-prob error");
    out.score = std::max(out.score, ds);
    const auto& rows = h["attn"];
    REQUIRE(v.attention_rows == rows.size());
    double wa = 0;
    for (std::size_t i = 0; i < v.attention_rows; ++i)
      for (std::size_t j = 0; j < S; ++j)
        wa = std::max(wa, std::fabs(v.attention[i * S + j] - rows[i][j].get<double>()));
    CHECK_MESSAGE(wa <= tol.att, "attention rows: max abs error ", wa);
    out.att = std::max(out.att, wa);
  }
  return out;
}

}  // namespace golden
