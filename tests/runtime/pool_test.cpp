// TranslatorPool: replicas over one model, the batching policy in one place.
// Its results are in input order and exactly Translator::translate_batch's
// with one thread (and so translate()'s), for mixed lengths, at 1 and 2
// threads, with one or two replicas; a failing item costs only itself; the
// max_batch bound is checked. (alloc_test.cpp: a replica's numeric core
// allocates nothing.)
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "golden_util.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

std::shared_ptr<const Model> load(const std::string& name, const char* precision) {
  std::shared_ptr<const Model> m;
  Status st = Model::load(golden::model_path(name, precision).string(), &m);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return m;
}

TranslatorOptions options(int threads, int beam, int max_batch) {
  TranslatorOptions o;
  o.threads = threads;
  o.max_batch = max_batch;
  o.search.beam_size = beam;
  o.search.nbest = beam;
  return o;
}

// Every golden sentence, short and long ones interleaved, some repeated, a
// blank one and a too-long-for-UTF-8 one in the middle.
std::vector<std::string> mixed(const std::string& name) {
  const nlohmann::json g = golden::load_json(name);
  std::vector<std::string> texts;
  for (const auto& s : g["sentences"]) texts.push_back(s["src_text"].get<std::string>());
  std::vector<std::string> batch;
  for (int r = 0; r < 3; ++r)
    for (std::size_t i = 0; i < texts.size(); ++i) batch.push_back(texts[(i * 7 + r) % texts.size()]);
  batch.insert(batch.begin() + 1, texts[0] + " " + texts[1] + " " + texts[0]);
  batch.insert(batch.begin() + 3, "   ");
  return batch;
}

void same(const std::vector<TranslationResult>& a, const std::vector<TranslationResult>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("sentence ", i);
    REQUIRE(a[i].hypotheses.size() == b[i].hypotheses.size());
    CHECK(a[i].source_ids == b[i].source_ids);
    for (std::size_t h = 0; h < a[i].hypotheses.size(); ++h) {
      CHECK(a[i].hypotheses[h].text == b[i].hypotheses[h].text);
      CHECK(a[i].hypotheses[h].ids == b[i].hypotheses[h].ids);
      CHECK(a[i].hypotheses[h].score == b[i].hypotheses[h].score);
    }
  }
}

}  // namespace

TEST_CASE("a pool gives translate_batch's results in input order") {
  for (const std::string& name : golden::names()) {
    const std::vector<std::string> batch = mixed(name);
    for (const char* precision : {"f32", "int8"}) {
      for (int beam : {1, 4}) {
        INFO(name, " ", precision, " beam ", beam);
        auto m = load(name, precision);
        std::unique_ptr<Translator> one;
        REQUIRE(Translator::prepare(m, options(1, beam, 4), &one).ok());
        std::vector<TranslationResult> want;
        REQUIRE(one->translate_batch(batch, &want).ok());
        // In input order: each is the sentence's own translation.
        for (std::size_t i : {std::size_t{0}, std::size_t{1}, batch.size() - 1}) {
          TranslationResult r;
          REQUIRE(one->translate(batch[i], &r).ok());
          CHECK(r.hypotheses.at(0).ids == want[i].hypotheses.at(0).ids);
        }
        for (int threads : {1, 2}) {
          for (int replicas : {0, 1}) {
            INFO("threads ", threads, " replicas ", replicas);
            std::unique_ptr<TranslatorPool> pool;
            Status st = TranslatorPool::prepare({m}, options(threads, beam, 4), replicas, &pool);
            REQUIRE_MESSAGE(st.ok(), st.to_string());
            CHECK(pool->replica_count() == static_cast<std::size_t>(replicas == 0 ? threads : replicas));
            CHECK(pool->replica(0).options().threads == threads / static_cast<int>(pool->replica_count()));
            std::vector<TranslationResult> got;
            std::vector<Status> status;
            REQUIRE(pool->translate_batch(batch, SearchOptions(), &got, &status).ok());
            for (const Status& s : status) CHECK(s.ok());
            same(got, want);
            // Runs of 1 and 3 (max_batch bounds them): the same results.
            for (int run : {1, 3}) {
              REQUIRE(pool->translate_batch(batch, SearchOptions(), &got, &status, run).ok());
              same(got, want);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a pool's failing item costs only itself") {
  auto m = load("bahdanau", "f32");
  std::unique_ptr<TranslatorPool> pool;
  REQUIRE(TranslatorPool::prepare(m, options(2, 1, 4), &pool).ok());
  std::vector<TranslationResult> out;
  std::vector<Status> status;
  REQUIRE(pool->translate_batch({"ok", "bad \xff byte", "fine", "\xfe"}, SearchOptions(), &out, &status).ok());
  REQUIRE(status.size() == 4);
  CHECK(status[0].ok());
  CHECK(status[1].code() == StatusCode::kInvalidUtf8);
  CHECK(status[2].ok());
  CHECK(status[3].code() == StatusCode::kInvalidUtf8);
  CHECK(out[1].hypotheses.empty());
  CHECK(!out[2].hypotheses.empty());
  // An empty list is a call like any other (its options are still checked).
  CHECK(pool->translate_batch({}, SearchOptions(), &out, &status).ok());
  CHECK(out.empty());
  SearchOptions wide;
  wide.beam_size = 64;
  CHECK(pool->translate_batch({"ok"}, wide, &out, &status).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("a pool checks its arguments") {
  auto m = load("bahdanau", "f32");
  std::unique_ptr<TranslatorPool> pool;
  CHECK(TranslatorPool::prepare({m}, options(2, 1, 4), 3, &pool).code() == StatusCode::kInvalidArgument);
  CHECK(TranslatorPool::prepare({m}, options(2, 1, 4), -1, &pool).code() == StatusCode::kInvalidArgument);
  CHECK(TranslatorPool::prepare({m}, options(0, 1, 4), 0, &pool).code() == StatusCode::kInvalidArgument);
  CHECK(TranslatorPool::prepare(nullptr, options(1, 1, 4), &pool).code() == StatusCode::kInvalidArgument);
  REQUIRE(TranslatorPool::prepare(m, options(1, 1, 4), &pool).ok());
  std::vector<TranslationResult> out;
  std::vector<Status> status;
  CHECK(pool->translate_batch({"ok"}, SearchOptions(), &out, &status, 5).code() == StatusCode::kInvalidArgument);
  CHECK(pool->translate_batch({"ok"}, SearchOptions(), &out, &status, -1).code() == StatusCode::kInvalidArgument);
  CHECK(pool->translate_batch({"ok"}, SearchOptions(), nullptr, &status).code() == StatusCode::kInvalidArgument);
  // Translator::translate_batch takes the same bound.
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(m, options(2, 1, 4), &tr).ok());
  CHECK(tr->translate_batch({"ok", "fine"}, SearchOptions(), &out, &status, 5).code() ==
        StatusCode::kInvalidArgument);
  CHECK(tr->translate_batch({"ok", "fine"}, SearchOptions(), &out, &status, 2).ok());
}
