// The runtime's vocabulary shortlist, on every golden model: a shortlist of
// the whole vocabulary changes nothing; a real one yields only ids of the
// sentence's union, with the full model's log-probabilities renormalised
// over that union (checked against teacher-forced full logits); the option
// works per translator and per call; and translate_ids still allocates nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "alloc_counter.hpp"
#include "convert.h"
#include "golden_util.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;
namespace fs = std::filesystem;
namespace sc = softalign::convert;
using json = nlohmann::json;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/softalign-shortlist-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

struct Golden {
  json config;
  std::vector<std::vector<int32_t>> sources;
  std::vector<SearchOptions> searches;
};

Golden load_golden(const std::string& name) {
  const json g = golden::load_json(name);
  Golden out;
  out.config = g["config"];
  for (const auto& s : g["sentences"]) out.sources.push_back(golden::ids(s["src_ids"]));
  for (const auto& spec : g["searches"]) out.searches.push_back(golden::search_options(spec));
  return out;
}

// Converts golden model `name` with the given shortlist (none when empty) and loads it.
std::shared_ptr<const Model> convert_golden(const std::string& name, sc::Precision precision,
                                     const std::optional<sc::ShortlistData>& shortlist, const fs::path& out) {
  sc::Options o;
  o.input = (golden::source_dir() / name / "model.safetensors").string();
  o.output = out.string();
  o.precision = precision;
  o.shortlist_data = shortlist;
  std::ostringstream report;
  sc::convert(o, report);
  std::shared_ptr<const Model> model;
  const Status st = Model::load(o.output, &model);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return model;
}

sc::ShortlistData shortlist_of(int src_vocab, const std::vector<std::vector<uint32_t>>& lists,
                               const std::set<uint32_t>& frequent) {
  sc::ShortlistData d;
  d.offsets.push_back(0);
  for (int s = 0; s < src_vocab; ++s) {
    if (s < static_cast<int>(lists.size())) d.ids.insert(d.ids.end(), lists[s].begin(), lists[s].end());
    d.offsets.push_back(static_cast<uint32_t>(d.ids.size()));
  }
  d.frequent.assign(frequent.begin(), frequent.end());
  d.method = "test";
  return d;
}

// The whole target vocabulary as the frequent list.
sc::ShortlistData whole_vocabulary(const json& c) {
  std::set<uint32_t> all;
  for (int v = 0; v < c["tgt_vocab"].get<int>(); ++v) all.insert(v);
  return shortlist_of(c["src_vocab"].get<int>(), {}, all);
}

// Specials as the frequent list; source id s lists (3s + 1) % V and (5s + 2) % V.
sc::ShortlistData small_shortlist(const json& c) {
  const int V = c["tgt_vocab"].get<int>();
  std::vector<std::vector<uint32_t>> lists;
  for (int s = 0; s < c["src_vocab"].get<int>(); ++s)
    lists.push_back({static_cast<uint32_t>((3 * s + 1) % V), static_cast<uint32_t>((5 * s + 2) % V)});
  std::set<uint32_t> specials;
  for (const char* k : {"pad_id", "unk_id", "bos_id", "eos_id"}) specials.insert(c[k].get<uint32_t>());
  return shortlist_of(c["src_vocab"].get<int>(), lists, specials);
}

// The union the runtime must compute for `src`.
std::set<int32_t> union_of(const sc::ShortlistData& d, const std::vector<int32_t>& src, int eos) {
  std::set<int32_t> u(d.frequent.begin(), d.frequent.end());
  u.insert(eos);
  for (int32_t s : src)
    for (uint32_t i = d.offsets[s]; i < d.offsets[s + 1]; ++i) u.insert(static_cast<int32_t>(d.ids[i]));
  return u;
}

// The log-softmax over the union's columns of a full logits row, at `id`.
double log_prob_in(const float* row, const std::set<int32_t>& u, int32_t id) {
  double mx = -1e30, sum = 0.0;
  for (int32_t v : u) mx = std::max(mx, double(row[v]));
  for (int32_t v : u) sum += std::exp(double(row[v]) - mx);
  return double(row[id]) - (mx + std::log(sum));
}

