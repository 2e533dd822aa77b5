// The vocabulary shortlist: the builder on corpora small enough to work out
// by hand, the --shortlist-* options of the binary, and the reader's rules
// for a damaged shortlist.
#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include <doctest/doctest.h>

#include "checks.h"
#include "error.h"
#include "shortlist.h"

using namespace test;
namespace fb = softalign::fb;
namespace sc = softalign::convert;

namespace {

using Ids = std::vector<std::vector<int32_t>>;
const std::vector<int32_t> kSpecials = {0, 1, 2, 3};  // pad, unk, bos, eos

std::vector<uint32_t> list_of(const sc::ShortlistData& d, int s) {
  return std::vector<uint32_t>(d.ids.begin() + d.offsets[s], d.ids.begin() + d.offsets[s + 1]);
}

sc::ShortlistParams params(const char* method, int k, int f) {
  sc::ShortlistParams p;
  p.method = method;
  p.top_k = k;
  p.frequent = f;
  return p;
}

// Three sentence pairs, EOS (3) ending each side.
const Ids kSrc = {{4, 5, 3}, {4, 6, 3}, {7, 3}};
const Ids kTgt = {{4, 5, 3}, {4, 6, 3}, {8, 3}};

}  // namespace

TEST_CASE("cooc: p(t|s) from sentence co-occurrence, worked by hand") {
  // Target tokens: 3 ×3, 4 ×2, 5, 6, 8 ×1. F = 1 keeps 3 (EOS), plus the specials.
  const sc::ShortlistData d = sc::build_shortlist(kSrc, kTgt, 8, 10, kSpecials, params("cooc", 2, 1));
  CHECK(d.frequent == std::vector<uint32_t>{0, 1, 2, 3});
  CHECK(d.method == "cooc");
  CHECK(d.top_k == 2);
  CHECK(d.frequent_count == 1);
  // Source 4 (sentences 0, 1): p(4|4) = 1, p(5|4) = p(6|4) = 1/2 (tie: lower id); 3 is frequent.
  CHECK(d.offsets == std::vector<uint32_t>{0, 0, 0, 0, 2, 4, 6, 8, 9});
  CHECK(list_of(d, 3) == std::vector<uint32_t>{4, 5});  // EOS: p(4|3) = 2/3, then 1/3 each
  CHECK(list_of(d, 4) == std::vector<uint32_t>{4, 5});
  CHECK(list_of(d, 5) == std::vector<uint32_t>{4, 5});
  CHECK(list_of(d, 6) == std::vector<uint32_t>{4, 6});
  CHECK(list_of(d, 7) == std::vector<uint32_t>{8});

  // F = 2 adds target 4: the lists leave it out and take the next candidates.
  const sc::ShortlistData d2 = sc::build_shortlist(kSrc, kTgt, 8, 10, kSpecials, params("cooc", 2, 2));
  CHECK(d2.frequent == std::vector<uint32_t>{0, 1, 2, 3, 4});
  CHECK(list_of(d2, 3) == std::vector<uint32_t>{5, 6});
  CHECK(list_of(d2, 4) == std::vector<uint32_t>{5, 6});
  CHECK(list_of(d2, 5) == std::vector<uint32_t>{5});
  CHECK(list_of(d2, 6) == std::vector<uint32_t>{6});
  CHECK(list_of(d2, 7) == std::vector<uint32_t>{8});
  CHECK(d2.offsets.size() == 9);
}

