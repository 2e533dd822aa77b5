// Bad files and bad inputs give an error Status with a message, never a crash.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include "golden_util.hpp"
#include "text/protect.hpp"
#include "shipped_model.hpp"
#include "core/utf8.hpp"
#include "text/split.hpp"

using namespace softalign;

namespace {

std::vector<uint8_t> read_file(const golden::fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

Status load_bytes(const std::vector<uint8_t>& b) {
  std::shared_ptr<const Model> m;
  return Model::load_from_bytes(b.data(), b.size(), &m);
}

std::shared_ptr<const Model> load_golden(const std::string& name, const char* precision = "f32") {
  std::shared_ptr<const Model> m;
  Status st = Model::load(golden::model_path(name, precision).string(), &m);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  return m;
}

}  // namespace

TEST_CASE("bad files") {
  const auto good = read_file(golden::model_path("bahdanau", "f32"));
  REQUIRE(good.size() > 1000);
  CHECK(load_bytes(good).ok());

  SUBCASE("missing, a directory, empty") {
    std::shared_ptr<const Model> m;
    Status st = Model::load("/nonexistent/model.softalign", &m);
    CHECK(st.code() == StatusCode::kNotFound);
    CHECK(st.message().find("/nonexistent/model.softalign") != std::string::npos);
    CHECK(Model::load(golden::source_dir().string(), &m).code() == StatusCode::kIoError);
    CHECK(load_bytes({}).code() == StatusCode::kInvalidModel);
    CHECK(m == nullptr);
  }
  SUBCASE("wrong identifier") {
    auto b = good;
    std::memcpy(&b[4], "XXXX", 4);
    Status st = load_bytes(b);
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("identifier") != std::string::npos);
  }
  SUBCASE("newer schema version") {
    // Rewrite field 0 of the root table (schema_version) through its vtable.
    auto b = good;
    uint32_t root;
    std::memcpy(&root, &b[0], 4);
    int32_t vt_back;
    std::memcpy(&vt_back, &b[root], 4);
    const std::size_t vtable = root - vt_back;
    uint16_t field0;
    std::memcpy(&field0, &b[vtable + 4], 2);
    REQUIRE(field0 != 0);
    const uint32_t v = 99;
    std::memcpy(&b[root + field0], &v, 4);
    Status st = load_bytes(b);
    CHECK(st.code() == StatusCode::kUnsupportedVersion);
    CHECK(st.message().find("newer converter") != std::string::npos);
  }
  SUBCASE("every truncation") {
    int failures = 0;
    for (std::size_t n = 0; n < good.size(); n += 1 + n / 16) {
      std::vector<uint8_t> b(good.begin(), good.begin() + n);
      Status st = load_bytes(b);
      CHECK_MESSAGE(!st.ok(), "truncated to ", n, " bytes loaded");
      CHECK(!st.message().empty());
      failures += st.ok() ? 0 : 1;
    }
    CHECK(failures > 10);
  }
  SUBCASE("corrupted bytes: an error or a working model, never a crash") {
    std::mt19937 rng(42);
    int rejected = 0, loaded = 0;
    for (int trial = 0; trial < 300; ++trial) {
      auto b = good;
      const std::size_t at = rng() % b.size();
      b[at] ^= static_cast<uint8_t>(1 + rng() % 255);
      std::shared_ptr<const Model> m;
      Status st = Model::load_from_bytes(b.data(), b.size(), &m);
      if (!st.ok()) {
        ++rejected;
        CHECK(!st.message().empty());
        continue;
      }
      ++loaded;  // damage in weights or text: the model still translates without crashing
      std::unique_ptr<Translator> tr;
      if (!Translator::prepare(m, {}, &tr).ok()) continue;
      const int32_t src[] = {5, 6, m->config().eos_id};
      NBestView nb;
      (void)tr->translate_ids(Span<const int32_t>(src, 3), &nb);
    }
    MESSAGE("corrupted files: ", rejected, " rejected, ", loaded, " loaded");
    CHECK(rejected > 0);
  }
  SUBCASE("misaligned memory") {
    std::vector<uint8_t> b(good.size() + 64);
    uint8_t* p = b.data();
    while (reinterpret_cast<uintptr_t>(p) % 32 != 1) ++p;
    std::memcpy(p, good.data(), good.size());
    std::shared_ptr<const Model> m;
    CHECK(Model::load_from_memory(p, good.size(), &m).code() == StatusCode::kInvalidArgument);
    CHECK(Model::load_from_bytes(p, good.size(), &m).ok());
  }
}