std::unique_ptr<Translator> prepare(std::shared_ptr<const Model> model, bool use_shortlist) {
  TranslatorOptions opt;
  opt.search.beam_size = 5;  // the golden searches' widest
  opt.search.max_len_b = 64.0f;
  opt.use_shortlist = use_shortlist;
  std::unique_ptr<Translator> tr;
  const Status st = Translator::prepare(std::move(model), opt, &tr);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return tr;
}

// An n-best list copied out of the translator's views.
struct NBest {
  std::vector<std::vector<int32_t>> ids;
  std::vector<float> scores, log_probs;
  std::vector<bool> ended;  // ended with EOS
};

NBest run(Translator& tr, const std::vector<int32_t>& src, SearchOptions so, std::optional<bool> use) {
  so.use_shortlist = use;
  NBestView nb;
  const Status st = tr.translate_ids(src, so, &nb);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  NBest out;
  for (std::size_t r = 0; r < nb.count; ++r) {
    const HypothesisView& h = nb.hypotheses[r];
    out.ids.emplace_back(h.ids, h.ids + h.length);
    out.scores.push_back(h.score);
    out.log_probs.push_back(h.log_prob);
    out.ended.push_back(h.attention_rows > h.length);
  }
  return out;
}

const std::vector<std::pair<const char*, sc::Precision>> kPrecisions = {
    {"f32", sc::Precision::F32}, {"f16", sc::Precision::F16}, {"int8", sc::Precision::Int8}};

}  // namespace

TEST_CASE("a shortlist of the whole vocabulary gives the results of no shortlist") {
  for (const std::string& name : golden::names()) {
    for (const auto& [label, precision] : kPrecisions) {
      CAPTURE(name);
      CAPTURE(label);
      const Golden g = load_golden(name);
      TempDir dir;
      auto tr = prepare(convert_golden(name, precision, whole_vocabulary(g.config), dir.path / "m.softalign"), true);
      double worst = 0.0;
      for (const auto& src : g.sources)
        for (const SearchOptions& so : g.searches) {
          const NBest on = run(*tr, src, so, std::nullopt);  // the prepared default: on
          const NBest off = run(*tr, src, so, false);
          REQUIRE(on.ids.size() == off.ids.size());
          for (std::size_t r = 0; r < on.ids.size(); ++r) {
            CHECK(on.ids[r] == off.ids[r]);
            worst = std::max(worst, double(std::fabs(on.scores[r] - off.scores[r])));
            worst = std::max(worst, double(std::fabs(on.log_probs[r] - off.log_probs[r])));
          }
        }
      // The same rows through another product (kernel per run of ids, not the
      // generator's layer): equal up to float summation order.
      CHECK(worst <= 1e-4);
    }
  }
}

TEST_CASE("a real shortlist: ids from the union only, log-probs of the full model renormalised over it") {
  for (const std::string& name : golden::names()) {
    for (const auto& [label, precision] : kPrecisions) {
      CAPTURE(name);
      CAPTURE(label);
      const Golden g = load_golden(name);
      const int V = g.config["tgt_vocab"].get<int>();
      const int eos = g.config["eos_id"].get<int>(), bos = g.config["bos_id"].get<int>();
      const sc::ShortlistData sl = small_shortlist(g.config);
      TempDir dir;
      auto tr = prepare(convert_golden(name, precision, sl, dir.path / "m.softalign"), true);
      int restricted = 0;
      for (const auto& src : g.sources) {
        const std::set<int32_t> u = union_of(sl, src, eos);
        restricted += static_cast<int>(u.size()) < V;
        for (const SearchOptions& so : g.searches) {
          const NBest nb = run(*tr, src, so, std::nullopt);
          REQUIRE(!nb.ids.empty());
          for (const auto& ids : nb.ids)
            for (int32_t id : ids) CHECK_MESSAGE(u.count(id) == 1, "id ", id, " not in the union");
        }
        // Greedy: its log-prob is Σ_t (logit[y_t] − logsumexp over the union) of the
        // full, teacher-forced logits of the same ids.
        SearchOptions greedy = g.searches.at(0);
        REQUIRE(*greedy.beam_size == 1);
        const NBest nb = run(*tr, src, greedy, std::nullopt);
        std::vector<int32_t> out = nb.ids[0];
        if (nb.ended[0]) out.push_back(eos);
        std::vector<int32_t> tgt_in = {bos};
        tgt_in.insert(tgt_in.end(), out.begin(), out.end() - 1);
        std::vector<float> logits(tgt_in.size() * V);
        REQUIRE(tr->force_decode(src, tgt_in, logits.data(), nullptr).ok());
        double expect = 0.0;
        for (std::size_t t = 0; t < out.size(); ++t) expect += log_prob_in(logits.data() + t * V, u, out[t]);
        CHECK(nb.log_probs[0] == doctest::Approx(expect).epsilon(1e-4));
      }
      CHECK(restricted > 0);  // the test really restricts the vocabulary
    }
  }
}

