// Corruption sweep: damaged model files must end in a clear error Status or a
// normal translation, never in a signal, an abort, a sanitizer report or a hang.
//
// For each model file given, the FlatBuffer is walked with the generated
// accessors (offsets of their pointers from the buffer start) to find:
//   dense regions  - the root offset and file identifier, every table and its
//                    vtable (root, config, decoding, metadata, shortlist,
//                    confidence, each tensor), every vector's and string's
//                    length prefix, the confidence's names and weights, the
//                    tensors' offset vector, each tensor's name and shape, the
//                    first 16 bytes of each SentencePiece model and the size
//                    header of its normaliser table (precompiled_charsmap);
//   sampled bytes  - positions spread over each tensor's data and scales, both
//                    SentencePiece models, their normaliser tables and the
//                    shortlist's vectors.
// Every dense byte is XORed with 0xFF and has each of its 8 bits flipped (9
// cases); every sampled byte is XORed with 0xFF and has one bit flipped (2
// cases); one element of each float tensor (f32/f16 data, int8 scales) is
// also set to NaN and one to +Inf, and sampled 4-byte units of each normaliser
// table are set to 0x7FFFFFF0. Each mutated copy goes through
// Model::load_from_bytes and, when it loads, Translator::prepare with the
// model's defaults and the translation (with attention) of an ASCII sentence
// and of one the normaliser rewrites (full-width, ligature, circled, CJK, emoji).
//
// Cases run in forked children, --batch (256) per child, so that every failing
// case is listed, not just the first, and each case has a time budget
// (--case-timeout, default 60 s: a sanitizer build on a loaded 2-core machine
// needs ~20 s for a beam of 517 on the shipped model). A child that dies (a signal, an abort, a
// sanitizer report) or whose case runs past its budget is a failure: the case,
// its region, the byte offset, the mutation and the report's key lines are
// printed, and the next child resumes after it. Exit status: 0 when no case
// failed.
//
//   corruption_sweep [options] FILE...
//     --data-samples K  sampled positions per tensor data / scales (default 4)
//     --spm-samples K   sampled positions per SentencePiece model (default 48)
//     --header-bits B   single-bit flips per dense byte, 0..8 (default 8)
//     --case-timeout S  seconds per case (default 60)
//     --batch N         cases per forked child (default 256)
//     --list            print the cases and exit
//     --only N          run case N in this process (first FILE only), full output
//     --write N OUT     write case N's mutated file (first FILE only) to OUT
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/embedded_spm.hpp"
#include "softalign/softalign.hpp"
#include "softalign_format.h"

using namespace softalign;

namespace {

// kFarUnit: a 4-byte unit set to 0x7FFFFFF0 (a darts-clone offset or leaf value far outside the table).
enum class Mut { kXorFF, kBit, kNaN32, kInf32, kNaN16, kInf16, kFarUnit };

struct Case {
  std::string region;
  size_t offset = 0;  // byte offset in the file
  Mut mut = Mut::kXorFF;
  int bit = 0;
};

std::string describe(const Case& c) {
  char buf[64];
  switch (c.mut) {
    case Mut::kXorFF: std::snprintf(buf, sizeof buf, "xor 0xff"); break;
    case Mut::kBit: std::snprintf(buf, sizeof buf, "flip bit %d", c.bit); break;
    case Mut::kNaN32: std::snprintf(buf, sizeof buf, "f32 NaN"); break;
    case Mut::kInf32: std::snprintf(buf, sizeof buf, "f32 +Inf"); break;
    case Mut::kNaN16: std::snprintf(buf, sizeof buf, "f16 NaN"); break;
    case Mut::kInf16: std::snprintf(buf, sizeof buf, "f16 +Inf"); break;
    case Mut::kFarUnit: std::snprintf(buf, sizeof buf, "unit = 0x7ffffff0"); break;
  }
  return c.region + " @" + std::to_string(c.offset) + " " + buf;
}

void apply(const Case& c, std::vector<uint8_t>* bytes) {
  uint8_t* p = bytes->data() + c.offset;
  switch (c.mut) {
    case Mut::kXorFF: *p ^= 0xFF; break;
    case Mut::kBit: *p ^= static_cast<uint8_t>(1u << c.bit); break;
    case Mut::kNaN32: {
      const float v = std::nanf("");
      std::memcpy(p, &v, 4);
      break;
    }
    case Mut::kInf32: {
      const float v = INFINITY;
      std::memcpy(p, &v, 4);
      break;
    }
    case Mut::kNaN16: p[0] = 0x00; p[1] = 0x7E; break;
    case Mut::kInf16: p[0] = 0x00; p[1] = 0x7C; break;
    case Mut::kFarUnit: {
      const uint32_t v = 0x7FFFFFF0u;
      std::memcpy(p, &v, 4);
      break;
    }
  }
}

struct Params {
  int data_samples = 4;
  int spm_samples = 48;
  int header_bits = 8;
};

// Builds the case list of one file by walking its FlatBuffer.
class Planner {
 public:
  Planner(const std::vector<uint8_t>& bytes, const Params& p) : buf_(bytes.data()), size_(bytes.size()), p_(p) {}