TEST_CASE("bad translator options") {
  auto m = load_golden("bahdanau");
  std::unique_ptr<Translator> tr;
  auto prepare = [&](auto edit) {
    TranslatorOptions o;
    edit(o);
    return Translator::prepare(m, o, &tr);
  };
  CHECK(prepare([](TranslatorOptions&) {}).ok());
  CHECK(prepare([&](TranslatorOptions& o) { o.max_source_tokens = ConfigLimits::kMaxSourceLength + 1; }).code() ==
        StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) { o.max_source_tokens = -1; }).code() == StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) { o.threads = 0; }).code() == StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) { o.search.beam_size = 0; }).code() == StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) {
          o.search.beam_size = 2;
          o.search.nbest = 3;
        }).code() == StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) { o.search.alpha = -1.0f; }).code() == StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) { o.search.beta = std::nanf(""); }).code() == StatusCode::kInvalidArgument);
  CHECK(prepare([](TranslatorOptions& o) { o.search.max_len_a = 1e9f; }).code() == StatusCode::kInvalidArgument);
  Status bad_set = prepare([](TranslatorOptions& o) { o.kernels = "no-such-isa"; });
  CHECK(bad_set.code() == StatusCode::kInvalidArgument);
  CHECK(bad_set.message().find("\"no-such-isa\" (options.kernels)") != std::string::npos);
  // A NUL is refused, not an end of the name ("\0bogus" gave the default set).
  CHECK(prepare([](TranslatorOptions& o) { o.kernels = std::string("\0bogus", 6); }).code() ==
        StatusCode::kInvalidArgument);
  CHECK(Translator::prepare(nullptr, {}, &tr).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("an unknown kernel set named by SOFTALIGN_KERNELS is named in the error") {
  auto m = load_golden("bahdanau");
  const char* old = std::getenv("SOFTALIGN_KERNELS");
  const std::string saved = old != nullptr ? old : "";
  setenv("SOFTALIGN_KERNELS", "bogus-set", 1);
  std::unique_ptr<Translator> tr;
  Status st = Translator::prepare(m, TranslatorOptions{}, &tr);
  if (old != nullptr)
    setenv("SOFTALIGN_KERNELS", saved.c_str(), 1);
  else
    unsetenv("SOFTALIGN_KERNELS");
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK(st.message().find("\"bogus-set\" (SOFTALIGN_KERNELS)") != std::string::npos);
}

TEST_CASE("bad inputs") {
  auto m = load_golden("luong_local_p");
  const ModelConfig& c = m->config();
  TranslatorOptions o;
  o.max_source_tokens = 16;
  o.search.beam_size = 2;
  o.long_input = LongInputPolicy::kError;  // the default splits
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(m, o, &tr).ok());
  NBestView nb;
  auto ids = [&](std::vector<int32_t> v, const SearchOptions& so = {}) {
    return tr->translate_ids(v, so, &nb).code();
  };
  CHECK(ids({5, c.eos_id}) == StatusCode::kOk);
  CHECK(ids({c.eos_id}) == StatusCode::kOk);  // the empty sentence: only EOS
  CHECK(ids({}) == StatusCode::kInvalidArgument);
  CHECK(ids({-1, c.eos_id}) == StatusCode::kInvalidArgument);
  CHECK(ids({c.src_vocab, c.eos_id}) == StatusCode::kInvalidArgument);
  CHECK(ids({5, 6}) == StatusCode::kInvalidArgument);  // no EOS
  CHECK(ids(std::vector<int32_t>(16, c.eos_id)) == StatusCode::kOk);
  CHECK(ids(std::vector<int32_t>(17, c.eos_id)) == StatusCode::kInputTooLong);
  SearchOptions wide;
  wide.beam_size = 3;
  CHECK(ids({5, c.eos_id}, wide) == StatusCode::kInvalidArgument);  // beyond the prepared beam
  SearchOptions longer;
  longer.max_len_b = 1000.0f;
  CHECK(ids({5, c.eos_id}, longer) == StatusCode::kInvalidArgument);  // beyond the prepared length
  SearchOptions nbest;
  nbest.beam_size = 1;
  nbest.nbest = 2;
  CHECK(ids({5, c.eos_id}, nbest) == StatusCode::kInvalidArgument);
  CHECK(tr->translate_ids(Span<const int32_t>(nullptr, 3), &nb).code() == StatusCode::kInvalidArgument);

  std::vector<float> logits(4 * c.tgt_vocab);
  const std::vector<int32_t> src = {5, c.eos_id};
  CHECK(tr->force_decode(src, std::vector<int32_t>{c.bos_id, 7}, logits.data(), nullptr).ok());
  CHECK(tr->force_decode(src, std::vector<int32_t>{c.bos_id, c.tgt_vocab}, logits.data(), nullptr).code() ==
        StatusCode::kInvalidArgument);
  CHECK(tr->force_decode(src, std::vector<int32_t>{c.bos_id}, nullptr, nullptr).code() ==
        StatusCode::kInvalidArgument);
  CHECK(tr->force_decode(src, std::vector<int32_t>(tr->max_target_tokens() + 1, 5), logits.data(), nullptr)
            .code() == StatusCode::kInvalidArgument);

  TranslationResult r;
  SUBCASE("empty text gives an empty translation") {
    for (const char* text : {"", "   ", "\n\t"}) {
      REQUIRE(tr->translate(text, &r).ok());
      REQUIRE(r.hypotheses.size() == 1);
      CHECK(r.hypotheses[0].text.empty());
      CHECK(r.hypotheses[0].ids.empty());
    }
  }
  SUBCASE("invalid UTF-8") {
    for (const char* text : {"abc \xff", "\xc0\xaf", "\xed\xa0\x80", "caf\xc3", "\xf4\x90\x80\x80"}) {
      INFO(text);
      Status st = tr->translate(text, &r);
      CHECK(st.code() == StatusCode::kInvalidUtf8);
      CHECK(st.message().find("UTF-8") != std::string::npos);
      std::vector<int32_t> v;
      CHECK(m->encode_source(text, &v).code() == StatusCode::kInvalidUtf8);
    }
    TranslatorOptions rep = o;
    rep.invalid_utf8 = InvalidUtf8Policy::kReplace;
    std::unique_ptr<Translator> tr2;
    REQUIRE(Translator::prepare(m, rep, &tr2).ok());
    CHECK(tr2->translate("abc \xff def", &r).ok());
    CHECK(r.hypotheses.size() >= 1);
  }
  SUBCASE("too long") {
    std::string huge;
    for (int i = 0; i < 40; ++i) huge += "the file system ";
    Status st = tr->translate(huge, &r);
    CHECK(st.code() == StatusCode::kInputTooLong);
    CHECK(st.message().find("max_source_tokens") != std::string::npos);
    std::string many;
    for (int i = 0; i < 40; ++i) many += "The file. ";
    CHECK(tr->translate(many, &r).code() == StatusCode::kInputTooLong);

    TranslatorOptions split = o;
    split.long_input = LongInputPolicy::kSplit;
    std::unique_ptr<Translator> tr2;
    REQUIRE(Translator::prepare(m, split, &tr2).ok());
    REQUIRE(tr2->translate(many, &r).ok());
    REQUIRE(r.hypotheses.size() == 1);
    TranslationResult one;
    REQUIRE(tr2->translate("The file.", &one).ok());
    CHECK(r.hypotheses[0].ids.size() == 40 * one.hypotheses[0].ids.size());
    // No sentence boundary: split in halves at spaces until the parts fit.
    REQUIRE(tr2->translate(huge, &r).ok());
    CHECK(!r.hypotheses.at(0).text.empty());
    // Clause punctuation comes before halves; one unbroken token is cut between characters.
    std::string clauses, word;
    for (int i = 0; i < 30; ++i) clauses += "the file system, ";
    for (int i = 0; i < 20; ++i) word += "filesystem";
    for (const std::string& text : {clauses, word}) {
      std::vector<int32_t> text_ids;
      REQUIRE(m->encode_source(text, &text_ids).ok());
      INFO(text_ids.size(), " source ids");
      REQUIRE(tr2->translate(text, &r).ok());
      CHECK(r.hypotheses.size() == 1);
    }
    std::vector<TranslationResult> batch;
    st = tr->translate_batch({"the file", huge}, &batch);
    CHECK(st.code() == StatusCode::kInputTooLong);
    CHECK(st.message().find("sentence 1") != std::string::npos);
  }
}