TEST_CASE("ibm1: EM explains the shared word away (the house / the flower)") {
  // "the house" -> "la maison", "the flower" -> "la fleur": the=4 house=5 flower=6; la=4 maison=5 fleur=6.
  const Ids src = {{4, 5, 3}, {4, 6, 3}};
  const Ids tgt = {{4, 5, 3}, {4, 6, 3}};
  // Co-occurrence cannot tell "maison" from "la" for "house" (both 1): the lower id wins.
  const sc::ShortlistData cooc = sc::build_shortlist(src, tgt, 8, 8, kSpecials, params("cooc", 2, 0));
  CHECK(list_of(cooc, 5) == std::vector<uint32_t>{4, 5});
  // IBM model 1 learns that "la" comes from "the": house -> maison first.
  const sc::ShortlistData ibm = sc::build_shortlist(src, tgt, 8, 8, kSpecials, params("ibm1", 2, 0));
  CHECK(list_of(ibm, 5) == std::vector<uint32_t>{5, 4});
  CHECK(list_of(ibm, 6) == std::vector<uint32_t>{6, 4});
  CHECK(list_of(ibm, 4).at(0) == 4);
  CHECK(ibm.frequent == std::vector<uint32_t>{0, 1, 2, 3});
  // Deterministic.
  const sc::ShortlistData again = sc::build_shortlist(src, tgt, 8, 8, kSpecials, params("ibm1", 2, 0));
  CHECK(again.ids == ibm.ids);
  CHECK(again.offsets == ibm.offsets);
}

TEST_CASE("the builder refuses bad parameters and ids") {
  CHECK_THROWS_AS(sc::build_shortlist(kSrc, kTgt, 8, 10, kSpecials, params("cooc", 0, 1)), sc::Error);
  CHECK_THROWS_AS(sc::build_shortlist(kSrc, kTgt, 8, 10, kSpecials, params("cooc", 2, -1)), sc::Error);
  CHECK_THROWS_AS(sc::build_shortlist(kSrc, kTgt, 8, 10, kSpecials, params("fast_align", 2, 1)), sc::Error);
  CHECK_THROWS_AS(sc::build_shortlist(kSrc, kTgt, 7, 10, kSpecials, params("cooc", 2, 1)), sc::Error);  // id 7
  CHECK_THROWS_AS(sc::build_shortlist(kSrc, Ids{{4, 3}}, 8, 10, kSpecials, params("cooc", 2, 1)), sc::Error);
}

namespace {

struct Fixture {
  TempDir dir;
  TinyModel m;
  std::string src, tgt;
  Fixture() {
    m = make_model(dir.path, small_config("bahdanau"));
    src = dir.file("train.src");
    tgt = dir.file("train.tgt");
    write_file(src, std::string("the cat\na mat\nthe cat sat\n"));
    write_file(tgt, std::string("le chat\nle tapis\nle chat est\n"));
  }
  std::string out() const { return dir.file("m.softalign"); }
};

void check_fails(const Run& r, int status, const std::string& text, const std::string& out) {
  CHECK(r.status == status);
  CHECK_MESSAGE(r.err.find(text) != std::string::npos, r.err);
  CHECK(lines(r.err).size() == 1);
  CHECK_FALSE(exists(out));
}

}  // namespace

TEST_CASE("--shortlist-corpus embeds a shortlist; --inspect shows it; same bytes twice") {
  Fixture f;
  for (const char* method : {"ibm1", "cooc"}) {
    CAPTURE(method);
    const Run r = run_convert({"--int8", f.m.weights, "-o", f.out(), "--shortlist-corpus", f.src, f.tgt,
                               "--shortlist-top", "3", "--shortlist-frequent", "2", "--shortlist-method", method});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const auto bytes = read_file(f.out());
    const fb::Model* m = verified(bytes);
    const fb::Shortlist* sl = m->shortlist();
    REQUIRE(sl != nullptr);
    CHECK(sl->offsets()->size() == f.m.config["src_vocab"].get<uint32_t>() + 1);
    CHECK(sl->top_k() == 3);
    CHECK(sl->frequent_count() == 2);
    CHECK(sl->method()->str() == method);
    // The specials plus the two most frequent target pieces (at most; one may be a special).
    CHECK(sl->frequent()->size() >= 4);
    CHECK(sl->frequent()->size() <= 6);
    for (uint32_t id : {0u, 1u, 2u, 3u}) CHECK(std::find(sl->frequent()->begin(), sl->frequent()->end(), id) != sl->frequent()->end());
    uint32_t longest = 0;
    for (uint32_t s = 0; s + 1 < sl->offsets()->size(); ++s)
      longest = std::max(longest, sl->offsets()->Get(s + 1) - sl->offsets()->Get(s));
    CHECK(longest <= 3);
    CHECK(sl->ids()->size() > 0);

    const Run insp = run_convert({"--inspect", f.out()});
    REQUIRE(insp.status == 0);
    CHECK(insp.out.find("shortlist:\n  method: " + std::string(method) + "\n  top_k: 3\n  frequent_count: 2\n") !=
          std::string::npos);

    REQUIRE(run_convert({"--int8", f.m.weights, "-o", f.dir.file("again.softalign"), "--shortlist-corpus", f.src,
                         f.tgt, "--shortlist-top", "3", "--shortlist-frequent", "2", "--shortlist-method", method})
                .status == 0);
    CHECK(read_file(f.dir.file("again.softalign")) == bytes);
  }
  // Without the option there is none.
  REQUIRE(run_convert({f.m.weights, "-o", f.dir.file("plain.softalign")}).status == 0);
  const auto plain = read_file(f.dir.file("plain.softalign"));
  CHECK(verified(plain)->shortlist() == nullptr);
  CHECK(run_convert({"--inspect", f.dir.file("plain.softalign")}).out.find("shortlist: none") != std::string::npos);
}