  std::vector<Case> plan() {
    dense("file header (root offset, identifier)", 0, 8);
    std::string err;
    const fb::Model* m = format::verify_model(buf_, size_, &err);
    if (m == nullptr) {
      std::fprintf(stderr, "corruption_sweep: the input itself does not verify: %s\n", err.c_str());
      std::exit(2);
    }
    table("root table", m);
    table("config", m->config());
    if (m->config()->decoding()) table("config.decoding", m->config()->decoding());
    const auto* tensors = m->tensors();
    prefix("tensors vector", tensors);
    dense("tensors offsets", off(tensors->Data()), 4 * tensors->size());
    for (const fb::Tensor* t : *tensors) {
      const std::string name = "tensor " + t->name()->str();
      table(name, t);
      string(name + " name", t->name());
      prefix(name + " shape", t->shape());
      dense(name + " shape", off(t->shape()->Data()), 4 * t->shape()->size());
      prefix(name + " data", t->data());
      samples(name + " data", off(t->data()->Data()), t->data()->size(), p_.data_samples);
      const size_t elem = format::dtype_size(t->dtype());
      if (t->dtype() != fb::DType::I8 && elem && t->data()->size() >= elem)
        special(name + " data", off(t->data()->Data()), t->data()->size(), elem);
      if (t->scales()) {
        prefix(name + " scales", t->scales());
        samples(name + " scales", off(t->scales()->Data()), 4 * t->scales()->size(), p_.data_samples);
        if (t->scales()->size() > 0) special(name + " scales", off(t->scales()->Data()), 4 * t->scales()->size(), 4);
      }
    }
    spm("src_spm", m->src_spm());
    if (m->tgt_spm()) spm("tgt_spm", m->tgt_spm());
    if (const fb::Metadata* md = m->metadata()) {
      table("metadata", md);
      for (const auto* list : {md->metrics(), md->extra()}) {
        if (!list) continue;
        prefix("metadata list", list);
        int k = 0;
        for (const fb::KeyValue* kv : *list) {
          if (k++ >= 3) break;
          table("metadata entry", kv);
          string("metadata key", kv->key());
          if (kv->value()) prefix("metadata value", kv->value());
        }
      }
    }
    if (const fb::Shortlist* sl = m->shortlist()) {
      table("shortlist", sl);
      for (auto [name, v] : {std::pair{"shortlist offsets", sl->offsets()}, std::pair{"shortlist ids", sl->ids()},
                             std::pair{"shortlist frequent", sl->frequent()}}) {
        prefix(name, v);
        samples(name, off(v->Data()), 4 * v->size(), 16);
      }
    }
    if (const fb::Confidence* conf = m->confidence()) {  // small: every byte
      table("confidence", conf);
      prefix("confidence features", conf->features());
      dense("confidence features offsets", off(conf->features()->Data()), 4 * conf->features()->size());
      for (const flatbuffers::String* name : *conf->features()) string("confidence feature name", name);
      prefix("confidence weights", conf->weights());
      dense("confidence weights", off(conf->weights()->Data()), 4 * conf->weights()->size());
      if (conf->fitted_on()) prefix("confidence fitted_on", conf->fitted_on());
    }
    std::vector<Case> out;
    for (const auto& [offset, region] : dense_)
      for (int b = -1; b < p_.header_bits; ++b)
        out.push_back(Case{region, offset, b < 0 ? Mut::kXorFF : Mut::kBit, b < 0 ? 0 : b});
    for (const auto& [offset, region] : sampled_) {
      if (dense_.count(offset)) continue;
      out.push_back(Case{region, offset, Mut::kXorFF, 0});
      out.push_back(Case{region, offset, Mut::kBit, static_cast<int>((offset * 7 + 3) % 8)});
    }
    out.insert(out.end(), special_.begin(), special_.end());
    return out;
  }