TEST_CASE("when the union holds the full greedy output, the greedy output is the same") {
  for (const std::string& name : golden::names()) {
    CAPTURE(name);
    const Golden g = load_golden(name);
    TempDir dir;
    auto full = prepare(convert_golden(name, sc::Precision::F32, std::nullopt, dir.path / "plain.softalign"), true);
    const SearchOptions greedy = g.searches.at(0);
    for (std::size_t i = 0; i < g.sources.size(); ++i) {
      CAPTURE(i);
      const NBest want = run(*full, g.sources[i], greedy, std::nullopt);
      std::set<uint32_t> frequent(want.ids[0].begin(), want.ids[0].end());
      for (const char* k : {"pad_id", "unk_id", "bos_id", "eos_id"}) frequent.insert(g.config[k].get<uint32_t>());
      const auto model = convert_golden(name, sc::Precision::F32, shortlist_of(g.config["src_vocab"].get<int>(), {}, frequent),
                                 dir.path / "m.softalign");
      auto tr = prepare(model, true);
      const NBest got = run(*tr, g.sources[i], greedy, std::nullopt);
      CHECK(got.ids[0] == want.ids[0]);
      // Renormalised over fewer ids: never less likely.
      CHECK(got.log_probs[0] >= want.log_probs[0] - 1e-5f);
    }
  }
}

TEST_CASE("use_shortlist: per translator, per call, and ignored without a shortlist") {
  // Prepared with it (the default), a call may turn it off; prepared without
  // it, the translator reserves nothing for it and a call cannot turn it on.
  const std::string name = "bahdanau";
  const Golden g = load_golden(name);
  const int eos = g.config["eos_id"].get<int>();
  const sc::ShortlistData sl = small_shortlist(g.config);
  TempDir dir;
  const auto with = convert_golden(name, sc::Precision::F32, sl, dir.path / "with.softalign");
  const auto without = convert_golden(name, sc::Precision::F32, std::nullopt, dir.path / "without.softalign");
  CHECK(with->has_shortlist());
  CHECK_FALSE(without->has_shortlist());
  auto off_by_default = prepare(with, false);
  auto on_by_default = prepare(with, true);
  auto plain = prepare(without, true);
  bool some_differ = false;
  for (const auto& src : g.sources) {
    const std::set<int32_t> u = union_of(sl, src, eos);
    for (const SearchOptions& so : g.searches) {
      const NBest full = run(*plain, src, so, std::nullopt);
      // Without a shortlist in the file, asking for it changes nothing.
      CHECK(run(*plain, src, so, true).ids == full.ids);
      CHECK(run(*off_by_default, src, so, std::nullopt).ids == full.ids);
      CHECK(run(*on_by_default, src, so, false).ids == full.ids);
      const NBest a = run(*on_by_default, src, so, true);
      const NBest b = run(*on_by_default, src, so, std::nullopt);
      CHECK(a.ids == b.ids);
      CHECK(a.scores == b.scores);
      for (const auto& ids : a.ids)
        for (int32_t id : ids) CHECK(u.count(id) == 1);
      some_differ = some_differ || a.ids != full.ids;
      // Prepared without it (no arena for it): a call cannot turn it on.
      SearchOptions ask = so;
      ask.use_shortlist = true;
      NBestView nb;
      const Status st = off_by_default->translate_ids(src, ask, &nb);
      CHECK(st.code() == StatusCode::kInvalidArgument);
      CHECK(st.message().find("prepared without the shortlist") != std::string::npos);
    }
  }
  CHECK(some_differ);
}

