// Stopping a call (Translator::cancel, TranslatorPool::cancel, the
// timeout_ms deadline, a stream callback's kStop) and streaming, on the
// shipped en→fr file. Timings are printed; the bounds asserted are generous
// (a loaded machine must not fail them): the figure is the printed one.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "shipped_model.hpp"
#include "softalign/softalign.hpp"

using namespace softalign;

namespace {

// cancel() stops the calls running when it is called; on a loaded machine
// the thread of a call may start it after the test's first cancel (a new
// thread can wait past 100 ms for a core). So the first cancel is the one
// timed, and it is repeated until the call has returned.
template <class Cancel>
void cancel_until_done(const std::atomic<bool>& done, Cancel cancel) {
  cancel();
  while (!done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    cancel();
  }
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// About 900 kB of ordinary sentences on one line (split by the translator
// into parts): minutes of work.
std::string huge_line() {
  const std::string s = "This package contains the documentation. A simple text editor with many plugins, for the desktop. ";
  std::string line;
  while (line.size() + s.size() < 900 * 1024) line += s;
  line.pop_back();
  return line;
}

const char* const kShort = "A simple text editor.";

// max_source_tokens 16 splits a text of three short sentences into them.
std::unique_ptr<Translator> make(int beam, int threads = 1, int max_source_tokens = 0) {
  TranslatorOptions o;
  o.search.beam_size = beam;
  o.threads = threads;
  o.max_source_tokens = max_source_tokens;
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(golden::shipped_en_fr(), o, &tr).ok());
  return tr;
}

std::string best(Translator& tr, const std::string& text) {
  TranslationResult r;
  const Status st = tr.translate(text, &r);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return r.hypotheses.at(0).text;
}

}  // namespace