TEST_CASE("long inputs split at sentence ends, then clauses, then halves") {
  using internal::split_clauses;
  using internal::split_halves;
  CHECK(split_clauses("a, b; c: d,e") == std::vector<std::string>{"a,", "b;", "c:", "d,e"});
  CHECK(split_halves("one two three four") == std::vector<std::string>{"one two", "three four"});
  CHECK(split_halves("abcd") == std::vector<std::string>{"ab", "cd"});
  // Never inside a UTF-8 character; one character cannot be split.
  CHECK(split_halves("\xc3\xa9\xc3\xa9\xc3\xa9") == std::vector<std::string>{"\xc3\xa9", "\xc3\xa9\xc3\xa9"});
  CHECK(split_halves("\xc3\xa9") == std::vector<std::string>{"\xc3\xa9"});
  // Never inside a protected span (code in backquotes here), except halves of
  // a text that has nowhere else to cut.
  using internal::find_protected_spans;
  using internal::split_sentences;
  const std::string code = "Run `make clean, all. Then test` first, then install. Done.";
  CHECK(split_sentences(code, find_protected_spans(code)) ==
        std::vector<std::string>{"Run `make clean, all. Then test` first, then install.", "Done."});
  CHECK(split_sentences(code) ==
        std::vector<std::string>{"Run `make clean, all.", "Then test` first, then install.", "Done."});
  CHECK(split_clauses(code, find_protected_spans(code)) ==
        std::vector<std::string>{"Run `make clean, all. Then test` first,", "then install. Done."});
  const std::string two = "`a b c d` e";
  CHECK(split_halves(two, find_protected_spans(two)) == std::vector<std::string>{"`a b c d`", "e"});
  const std::string all_code = "`a b c d e f`";
  CHECK(split_halves(all_code, find_protected_spans(all_code)).size() == 2);
  // The planning limit: a longer max_source_tokens than the model's S_max
  // where no weight depends on it; location-score models keep theirs.
  auto m = load_golden("bahdanau");
  TranslatorOptions o;
  o.max_source_tokens = 512;
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(m, o, &tr).ok());
  CHECK(tr->max_source_tokens() == 512);
  o.max_source_tokens = 1025;
  CHECK(Translator::prepare(m, o, &tr).code() == StatusCode::kInvalidArgument);
  auto loc = load_golden("luong_location");
  o.max_source_tokens = loc->config().max_src_len + 1;
  CHECK(Translator::prepare(loc, o, &tr).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("escape_controls writes every character that moves or reorders a terminal's text as an escape") {
  // The public softalign::escape_controls (softalign/text.hpp).
  // C0 controls and DEL.
  CHECK(escape_controls("a\nb\tc\rd\x1b[31m\x7f") == "a\\nb\\tc\\rd\\x1b[31m\\x7f");
  // C1 controls (U+0080..U+009F, UTF-8 C2 80..C2 9F): U+0085 is a line break, U+009B a CSI.
  CHECK(escape_controls("a\xc2\x85" "b\xc2\x9b" "31m\xc2\x80\xc2\x9f") == "a\\u0085b\\u009b31m\\u0080\\u009f");
  // Bidirectional marks, embeddings, overrides and isolates; line and paragraph separators.
  CHECK(escape_controls("x\xe2\x80\xae" "cod\xe2\x81\xa6" "y\xe2\x81\xa9\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c") ==
        "x\\u202ecod\\u2066y\\u2069\\u200e\\u200f\\u061c");
  CHECK(escape_controls("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x81\xa7\xe2\x81\xa8") ==
        "\\u202a\\u202b\\u202c\\u202d\\u2067\\u2068");
  CHECK(escape_controls("1\xe2\x80\xa8" "2\xe2\x80\xa9" "3") == "1\\u20282\\u20293");
  // A byte that is not UTF-8 is written as its value (a lone 0x9b is a CSI to an 8-bit terminal).
  CHECK(escape_controls("a\x9b" "b\xff\xc2") == "a\\x9bb\\xff\\xc2");
  // Other text, ASCII or not, is unchanged; its neighbours of the escaped ranges too.
  CHECK(escape_controls("caf\xc3\xa9 \xe2\x98\x83 \xc2\xa0 \xe2\x80\x8d \xe2\x80\xaf \xe2\x81\xaa \xf0\x9f\x98\x80 \\x") ==
        "caf\xc3\xa9 \xe2\x98\x83 \xc2\xa0 \xe2\x80\x8d \xe2\x80\xaf \xe2\x81\xaa \xf0\x9f\x98\x80 \\x");
}

TEST_CASE("a target prefix with characters the target vocabulary lacks is refused, naming them") {
  // Each would be <unk>, which copy-through replaces with a source word: the
  // translation would not begin with the prefix as typed.
  const auto model = golden::shipped_en_fr();
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, TranslatorOptions{}, &tr).ok());
  TranslationResult r;
  SearchOptions so;
  so.target_prefix = "Un \xe2\x98\x83 et \xe2\x99\x9e \xe2\x98\x83";  // U+2603 SNOWMAN, U+265E BLACK CHESS KNIGHT
  Status st = tr->translate("A snowman and a knight.", so, &r);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK_MESSAGE(st.message() == "target prefix: the target vocabulary lacks \"\xe2\x98\x83\", \"\xe2\x99\x9e\"",
                st.message());
  // In a batch too.
  so.target_prefix = "Un \xe2\x99\x9e";
  std::vector<TranslationResult> rs;
  st = tr->translate_batch({"A snowman.", "Open file"}, so, &rs);
  CHECK(st.code() == StatusCode::kInvalidArgument);
  CHECK_MESSAGE(st.message() == "target prefix: the target vocabulary lacks \"\xe2\x99\x9e\"", st.message());
  // A NUL is not text (the one rule for bad text): invalid_utf8, in a prefix as in a source.
  so.target_prefix = std::string("Un\0", 3);
  st = tr->translate_batch({"A snowman.", "Open file"}, so, &rs);
  CHECK(st.code() == StatusCode::kInvalidUtf8);
  // A prefix the vocabulary covers begins the translation.
  so.target_prefix = "Un bonhomme";
  REQUIRE(tr->translate("A snowman.", so, &r).ok());
  CHECK_MESSAGE(r.hypotheses[0].text.rfind("Un bonhomme", 0) == 0, r.hypotheses[0].text);
}