  size_t dense_bytes() const { return dense_.size(); }

 private:
  size_t off(const void* p) const { return static_cast<size_t>(static_cast<const uint8_t*>(p) - buf_); }

  void dense(const std::string& region, size_t begin, size_t len) {
    for (size_t i = begin; i < begin + len && i < size_; ++i) dense_.emplace(i, region);
  }
  void table(const std::string& region, const void* t) {
    const auto* tbl = reinterpret_cast<const flatbuffers::Table*>(t);
    const uint8_t* vt = tbl->GetVTable();
    const uint16_t vt_size = flatbuffers::ReadScalar<uint16_t>(vt);
    const uint16_t tbl_size = flatbuffers::ReadScalar<uint16_t>(vt + 2);
    dense(region + " vtable", off(vt), vt_size);
    dense(region + " table", off(t), tbl_size);
  }
  void prefix(const std::string& region, const void* vec) { dense(region + " length", off(vec), 4); }
  void string(const std::string& region, const flatbuffers::String* s) {
    prefix(region, s);
    dense(region, off(s->data()), s->size());
  }
  void samples(const std::string& region, size_t begin, size_t len, int k) {
    if (len == 0 || k <= 0) return;
    std::set<size_t> at = {begin, begin + len - 1};
    for (int i = 1; i + 1 < k; ++i) at.insert(begin + (len - 1) * static_cast<size_t>(i) / static_cast<size_t>(k - 1));
    for (size_t a : at) sampled_.emplace(a, region);
  }
  void special(const std::string& region, size_t begin, size_t len, size_t elem) {
    const size_t n = len / elem;
    const size_t first = begin, middle = begin + (n / 2) * elem;
    special_.push_back(Case{region, first, elem == 4 ? Mut::kNaN32 : Mut::kNaN16, 0});
    special_.push_back(Case{region, middle, elem == 4 ? Mut::kInf32 : Mut::kInf16, 0});
  }
  void spm(const std::string& region, const flatbuffers::Vector<uint8_t>* v) {
    prefix(region, v);
    dense(region + " start", off(v->Data()), std::min<size_t>(16, v->size()));
    samples(region, off(v->Data()), v->size(), p_.spm_samples);
    // Its normaliser tables, which SentencePiece reads by offsets taken from
    // them: the size header densely, sampled bytes, and sampled units set far.
    const std::string_view proto(reinterpret_cast<const char*>(v->Data()), v->size());
    for (const auto& [begin, length] : internal::precompiled_charsmap_ranges(proto)) {
      const std::string table = region + " normaliser table";
      dense(table + " size header", off(v->Data()) + begin, 4);
      samples(table, off(v->Data()) + begin + 4, length - 4, p_.spm_samples);
      const size_t units = (length - 4) / 4;
      for (int i = 0; i < p_.spm_samples && units > 0; ++i)
        special_.push_back(Case{table + " unit", off(v->Data()) + begin + 4 + 4 * (units * i / p_.spm_samples),
                                Mut::kFarUnit, 0});
    }
  }