TEST_CASE("cancel: a 900 kB line cancelled after 100 ms returns cancelled, and the translator goes on") {
  const std::string line = huge_line();
  for (int beam : {1, 4}) {
    INFO("beam ", beam);
    auto tr = make(beam);
    const std::string expected = best(*tr, kShort);
    TranslationResult r;
    Status st;
    const Clock::time_point t0 = Clock::now();
    double returned_ms = 0;
    std::atomic<bool> done{false};
    std::thread call([&] {
      st = tr->translate(line, &r);
      returned_ms = ms_since(t0);
      done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double cancelled_ms = ms_since(t0);
    cancel_until_done(done, [&] { tr->cancel(); });
    call.join();
    std::printf("stop: C++ cancel, beam %d: cancelled at %.1f ms, returned at %.1f ms (%.1f ms after)\n", beam,
                cancelled_ms, returned_ms, returned_ms - cancelled_ms);
    CHECK(st.code() == StatusCode::kCancelled);
    CHECK(st.to_string() == "cancelled: cancel() called");
    CHECK(r.hypotheses.empty());
    CHECK(returned_ms - cancelled_ms < 2000.0);
    // The cancel was for that call only.
    CHECK(best(*tr, kShort) == expected);
  }
}

TEST_CASE("deadline: timeout_ms stops a 900 kB line, per call or for every call") {
  const std::string line = huge_line();
  auto tr = make(4);
  const std::string expected = best(*tr, kShort);
  SearchOptions s;
  s.timeout_ms = 100;
  TranslationResult r;
  Clock::time_point t0 = Clock::now();
  Status st = tr->translate(line, s, &r);
  double ms = ms_since(t0);
  std::printf("stop: C++ deadline 100 ms: returned at %.1f ms\n", ms);
  CHECK(st.code() == StatusCode::kDeadlineExceeded);
  CHECK(st.to_string() == "deadline_exceeded: past timeout_ms");
  CHECK(ms < 2000.0);
  CHECK(best(*tr, kShort) == expected);  // the next call has no deadline

  // The translator's option: every call's deadline.
  TranslatorOptions o;
  REQUIRE(parse_options_json(R"({"beam": 4, "timeout_ms": 100})", &o).ok());
  CHECK(o.search.timeout_ms == 100);
  std::unique_ptr<Translator> timed;
  REQUIRE(Translator::prepare(golden::shipped_en_fr(), o, &timed).ok());
  t0 = Clock::now();
  st = timed->translate(line, &r);
  CHECK(st.code() == StatusCode::kDeadlineExceeded);
  CHECK(ms_since(t0) < 2000.0);
  CHECK(best(*timed, kShort) == expected);  // a short line is within its deadline
  SearchOptions none;
  none.timeout_ms = 0;  // a call may lift it
  CHECK(timed->translate(kShort, none, &r).ok());
  // Negative: refused, at prepare or per call.
  none.timeout_ms = -1;
  CHECK(timed->translate(kShort, none, &r).code() == StatusCode::kInvalidArgument);
  o.search.timeout_ms = -5;
  CHECK(Translator::prepare(golden::shipped_en_fr(), o, &timed).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("cancel stops only the calls running when it is called") {
  auto tr = make(4);
  const std::string expected = best(*tr, kShort);
  tr->cancel();  // nothing running: the next call is not touched
  CHECK(best(*tr, kShort) == expected);
  NBestView nb;
  std::vector<int32_t> ids;
  REQUIRE(tr->model().encode_source(kShort, &ids).ok());
  tr->cancel();
  CHECK(tr->translate_ids(ids, &nb).ok());
}

TEST_CASE("cancel and deadline in translate_batch: the sentences not finished get the status") {
  const std::string line = huge_line();
  for (int threads : {1, 2}) {
    INFO("threads ", threads);
    auto tr = make(4, threads);
    const std::vector<std::string> texts = {kShort, line, "Open file", line};
    std::vector<TranslationResult> results;
    std::vector<Status> status;
    Status call;
    const Clock::time_point t0 = Clock::now();
    double returned_ms = 0;
    std::atomic<bool> done{false};
    std::thread worker([&] {
      call = tr->translate_batch(texts, tr->options().search, &results, &status);
      returned_ms = ms_since(t0);
      done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel_until_done(done, [&] { tr->cancel(); });
    worker.join();
    std::printf("stop: C++ translate_batch cancel at 300 ms, threads %d: returned at %.1f ms\n", threads, returned_ms);
    REQUIRE(call.ok());
    REQUIRE(status.size() == 4);
    CHECK(status[1].code() == StatusCode::kCancelled);
    CHECK(status[3].code() == StatusCode::kCancelled);
    CHECK(results[1].hypotheses.empty());
    CHECK(returned_ms < 2300.0);
    // Short ones are done first (sorted by length) or cancelled: never wrong.
    for (std::size_t i : {0u, 2u})
      CHECK((status[i].ok() || status[i].code() == StatusCode::kCancelled));
    // The deadline, per call; the translator goes on.
    SearchOptions s = tr->options().search;
    s.timeout_ms = 100;
    REQUIRE(tr->translate_batch(texts, s, &results, &status).ok());
    CHECK(status[1].code() == StatusCode::kDeadlineExceeded);
    CHECK(tr->translate_batch({kShort, "Open file"}, tr->options().search, &results, &status).ok());
    CHECK((status[0].ok() && status[1].ok()));
    CHECK(results[0].hypotheses.at(0).text == best(*tr, kShort));
  }
}

TEST_CASE("TranslatorPool::cancel stops its running batch") {
  TranslatorOptions o;
  o.search.beam_size = 4;
  o.threads = 2;
  std::unique_ptr<TranslatorPool> pool;
  REQUIRE(TranslatorPool::prepare(golden::shipped_en_fr(), o, &pool).ok());
  const std::vector<std::string> texts = {huge_line(), huge_line()};
  std::vector<TranslationResult> results;
  std::vector<Status> status;
  Status call;
  std::atomic<bool> done{false};
  std::thread worker([&] {
    call = pool->translate_batch(texts, SearchOptions(), &results, &status);
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  cancel_until_done(done, [&] { pool->cancel(); });
  worker.join();
  REQUIRE(call.ok());
  CHECK(status[0].code() == StatusCode::kCancelled);
  CHECK(status[1].code() == StatusCode::kCancelled);
  REQUIRE(pool->translate_batch({kShort}, SearchOptions(), &results, &status).ok());
  CHECK(status[0].ok());
}

namespace {

// What a stream callback was told.
struct Streamed {
  std::vector<std::string> pieces;
  std::vector<std::size_t> piece_sentence;
  std::vector<std::string> sentences;
  StreamCallback callback(std::size_t stop_after_events = SIZE_MAX) {
    return [this, stop_after_events](const StreamEvent& e) {
      if (e.kind == StreamEvent::Kind::kPiece) {
        pieces.emplace_back(e.piece);
        piece_sentence.push_back(e.index);
        CHECK(e.id >= 0);
      } else {
        CHECK(e.index == sentences.size());
        sentences.emplace_back(e.text);
      }
      return pieces.size() + sentences.size() >= stop_after_events ? StreamAction::kStop : StreamAction::kContinue;
    };
  }
  std::string joined() const {
    std::string out;
    for (const std::string& s : sentences) {
      if (!out.empty() && !s.empty()) out += ' ';
      out += s;
    }
    return out;
  }
};

}  // namespace

TEST_CASE("streaming: greedy pieces and the sentences of a long text equal the result") {
  auto tr = make(1, 1, 16);
  const SearchOptions& greedy = tr->options().search;
  const std::string text =
      "This package contains the documentation. A simple text editor. Tools to manage the files of a project.";
  Streamed got;
  TranslationResult r;
  REQUIRE(tr->translate(text, greedy, got.callback(), &r).ok());
  CHECK(got.sentences.size() == 3);
  CHECK(got.joined() == r.hypotheses.at(0).text);
  CHECK(got.pieces == r.hypotheses.at(0).pieces);
  CHECK(got.piece_sentence.front() == 0);
  CHECK(got.piece_sentence.back() == 2);
  // The same result as without a callback.
  TranslationResult plain;
  REQUIRE(tr->translate(text, &plain).ok());
  CHECK(plain.hypotheses.at(0).text == r.hypotheses.at(0).text);

  // A short text: one sentence, its pieces.
  Streamed one;
  REQUIRE(tr->translate(kShort, greedy, one.callback(), &r).ok());
  CHECK(one.sentences == std::vector<std::string>{r.hypotheses.at(0).text});
  CHECK(one.pieces == r.hypotheses.at(0).pieces);

  // The ids call streams pieces.
  std::vector<int32_t> ids;
  REQUIRE(tr->model().encode_source(kShort, &ids).ok());
  Streamed from_ids;
  NBestView nb;
  REQUIRE(tr->translate_ids(ids, greedy, from_ids.callback(), &nb).ok());
  CHECK(from_ids.pieces.size() == nb.hypotheses[0].length);
  CHECK(from_ids.sentences.empty());
}

TEST_CASE("streaming: beam search gives each sentence, no pieces") {
  auto tr = make(4);
  Streamed got;
  TranslationResult r;
  REQUIRE(tr->translate(kShort, tr->options().search, got.callback(), &r).ok());
  CHECK(got.pieces.empty());
  CHECK(got.sentences == std::vector<std::string>{r.hypotheses.at(0).text});
}

TEST_CASE("streaming: kStop from the callback ends the call, cancelled; the translator goes on") {
  auto tr = make(1);
  const std::string expected = best(*tr, kShort);
  Streamed got;
  TranslationResult r;
  const Clock::time_point t0 = Clock::now();
  const Status st = tr->translate(huge_line(), tr->options().search, got.callback(3), &r);
  std::printf("stop: C++ stream callback stop after 3 pieces: returned at %.1f ms\n", ms_since(t0));
  CHECK(st.code() == StatusCode::kCancelled);
  CHECK(st.to_string() == "cancelled: stream callback");
  CHECK(got.pieces.size() == 3);
  CHECK(r.hypotheses.empty());
  CHECK(best(*tr, kShort) == expected);
}
