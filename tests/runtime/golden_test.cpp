// The runtime against the PyTorch reference (tests/golden/): for every golden
// model and every precision, teacher-forced logits and attention, greedy and
// beam n-best ids, scores and attention rows.
//
// fp32: the contract's tolerances (logits 1e-4 max abs, scores 1e-4,
// attention 1e-5) and identical ids.
//
// f16 and int8: the weights are rounded, so the outputs move by an amount the
// quantization step sets. A weight w becomes w + δ with
//   f16:  |δ| ≤ 2^-11 |w|                  (round to nearest, 11-bit significand)
//   int8: |δ| ≤ scale_r / 2 = max|row|/254, and each activation vector x is
//         rounded the same way (|δx| ≤ max|x|/254) before every product.
// To first order a product W x then moves by at most ε ||W||·||x|| with
// ε = 2^-11 (f16) or 2/254 (int8: weights and activations), i.e. by ε times
// the size of its output; errors of successive products add up along the
// longest chain of products that feeds a logit. We therefore allow
//   |Δlogit| ≤ ε · depth · max(1, max|logit|)
// with depth = the number of matrix products on that chain (encoder layers ×
// 2 directions' worth of W_ih and W_hh, bridge, attention query and keys,
// decoder layers × 2, output features, generator), and the same relative
// bound on attention weights (which lie in [0, 1]). Ids are compared only for
// searches whose recorded decision margin (golden.json "margin", the
// smallest gap the reference saw between a kept and a dropped candidate) is
// more than twice the bound on a summed log-probability (2 · tol per step,
// over the longest hypothesis): below that, a different choice is allowed by
// the quantization itself. The measured errors are printed. The last test
// checks every precision's search exactly against its own teacher forcing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "golden_check.hpp"

using namespace softalign;

namespace {

struct Errors {
  double logits = 0, logits_rel = 0, att = 0, score = 0;
  int searches = 0, ids_checked = 0, ids_same = 0;
};

void check_model(const std::string& name, const std::string& precision, Errors* err) {
  INFO("model ", name, " (", precision, ")");
  const nlohmann::json g = golden::load_json(name);
  std::shared_ptr<const Model> model;
  Status st = Model::load(golden::model_path(name, precision).string(), &model);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  const ModelConfig& c = model->config();
  const int V = c.tgt_vocab;

  // One translator for everything: the widest beam of the searches, a max
  // length generous enough for the teacher-forced targets; each search
  // narrows it per call.
  TranslatorOptions opt;
  opt.search.beam_size = golden::widest_beam(g);
  opt.search.max_len_a = 1.0f;
  opt.search.max_len_b = 64.0f;
  std::unique_ptr<Translator> tr;
  st = Translator::prepare(model, opt, &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());

  const bool exact = precision == "f32";
  const golden::Tolerance tol = golden::tolerance(g, c, precision);
  const double tol_logits = tol.logits, tol_att = tol.att, tol_score = tol.score;

  std::vector<float> logits, att;
  for (const auto& sent : g["sentences"]) {
    const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
    const std::vector<int32_t> tgt_in = golden::ids(sent["teacher_forced"]["tgt_in"]);
    INFO("source ", sent["src_text"].get<std::string>());
    const std::size_t T = tgt_in.size(), S = src.size();
    logits.assign(T * V, 0.0f);
    att.assign(T * S, 0.0f);
    st = tr->force_decode(src, tgt_in, logits.data(), att.data());
    REQUIRE_MESSAGE(st.ok(), st.to_string());
    const auto& ref_logits = sent["teacher_forced"]["logits"];
    const auto& ref_att = sent["teacher_forced"]["attn"];
    double worst = 0, worst_att = 0, ref_norm = 0;
    for (std::size_t t = 0; t < T; ++t) {
      for (int v = 0; v < V; ++v) {
        const double r = ref_logits[t][v].get<double>();
        worst = std::max(worst, std::fabs(logits[t * V + v] - r));
        ref_norm = std::max(ref_norm, std::fabs(r));
      }
      for (std::size_t j = 0; j < S; ++j)
        worst_att = std::max(worst_att, std::fabs(att[t * S + j] - ref_att[t][j].get<double>()));
    }
    CHECK_MESSAGE(worst <= tol_logits, "teacher-forced logits: max abs error ", worst, " > ", tol_logits);
    CHECK_MESSAGE(worst_att <= tol_att, "teacher-forced attention: max abs error ", worst_att, " > ", tol_att);
    err->logits = std::max(err->logits, worst);
    err->logits_rel = std::max(err->logits_rel, worst / std::max(ref_norm, 1e-12));
    err->att = std::max(err->att, worst_att);

    for (const auto& search : sent["search"]) {
      const auto& spec = *std::find_if(g["searches"].begin(), g["searches"].end(),
                                       [&](const nlohmann::json& s) { return s["name"] == search["name"]; });
      INFO("search ", search["name"].get<std::string>());
      const SearchOptions so = golden::search_options(spec);
      NBestView nb;
      st = tr->translate_ids(src, so, &nb);
      REQUIRE_MESSAGE(st.ok(), st.to_string());
      ++err->searches;
      const golden::SearchCheck sc = golden::check_search(nb, search, exact, tol, S);
      err->ids_same += sc.same ? 1 : 0;
      err->ids_checked += sc.compared ? 1 : 0;
      err->score = std::max(err->score, sc.score);
      err->att = std::max(err->att, sc.att);
    }
  }
}

void run_precision(const std::string& precision) {
  const auto names = golden::names();
  REQUIRE(!names.empty());
  for (const std::string& name : names) {
    Errors e;
    check_model(name, precision, &e);
    std::printf("golden %-24s %-4s logits max abs %.3g (rel %.3g)  attention %.3g  score %.3g  ids compared %d/%d, identical %d/%d\n",
                name.c_str(), precision.c_str(), e.logits, e.logits_rel, e.att, e.score, e.ids_checked, e.searches, e.ids_same,
                e.searches);
  }
}

}  // namespace