TEST_CASE("a shared-vocabulary model tokenises both sides with its one SentencePiece model") {
  TempDir dir;
  const TinyModel m = make_model(dir.path, small_config("bahdanau", "none", "global", false, 1, 1, true));
  write_file(dir.file("train.src"), std::string("the cat\na mat\n"));
  write_file(dir.file("train.tgt"), std::string("le chat\nle mat\n"));
  const Run r = run_convert({m.weights, "-o", dir.file("m.softalign"), "--shortlist-corpus", dir.file("train.src"),
                             dir.file("train.tgt"), "--shortlist-frequent", "1"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto bytes = read_file(dir.file("m.softalign"));
  const fb::Shortlist* sl = verified(bytes)->shortlist();
  REQUIRE(sl != nullptr);
  CHECK(sl->ids()->size() > 0);
  CHECK(sl->offsets()->size() == m.config["src_vocab"].get<uint32_t>() + 1);
}

TEST_CASE("--shortlist-* errors: one line, no output file") {
  Fixture f;
  const std::string w = f.m.weights, o = f.out();
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.src, f.tgt, "--shortlist-top", "0"}), 1,
              "--shortlist-top must be in [1, 100000]", o);
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.src, f.tgt, "--shortlist-frequent", "-5"}), 1,
              "--shortlist-frequent must be in", o);
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.src, f.tgt, "--shortlist-method", "giza"}), 1,
              "--shortlist-method must be cooc or ibm1", o);
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.src, f.dir.file("missing.tgt")}), 1,
              "cannot open the shortlist target corpus", o);
  write_file(f.dir.file("short.tgt"), std::string("le chat\n"));
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.src, f.dir.file("short.tgt")}), 1,
              "has 3 lines", o);
  write_file(f.dir.file("empty.src"), std::string());
  write_file(f.dir.file("empty.tgt"), std::string());
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.dir.file("empty.src"), f.dir.file("empty.tgt")}), 1,
              "is empty", o);
  // Command-line usage errors (exit status 2).
  check_fails(run_convert({w, "-o", o, "--shortlist-top", "5"}), 2, "--shortlist-corpus", o);
  check_fails(run_convert({w, "-o", o, "--shortlist-corpus", f.src}), 2, "shortlist-corpus", o);
}

namespace {

// Overwrites element `i` of a uint32 vector inside `bytes` (the vector lives in the buffer).
void poke(std::vector<uint8_t>& bytes, const flatbuffers::Vector<uint32_t>* v, uint32_t i, uint32_t value) {
  const std::size_t at = reinterpret_cast<const uint8_t*>(v->data()) - bytes.data() + 4 * i;
  std::memcpy(bytes.data() + at, &value, 4);
}

}  // namespace