TEST_CASE("one rule for bad text: NUL, an encoded surrogate and invalid bytes are invalid_utf8, or one U+FFFD each") {
  using internal::find_invalid_utf8;
  using internal::replace_invalid_utf8;
  const std::string fffd = "\xEF\xBF\xBD";
  // The check every path uses (translate, encode, prefixes, glossary terms):
  // a NUL is not text, wherever it is.
  CHECK(find_invalid_utf8(std::string("ab\0cd", 5)) == 2);
  CHECK(find_invalid_utf8(std::string("\0", 1)) == 0);
  CHECK(find_invalid_utf8("caf\xC3\xA9 \xF0\x9F\x98\x80") == std::string_view::npos);
  // The replacement: one U+FFFD for each NUL, each encoded surrogate (ED A0..BF
  // 80..BF: a lone surrogate of a Python, Java or JS string), each C0 80 (NUL
  // in modified UTF-8, as the Java and JS bindings pass it through C strings)
  // and each other invalid byte.
  CHECK(replace_invalid_utf8(std::string("a\0b", 3)) == "a" + fffd + "b");
  CHECK(replace_invalid_utf8("a\xED\xB2\x80" "b") == "a" + fffd + "b");
  CHECK(replace_invalid_utf8("a\xED\xA0\xBD\xED\xB8\x80" "b") == "a" + fffd + fffd + "b");  // CESU-8 pair: two
  CHECK(replace_invalid_utf8("a\xC0\x80" "b") == "a" + fffd + "b");
  CHECK(replace_invalid_utf8("a\xFF\xFE" "b") == "a" + fffd + fffd + "b");
  CHECK(replace_invalid_utf8("a\xED" "b") == "a" + fffd + "b");            // a cut sequence: its bytes
  CHECK(replace_invalid_utf8("a\xC0\xAF" "b") == "a" + fffd + fffd + "b");  // another overlong: its bytes

  const auto model = golden::shipped_en_fr();
  std::unique_ptr<Translator> strict, lenient;
  REQUIRE(Translator::prepare(model, TranslatorOptions{}, &strict).ok());
  TranslatorOptions rep;
  rep.invalid_utf8 = InvalidUtf8Policy::kReplace;
  REQUIRE(Translator::prepare(model, rep, &lenient).ok());
  TranslationResult r, want;
  const std::vector<std::string> bad = {std::string("Open\0 file", 10), "Open\xED\xB2\x80 file",
                                        "Open\xC0\x80 file", "Open\xFF file"};
  REQUIRE(lenient->translate("Open" + fffd + " file", &want).ok());
  for (const std::string& text : bad) {
    INFO(escape_controls(text));
    Status st = strict->translate(text, &r);
    CHECK(st.code() == StatusCode::kInvalidUtf8);
    CHECK_MESSAGE(st.message().find("at byte 4") != std::string::npos, st.message());
    std::vector<int32_t> ids;
    CHECK(model->encode_source(text, &ids).code() == StatusCode::kInvalidUtf8);
    // In a batch it fails alone.
    std::vector<TranslationResult> rs;
    std::vector<Status> sts;
    REQUIRE(strict->translate_batch({"One file.", text, "Open file"}, SearchOptions{}, &rs, &sts).ok());
    CHECK(sts[0].ok());
    CHECK(sts[1].code() == StatusCode::kInvalidUtf8);
    CHECK(sts[2].ok());
    // Replaced: the text with one U+FFFD in its place.
    REQUIRE(lenient->translate(text, &r).ok());
    CHECK(r.source_pieces == want.source_pieces);
    CHECK(r.hypotheses[0].text == want.hypotheses[0].text);
  }
  // A target prefix is text too.
  SearchOptions so;
  so.target_prefix = std::string("Ouvrir\0", 7);
  CHECK(strict->translate("Open file", so, &r).code() == StatusCode::kInvalidUtf8);
  so.target_prefix = "Ouvrir\xED\xB2\x80";
  CHECK(lenient->translate("Open file", so, &r).code() == StatusCode::kInvalidUtf8);
}