  const uint8_t* buf_;
  size_t size_;
  Params p_;
  std::map<size_t, std::string> dense_;
  std::map<size_t, std::string> sampled_;
  std::vector<Case> special_;
};

// How a case ended (a child writes it to the shared progress; a child that
// dies or hangs fails the case it was running).
enum Outcome { kRejected = 100, kPrepareError = 101, kTranslateError = 102, kTranslated = 103 };

int run_case(const std::vector<uint8_t>& bytes, bool verbose) {
  std::shared_ptr<const Model> model;
  Status st = Model::load_from_bytes(bytes.data(), bytes.size(), &model);
  if (verbose) std::fprintf(stderr, "load: %s\n", st.to_string().c_str());
  if (!st.ok()) return kRejected;
  std::unique_ptr<Translator> tr;
  st = Translator::prepare(model, {}, &tr);
  if (verbose) std::fprintf(stderr, "prepare: %s\n", st.to_string().c_str());
  if (!st.ok()) return kPrepareError;
  SearchOptions so;
  so.return_attention = true;
  TranslationResult r;
  // ASCII, then text the normaliser rewrites: full-width forms, a ligature,
  // circled and enclosed forms, a compatibility unit, combining marks, CJK, emoji.
  for (const char* text : {"This is a small test of the translation.",
                           "\xEF\xBC\xA1\xEF\xBC\xA2\xEF\xBC\xA3 \xEF\xAC\x81le \xE2\x91\xA0 \xE2\x92\xB6 "
                           "\xE3\x8E\x8F cafe\xCC\x81 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80"}) {
    st = tr->translate(text, so, &r);
    if (verbose) {
      std::fprintf(stderr, "translate: %s\n", st.to_string().c_str());
      if (st.ok() && !r.hypotheses.empty()) std::fprintf(stderr, "text: %s\n", r.hypotheses[0].text.c_str());
    }
    if (!st.ok()) break;
  }
  return st.ok() ? kTranslated : kTranslateError;
}

// The lines of a sanitizer report (or other stderr output) worth repeating.
std::string key_lines(const std::string& err) {
  std::string out;
  size_t pos = 0;
  int frames = 0, lines = 0;
  while (pos < err.size() && lines < 12) {
    size_t end = err.find('\n', pos);
    if (end == std::string::npos) end = err.size();
    const std::string line = err.substr(pos, end - pos);
    pos = end + 1;
    const bool frame = line.find("    #") == 0;
    if (line.find("ERROR:") != std::string::npos || line.find("SUMMARY:") != std::string::npos ||
        line.find("runtime error") != std::string::npos || line.find("terminate") != std::string::npos ||
        line.find("what()") != std::string::npos || (frame && frames < 6)) {
      if (frame) ++frames;
      out += "      " + line + "\n";
      ++lines;
    }
  }
  if (out.empty() && !err.empty()) out = "      " + err.substr(0, std::min<size_t>(err.size(), 400)) + "\n";
  return out;
}

struct Tally {
  std::map<int, long> outcomes;
  std::vector<std::string> failures;
};

// Progress of a child, in memory shared with the parent.
struct Progress {
  std::atomic<long> started{-1};  // the case being run (or last run)
  std::atomic<long> finished{0};  // cases [0, finished) of the batch are done
};

// Runs cases [begin, cases.size()) in forked children, up to `batch` per
// child (a fork of an ASan process costs milliseconds: one per case would
// dominate). A child that dies, or whose current case runs past timeout_s,
// marks that case failed (with its stderr's key lines); the next child
// resumes after it.
void run_batches(const std::vector<uint8_t>& original, const std::vector<Case>& cases, double timeout_s,
                 size_t batch, Tally* tally) {
  const size_t n = cases.size();
  void* mem = mmap(nullptr, sizeof(Progress) + n * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    std::exit(2);
  }
  Progress* progress = new (mem) Progress();
  int* outcome = reinterpret_cast<int*>(static_cast<char*>(mem) + sizeof(Progress));
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  size_t next = 0;
  while (next < n) {
    const size_t begin = next, end = std::min(n, begin + batch);
    progress->started = static_cast<long>(begin) - 1;
    progress->finished = static_cast<long>(begin);
    const int fd = memfd_create("corruption_batch", 0);
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      std::exit(2);
    }
    if (pid == 0) {
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      std::vector<uint8_t> bytes;
      for (size_t i = begin; i < end; ++i) {
        progress->started = static_cast<long>(i);
        bytes = original;
        apply(cases[i], &bytes);
        outcome[i] = run_case(bytes, false);
        progress->finished = static_cast<long>(i) + 1;
      }
      std::fflush(nullptr);
      _exit(0);
    }
    long watched = progress->started.load();
    auto since = std::chrono::steady_clock::now();
    int status = 0;
    bool timed_out = false;
    for (;;) {
      if (waitpid(pid, &status, WNOHANG) == pid) break;
      const long now_case = progress->started.load();
      if (now_case != watched) {
        watched = now_case;
        since = std::chrono::steady_clock::now();
      }
      const double left = timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
      if (left <= 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        timed_out = true;
        break;
      }
      const double wait_s = std::min(left, 0.05);
      timespec ts;
      ts.tv_sec = static_cast<time_t>(wait_s);
      ts.tv_nsec = static_cast<long>((wait_s - static_cast<double>(ts.tv_sec)) * 1e9);
      sigtimedwait(&chld, nullptr, &ts);
    }
    const size_t finished = static_cast<size_t>(progress->finished.load());
    for (size_t i = begin; i < finished; ++i) ++tally->outcomes[outcome[i]];
    const bool clean_exit = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (clean_exit && finished == end) {
      next = end;
    } else {
      // The case that was running when the child died or hung.
      const size_t bad = finished;
      std::string err;
      if (fd >= 0) {
        const off_t len = lseek(fd, 0, SEEK_END);
        err.resize(static_cast<size_t>(std::max<off_t>(len, 0)));
        if (len > 0) (void)!pread(fd, err.data(), err.size(), 0);
      }
      std::string why;
      if (timed_out)
        why = "hang: still running after " + std::to_string(static_cast<int>(timeout_s)) + " s";
      else if (WIFSIGNALED(status))
        why = std::string("killed by signal ") + strsignal(WTERMSIG(status));
      else
        why = "exit code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
      if (bad < n)
        tally->failures.push_back("  case " + std::to_string(bad) + ": " + describe(cases[bad]) + ": " + why + "\n" +
                                  key_lines(err));
      next = bad + 1;
    }
    if (fd >= 0) close(fd);
  }
  munmap(mem, sizeof(Progress) + n * sizeof(int));
}