TEST_CASE("the reader rejects a damaged shortlist with a clear message") {
  Fixture f;
  REQUIRE(run_convert({f.m.weights, "-o", f.out(), "--shortlist-corpus", f.src, f.tgt, "--shortlist-frequent", "2"})
              .status == 0);
  const std::vector<uint8_t> good = read_file(f.out());
  const fb::Model* gm = verified(good);
  const fb::Shortlist& gs = *gm->shortlist();
  const uint32_t n_off = gs.offsets()->size(), n_ids = gs.ids()->size(), n_freq = gs.frequent()->size();
  const uint32_t tgt_vocab = gm->config()->tgt_vocab();
  REQUIRE(n_ids > 0);
  REQUIRE(n_freq >= 2);
  // The first source id with a non-empty list.
  uint32_t s = 0;
  while (gs.offsets()->Get(s + 1) == 0) ++s;

  struct Damage {
    const char* label;
    std::function<void(std::vector<uint8_t>&, const fb::Shortlist&)> apply;
    const char* message;
  };
  const std::vector<Damage> damages = {
      {"offsets[0] != 0", [&](auto& b, const auto& sl) { poke(b, sl.offsets(), 0, 1); }, "offsets[0] is not 0"},
      {"decreasing offsets",
       [&](auto& b, const auto& sl) { poke(b, sl.offsets(), s + 2, sl.offsets()->Get(s + 1) - 1); }, "decrease"},
      {"last offset", [&](auto& b, const auto& sl) { poke(b, sl.offsets(), n_off - 1, n_ids + 1); },
       "last offset"},
      {"one offset short",
       [&](auto& b, const auto& sl) {
         const std::size_t at = reinterpret_cast<const uint8_t*>(sl.offsets()->data()) - b.data() - 4;
         const uint32_t n = n_off - 1;
         std::memcpy(b.data() + at, &n, 4);
       },
       "src_vocab + 1"},
      {"id out of range", [&](auto& b, const auto& sl) { poke(b, sl.ids(), 0, tgt_vocab); }, "outside [0, tgt_vocab)"},
      {"frequent out of range", [&](auto& b, const auto& sl) { poke(b, sl.frequent(), n_freq - 1, tgt_vocab + 7); },
       "frequent id"},
      {"frequent not sorted",
       [&](auto& b, const auto& sl) { poke(b, sl.frequent(), 1, sl.frequent()->Get(0)); }, "strictly increasing"},
  };
  for (const Damage& d : damages) {
    const std::string label = d.label;
    CAPTURE(label);
    std::vector<uint8_t> bad = good;
    d.apply(bad, *verified(bad)->shortlist());
    std::string err;
    CHECK(softalign::format::verify_model(bad.data(), bad.size(), &err) == nullptr);
    CHECK_MESSAGE(err.find("shortlist") != std::string::npos, err);
    CHECK_MESSAGE(err.find(d.message) != std::string::npos, err);
  }
}

TEST_CASE("random byte flips in a file with a shortlist: rejected, or every shortlist id still in range") {
  Fixture f;
  REQUIRE(run_convert({"--int8", f.m.weights, "-o", f.out(), "--shortlist-corpus", f.src, f.tgt}).status == 0);
  const std::vector<uint8_t> good = read_file(f.out());
  std::mt19937 rng(777);
  int rejected = 0;
  const int trials = 2000;
  for (int i = 0; i < trials; ++i) {
    std::vector<uint8_t> bad = good;
    for (int k = 0, n = 1 + int(rng() % 4); k < n; ++k) bad[rng() % bad.size()] ^= uint8_t(1 + rng() % 255);
    const fb::Model* m = softalign::format::verify_model(bad.data(), bad.size(), nullptr);
    if (m == nullptr) {
      ++rejected;
      continue;
    }
    // Accepted: what a runtime reads from the shortlist stays within bounds.
    if (const fb::Shortlist* sl = m->shortlist()) {
      const uint32_t src_vocab = m->config()->src_vocab(), tgt_vocab = m->config()->tgt_vocab();
      REQUIRE(sl->offsets()->size() == src_vocab + 1);
      for (uint32_t s = 0; s < src_vocab; ++s)
        for (uint32_t j = sl->offsets()->Get(s); j < sl->offsets()->Get(s + 1); ++j)
          REQUIRE(sl->ids()->Get(j) < tgt_vocab);
      for (uint32_t id : *sl->frequent()) REQUIRE(id < tgt_vocab);
    }
  }
  MESSAGE(rejected << " of " << trials << " damaged buffers rejected");
  CHECK(rejected > 0);
}
