// Long and hostile text: tokenisation in bounded chunks (time linear in the
// input, the pieces of ordinary text unchanged), the max_line_bytes bound, and
// protected spans too long for the model (a long URL) put back whole.
#include <doctest/doctest.h>

#include <sentencepiece_processor.h>

#include "shipped_model.hpp"
#include "softalign/softalign.hpp"
#include "text/tokenize.hpp"

using namespace softalign;

namespace {

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// A URL of about `n` bytes, all of it protected (no space, no final punctuation).
std::string long_url(std::size_t n) {
  std::string url = "https://downloads.example.org/releases/stable/linux/x86_64/softalign-tools-0.9.13.tar.gz?a=b&c=d";
  for (int i = 0; url.size() < n; ++i) url += "&k" + std::to_string(i) + "=v" + std::to_string(i * 7919 % 1000);
  return url;
}

}  // namespace

TEST_CASE("chunks are bounded, end at character boundaries, and cover the text") {
  const std::string texts[] = {
      repeat("The library is used by many programs. ", 300), repeat("\xF0\x9F\x98\x80", 5000),     // emoji
      repeat("\xE4\xB8\xAD\xE6\x96\x87", 3000),                                                  // CJK
      repeat("e\xCC\x81", 4000),                                                                 // combining marks
      repeat("\xEF\xBC\xA1\xEF\xAC\x81\xE2\x91\xA0\xE3\x8E\x8F", 1000),                         // Ａ ﬁ ① ㎏
      repeat("a,", 3000), repeat("x", 10000)};
  for (const std::string& t : texts) {
    std::size_t begin = 0, chunks = 0;
    while (begin < t.size()) {
      const std::size_t end = internal::chunk_end(t, begin);
      REQUIRE(end > begin);
      CHECK(end - begin <= internal::kTokenizeChunkBytes);
      CHECK((end == t.size() || (static_cast<unsigned char>(t[end]) & 0xC0) != 0x80));
      begin = end;
      ++chunks;
    }
    CHECK(chunks >= t.size() / internal::kTokenizeChunkBytes);
  }
}

TEST_CASE("text with spaces tokenises in chunks exactly as SentencePiece does on the whole") {
  const auto model = golden::shipped_en_fr();
  sentencepiece::SentencePieceProcessor whole;
  const auto spm = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "spm.model";
  REQUIRE(whole.Load(spm.string()).ok());
  const std::string base =
      "This package contains the development files for the library.  A simple text editor for the GNOME "
      "desktop; it reads UTF-8 (and ISO-8859-1) files: see http://example.org/a?b=c. Caf\xC3\xA9, na\xC3\xAFve, "
      "\xEF\xBC\xA1\xEF\xBC\xA2 \xEF\xAC\x81le \xE2\x91\xA0 \xE4\xB8\xAD\xE6\x96\x87 \xF0\x9F\x98\x80 e\xCC\x81t\xC3\xA9\t";
  for (const std::size_t n : {1, 7, 40, 200}) {
    const std::string text = repeat(base, n);
    std::vector<int> expected;
    REQUIRE(whole.Encode(text, &expected).ok());
    std::vector<int32_t> ids;
    REQUIRE(model->encode_source(text, &ids).ok());
    REQUIRE(!ids.empty());
    ids.pop_back();  // the EOS
    CHECK(std::vector<int>(ids.begin(), ids.end()) == expected);
  }
}

TEST_CASE("a line over max_line_bytes is refused with kInputTooLong, alone and in a batch") {
  const auto model = golden::shipped_en_fr();
  TranslatorOptions opt;
  opt.max_line_bytes = 64;
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, opt, &tr).ok());
  TranslationResult r;
  CHECK(tr->translate(std::string(64, 'a'), &r).ok());
  const Status st = tr->translate(std::string(65, 'a'), &r);
  CHECK(st.code() == StatusCode::kInputTooLong);
  CHECK(st.message().find("max_line_bytes") != std::string::npos);
  std::vector<TranslationResult> rs;
  const Status bst = tr->translate_batch({"Open file", std::string(100, 'b')}, &rs);
  CHECK(bst.code() == StatusCode::kInputTooLong);
  CHECK(bst.message().find("sentence 1") != std::string::npos);
  CHECK(TranslatorOptions().max_line_bytes == std::size_t{1} << 20);
  // With per-sentence statuses the other sentences are translated.
  std::vector<Status> status;
  REQUIRE(tr->translate_batch({"Open file", std::string(100, 'b'), "Save"}, {}, &rs, &status).ok());
  REQUIRE(rs.size() == 3);
  REQUIRE(status.size() == 3);
  CHECK(status[0].ok());
  CHECK(status[1].code() == StatusCode::kInputTooLong);
  CHECK(status[2].ok());
  CHECK(!rs[0].hypotheses.at(0).text.empty());
  CHECK(rs[1].hypotheses.empty());
  CHECK(!rs[2].hypotheses.at(0).text.empty());
  // An error of the call itself is returned, not spread over the sentences.
  SearchOptions too_wide;
  too_wide.beam_size = 1000;
  CHECK(tr->translate_batch({"Open file"}, too_wide, &rs, &status).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("a protected span longer than the model can take is put back whole") {
  const auto model = golden::shipped_en_fr();
  std::unique_ptr<Translator> tr;
  REQUIRE(Translator::prepare(model, {}, &tr).ok());
  for (const std::size_t n : {240, 500, 2000}) {
    const std::string url = long_url(n);
    std::vector<int32_t> ids;
    REQUIRE(model->encode_source(url, &ids).ok());
    REQUIRE(ids.size() > static_cast<std::size_t>(tr->max_source_tokens()));  // too long in pieces
    for (const std::string& text : {"Download the archive from " + url + " and unpack it.", url}) {
      TranslationResult r;
      REQUIRE(tr->translate(text, &r).ok());
      const std::string& out = r.hypotheses.at(0).text;
      CHECK_MESSAGE(out.find(url) != std::string::npos, out);
      CHECK(r.source_ids.size() <= static_cast<std::size_t>(tr->max_source_tokens()));
    }
  }
}