TEST_CASE("translate_ids allocates nothing with the shortlist on") {
  for (const std::string& name : golden::names()) {
    for (const auto& [label, precision] : kPrecisions) {
      CAPTURE(name);
      CAPTURE(label);
      const Golden g = load_golden(name);
      TempDir dir;
      auto tr = prepare(convert_golden(name, precision, small_shortlist(g.config), dir.path / "m.softalign"), true);
      std::vector<SearchOptions> searches = g.searches;
      for (SearchOptions& so : searches) so.use_shortlist = true;
      std::vector<float> logits(65 * g.config["tgt_vocab"].get<int>());
      const std::vector<int32_t> tgt_in = {g.config["bos_id"].get<int32_t>()};
      bool all_ok = true;
      std::size_t produced = 0;
      alloc_counter::start();
      for (int round = 0; round < 3; ++round)
        for (const auto& src : g.sources) {
          for (const SearchOptions& so : searches) {
            NBestView nb;
            all_ok = all_ok && tr->translate_ids(src, so, &nb).ok();
            produced += nb.count;
          }
          all_ok = all_ok && tr->force_decode(src, tgt_in, logits.data(), nullptr).ok();
        }
      const long count = alloc_counter::stop();
      CHECK(all_ok);
      CHECK(produced > 0);
      CHECK_MESSAGE(count == 0, count, " allocations");
    }
  }
}

// An ensemble computes every member's output layer over its first member's
// shortlist: its ids come from that union, and a greedy step's score is the
// mean over the members of their log-softmax renormalised over the union. A
// first member without a shortlist means none. A call with a target prefix
// uses the whole vocabulary.
TEST_CASE("an ensemble uses its first member's shortlist; a target prefix none") {
  const Golden g = load_golden("bahdanau");
  const int V = g.config["tgt_vocab"].get<int>();
  const int eos = g.config["eos_id"].get<int>(), bos = g.config["bos_id"].get<int>();
  const sc::ShortlistData sl = small_shortlist(g.config);
  TempDir dir;
  const auto a = convert_golden("bahdanau", sc::Precision::F32, sl, dir.path / "a.softalign");
  const auto b = convert_golden("luong_general", sc::Precision::F32, std::nullopt, dir.path / "b.softalign");
  TranslatorOptions opt;
  opt.search.beam_size = 4;
  opt.search.max_len_b = 64.0f;
  std::unique_ptr<Translator> ab, ba, full_a, full_b;
  REQUIRE(Translator::prepare({a, b}, opt, &ab).ok());
  REQUIRE(Translator::prepare({b, a}, opt, &ba).ok());
  full_a = prepare(a, false);
  full_b = prepare(b, false);
  int restricted = 0;
  for (const auto& src : g.sources) {
    const std::set<int32_t> u = union_of(sl, src, eos);
    restricted += static_cast<int>(u.size()) < V;
    for (const SearchOptions& so : g.searches) {
      const NBest with = run(*ab, src, so, std::nullopt);
      for (const auto& ids : with.ids)
        for (int32_t id : ids) CHECK_MESSAGE(u.count(id) == 1, "id ", id, " not in the union");
      // [b, a]: b has no shortlist, so neither has the ensemble.
      const NBest none = run(*ba, src, so, std::nullopt), off = run(*ba, src, so, false);
      CHECK(none.ids == off.ids);
      CHECK(none.scores == off.scores);
      // A prefix: the whole vocabulary, as with the shortlist off.
      SearchOptions pre = so;
      const std::vector<int32_t> prefix = {5};
      pre.target_prefix_ids = prefix;
      const NBest p_on = run(*ab, src, pre, std::nullopt), p_off = run(*ab, src, pre, false);
      CHECK(p_on.ids == p_off.ids);
      CHECK(p_on.scores == p_off.scores);
    }
    const NBest nb = run(*ab, src, g.searches.at(0), std::nullopt);
    std::vector<int32_t> out = nb.ids[0];
    if (nb.ended[0]) out.push_back(eos);
    std::vector<int32_t> tgt_in = {bos};
    tgt_in.insert(tgt_in.end(), out.begin(), out.end() - 1);
    double expect = 0.0;
    for (Translator* member : {full_a.get(), full_b.get()}) {
      std::vector<float> logits(tgt_in.size() * V);
      REQUIRE(member->force_decode(src, tgt_in, logits.data(), nullptr).ok());
      for (std::size_t t = 0; t < out.size(); ++t) expect += log_prob_in(logits.data() + t * V, u, out[t]) / 2;
    }
    CHECK(nb.log_probs[0] == doctest::Approx(expect).epsilon(1e-4));
  }
  CHECK(restricted > 0);
}