TEST_CASE("golden models, fp32 weights") { run_precision("f32"); }
TEST_CASE("golden models, fp16 weights") { run_precision("f16"); }
TEST_CASE("golden models, int8 weights") { run_precision("int8"); }

// Independent of the reference and of the precision: every hypothesis the
// search returns has the log-probability that teacher forcing its own ids
// gives (float32 sums of log_softmax, EOS included), its score follows from
// the contract's formula, and greedy picks the argmax at every step.
TEST_CASE("search results agree with teacher forcing of their own ids") {
  for (const std::string& name : golden::names()) {
    const nlohmann::json g = golden::load_json(name);
    for (const char* precision : {"f32", "f16", "int8"}) {
      INFO("model ", name, " (", precision, ")");
      std::shared_ptr<const Model> model;
      REQUIRE(Model::load(golden::model_path(name, precision).string(), &model).ok());
      const ModelConfig& c = model->config();
      const int V = c.tgt_vocab;
      TranslatorOptions opt;
      opt.search.beam_size = golden::widest_beam(g);
      opt.search.max_len_b = 64.0f;
      std::unique_ptr<Translator> tr;
      REQUIRE(Translator::prepare(model, opt, &tr).ok());
      for (const auto& sent : g["sentences"]) {
        const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
        for (const auto& spec : g["searches"]) {
          const SearchOptions so = golden::search_options(spec);
          // The toolkits' rules ban ids (JoeyNMT) and score their own way (checked in golden_test above).
          const bool own_rules = *so.beam_rules == BeamRules::kSoftalign;
          NBestView nb;
          REQUIRE(tr->translate_ids(src, so, &nb).ok());
          REQUIRE(nb.count >= 1);
          // Copy the views: force_decode below reuses the arena.
          struct H {
            std::vector<int32_t> ids;
            std::size_t rows;
            float score, log_prob;
            std::vector<float> att;
          };
          std::vector<H> hyps;
          for (std::size_t r = 0; r < nb.count; ++r) {
            const HypothesisView& v = nb.hypotheses[r];
            hyps.push_back({std::vector<int32_t>(v.ids, v.ids + v.length), v.attention_rows, v.score, v.log_prob,
                            std::vector<float>(v.attention, v.attention + v.attention_rows * src.size())});
          }
          for (const H& h : hyps) {
            const bool eos = h.rows == h.ids.size() + 1;
            std::vector<int32_t> tgt_in = {c.bos_id}, tgt_out = h.ids;
            tgt_in.insert(tgt_in.end(), h.ids.begin(), h.ids.end());
            if (eos) tgt_out.push_back(c.eos_id);
            tgt_in.resize(tgt_out.size());
            std::vector<float> logits(tgt_in.size() * V), att(tgt_in.size() * src.size());
            REQUIRE(tr->force_decode(src, tgt_in, logits.data(), att.data()).ok());
            float sum = 0.0f;
            for (std::size_t t = 0; t < tgt_in.size(); ++t) {
              const float* row = &logits[t * V];
              double mx = row[0];
              for (int v = 1; v < V; ++v) mx = std::max<double>(mx, row[v]);
              double z = 0;
              for (int v = 0; v < V; ++v) z += std::exp(row[v] - mx);
              sum += static_cast<float>(row[tgt_out[t]] - mx - std::log(z));
              if (*so.beam_size == 1 && own_rules) {
                int best = 0;
                for (int v = 1; v < V; ++v)
                  if (row[v] > row[best]) best = v;
                CHECK(best == tgt_out[t]);
              }
            }
            CHECK(h.log_prob == doctest::Approx(sum).epsilon(1e-5).scale(1.0));
            for (std::size_t i = 0; i < att.size(); ++i) CHECK(std::fabs(att[i] - h.att[i]) <= 1e-6f);
            double cov_pen = 0;
            if (*so.beta > 0) {
              for (std::size_t j = 0; j < src.size(); ++j) {
                double cov = 0;
                for (std::size_t i = 0; i < h.rows; ++i) cov += h.att[i * src.size() + j];
                cov_pen += std::log(std::min(std::max(cov, 1e-6), 1.0));
              }
              cov_pen *= *so.beta;
            }
            const double lp = std::pow((5.0 + static_cast<double>(h.rows)) / 6.0, static_cast<double>(*so.alpha));
            if (own_rules) CHECK(h.score == doctest::Approx(h.log_prob / lp + cov_pen).epsilon(1e-5).scale(1.0));
          }
          for (std::size_t r = 1; r < hyps.size(); ++r) CHECK(hyps[r - 1].score >= hyps[r].score);
        }
      }
    }
  }
}