std::vector<uint8_t> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "corruption_sweep: cannot read %s\n", path);
    std::exit(2);
  }
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  Params params;
  double timeout_s = 60;
  size_t batch = 256;
  bool list = false;
  long only = -1, write_index = -1;
  const char* write_path = nullptr;
  std::vector<const char*> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "corruption_sweep: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--data-samples") params.data_samples = std::atoi(next());
    else if (a == "--spm-samples") params.spm_samples = std::atoi(next());
    else if (a == "--header-bits") params.header_bits = std::clamp(std::atoi(next()), 0, 8);
    else if (a == "--case-timeout") timeout_s = std::atof(next());
    else if (a == "--batch") batch = std::max(1, std::atoi(next()));
    else if (a == "--list") list = true;
    else if (a == "--only") only = std::atol(next());
    else if (a == "--write") {
      write_index = std::atol(next());
      write_path = next();
    } else files.push_back(argv[i]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: corruption_sweep [--data-samples K] [--spm-samples K] [--header-bits B] "
                         "[--case-timeout S] [--list | --only N | --write N OUT] FILE...\n");
    return 2;
  }
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  int failed_files = 0;
  const auto all_start = std::chrono::steady_clock::now();
  for (const char* path : files) {
    const std::vector<uint8_t> original = read_file(path);
    Planner planner(original, params);
    const std::vector<Case> cases = planner.plan();
    if (list) {
      for (size_t i = 0; i < cases.size(); ++i) std::printf("%zu %s\n", i, describe(cases[i]).c_str());
      continue;
    }
    if (only >= 0 || write_index >= 0) {
      const long n = only >= 0 ? only : write_index;
      if (n >= static_cast<long>(cases.size())) {
        std::fprintf(stderr, "corruption_sweep: %s has %zu cases\n", path, cases.size());
        return 2;
      }
      std::vector<uint8_t> bytes = original;
      apply(cases[n], &bytes);
      std::fprintf(stderr, "case %ld: %s\n", n, describe(cases[n]).c_str());
      if (write_index >= 0) {
        std::ofstream out(write_path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return out ? 0 : 2;
      }
      const int code = run_case(bytes, true);
      return code >= kRejected && code <= kTranslated ? 0 : 1;
    }
    // The file itself must load, prepare and translate.
    if (run_case(original, false) != kTranslated) {
      std::fprintf(stderr, "corruption_sweep: %s does not load and translate as it is\n", path);
      run_case(original, true);
      return 2;
    }
    Tally tally;
    const auto start = std::chrono::steady_clock::now();
    run_batches(original, cases, timeout_s, batch, &tally);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %zu bytes, %zu dense bytes, %zu cases in %.1f s: %ld rejected at load, %ld refused by prepare, "
                "%ld translate errors, %ld translated, %zu FAILED\n",
                path, original.size(), planner.dense_bytes(), cases.size(), secs, tally.outcomes[kRejected],
                tally.outcomes[kPrepareError], tally.outcomes[kTranslateError], tally.outcomes[kTranslated],
                tally.failures.size());
    for (const std::string& f : tally.failures) std::printf("%s", f.c_str());
    std::fflush(stdout);
    if (!tally.failures.empty()) ++failed_files;
  }
  if (!list)
    std::printf("total %.1f s, %d file(s) with failures\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - all_start).count(), failed_files);
  return failed_files == 0 ? 0 : 1;
}
