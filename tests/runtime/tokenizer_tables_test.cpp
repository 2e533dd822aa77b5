// The embedded SentencePiece models of the shipped en→fr file, damaged where
// SentencePiece trusts them: its normaliser table (precompiled_charsmap: a
// darts-clone double array and a block of NUL-terminated strings) and its
// piece strings. Before the load-time checks (embedded_spm.cpp), a damaged
// leaf crashed the translation of "Ａ" and a larger size header printed heap
// bytes into it; each must now be refused at load as kInvalidModel.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>

#include "model/embedded_spm.hpp"
#include "golden_util.hpp"
#include "softalign/softalign.hpp"
#include "softalign_format.h"

using namespace softalign;

namespace {

std::vector<uint8_t> shipped_bytes() {
  const auto path = golden::source_dir() / ".." / ".." / "models" / "en-fr" / "en-fr.int8.softalign";
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), path.string());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

uint32_t get_u32(const std::vector<uint8_t>& b, std::size_t at) {
  uint32_t v;
  std::memcpy(&v, &b[at], 4);
  return v;
}
void put_u32(std::vector<uint8_t>& b, std::size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

// The source SentencePiece model's normaliser table inside the file: where
// it starts and how long it is.
std::pair<std::size_t, std::size_t> charsmap_in_file(const std::vector<uint8_t>& file) {
  std::string err;
  const fb::Model* m = format::verify_model(file.data(), file.size(), &err);
  REQUIRE_MESSAGE(m != nullptr, err);
  const auto* spm = m->src_spm();
  const std::string_view proto(reinterpret_cast<const char*>(spm->data()), spm->size());
  const auto ranges = internal::precompiled_charsmap_ranges(proto);
  REQUIRE(ranges.size() == 1);  // the normaliser's; no denormaliser
  return {static_cast<std::size_t>(spm->data() - file.data()) + ranges[0].first, ranges[0].second};
}

// The file offset of the leaf (value) unit that SentencePiece's lookup of
// `key` reads, walking the double array as darts-clone's commonPrefixSearch.
std::size_t leaf_unit_of(const std::vector<uint8_t>& file, std::size_t table, const std::string& key) {
  const std::size_t units = table + 4;
  auto unit = [&](std::size_t i) { return get_u32(file, units + 4 * i); };
  auto offset = [](uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); };
  std::size_t pos = offset(unit(0));
  uint32_t u = 0;
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    pos ^= c;
    u = unit(pos);
    REQUIRE((u & ((1U << 31) | 0xff)) == c);  // the key is in the table
    pos ^= offset(u);
  }
  REQUIRE(((u >> 8) & 1) == 1);  // the key has a replacement: its leaf is at pos
  return units + 4 * pos;
}

Status load(const std::vector<uint8_t>& file, std::shared_ptr<const Model>* m) {
  return Model::load_from_bytes(file.data(), file.size(), m);
}

}  // namespace

TEST_CASE("the shipped file's normaliser table passes the checks and normalises full-width forms") {
  const auto file = shipped_bytes();
  std::shared_ptr<const Model> m;
  REQUIRE(load(file, &m).ok());
  std::vector<int32_t> ids;
  std::vector<std::string> pieces;
  REQUIRE(m->encode_source("\xEF\xBC\xA1", &ids, &pieces).ok());  // "Ａ" (U+FF21) becomes "A"
  REQUIRE(!pieces.empty());
  CHECK(pieces[0].find('A') != std::string::npos);
}

TEST_CASE("a damaged normaliser table is refused at load") {
  const auto file = shipped_bytes();
  const auto [table, size] = charsmap_in_file(file);
  REQUIRE(size > 1024);

  SUBCASE("the leaf unit that the lookup of U+FF21 reads points far outside the strings") {
    auto bad = file;
    put_u32(bad, leaf_unit_of(file, table, "\xEF\xBC\xA1"), 0x7FFFFFF0u);
    std::shared_ptr<const Model> m;
    const Status st = load(bad, &m);
    CHECK(st.code() == StatusCode::kInvalidModel);
    CHECK(st.message().find("normaliser table") != std::string::npos);
  }
  SUBCASE("the size header is larger than the table") {
    for (const uint32_t delta : {4u, 4096u, 0x40000000u}) {
      auto bad = file;
      put_u32(bad, table, get_u32(file, table) + delta);
      std::shared_ptr<const Model> m;
      CHECK(load(bad, &m).code() == StatusCode::kInvalidModel);
    }
  }
  SUBCASE("a transition leads outside the array") {
    auto bad = file;
    put_u32(bad, table + 4, 0xFFFFFC00u);  // the root's offset: far past the end
    std::shared_ptr<const Model> m;
    CHECK(load(bad, &m).code() == StatusCode::kInvalidModel);
  }
  SUBCASE("the last string is not NUL-terminated") {
    auto bad = file;
    REQUIRE(bad[table + size - 1] == 0);
    bad[table + size - 1] = 'x';
    std::shared_ptr<const Model> m;
    CHECK(load(bad, &m).code() == StatusCode::kInvalidModel);
  }
  SUBCASE("a string that is not UTF-8") {
    auto bad = file;
    const std::size_t leaf = leaf_unit_of(file, table, "\xEF\xBC\xA1");
    const uint32_t value = get_u32(file, leaf) & 0x7FFFFFFFu;
    const std::size_t strings = table + 4 + get_u32(file, table);
    bad[strings + value] = static_cast<uint8_t>(0xFF);
    std::shared_ptr<const Model> m;
    CHECK(load(bad, &m).code() == StatusCode::kInvalidModel);
  }
  SUBCASE("every unit of the table, damaged in turn, loads and translates or is refused") {
    // One unit in 97 (all kinds: nodes, leaves, unused), set to the value
    // that crashed, or with its label's low bit or its has-leaf bit flipped:
    // a load either refuses it or tokenises non-ASCII text.
    const std::size_t units = get_u32(file, table) / 4;
    int refused = 0, translated = 0;
    for (std::size_t i = 0, k = 0; i < units; i += 97, ++k) {
      auto bad = file;
      const std::size_t at = table + 4 + 4 * i;
      put_u32(bad, at, k % 3 == 0 ? 0x7FFFFFF0u : get_u32(file, at) ^ (k % 3 == 1 ? 0x1u : 0x100u));
      std::shared_ptr<const Model> m;
      if (!load(bad, &m).ok()) {
        ++refused;
        continue;
      }
      std::vector<int32_t> ids;
      CHECK(m->encode_source("\xEF\xBC\xA1\xEF\xBC\xA2 \xEF\xAC\x81 \xE2\x91\xA0 caf\x65\xCC\x81 \xE4\xB8\xAD",
                             &ids).ok());
      ++translated;
    }
    MESSAGE(refused << " damaged units refused, " << translated << " harmless");
    CHECK(refused > 0);
    CHECK(translated > 0);
  }
}

TEST_CASE("a vocabulary piece that is not valid UTF-8 is refused at load") {
  auto file = shipped_bytes();
  std::string err;
  const fb::Model* m = format::verify_model(file.data(), file.size(), &err);
  REQUIRE(m != nullptr);
  const std::size_t spm = static_cast<std::size_t>(m->src_spm()->data() - file.data());
  // ModelProto field 1 (pieces) { field 1 (piece) "…" }: the first piece's first byte.
  REQUIRE(file[spm] == 0x0a);
  std::size_t i = spm + 1;
  while (file[i] & 0x80) ++i;  // the length varint
  ++i;
  REQUIRE(file[i] == 0x0a);
  std::size_t piece = i + 2;
  REQUIRE(file[i + 1] > 0);
  file[piece] = static_cast<uint8_t>(0xFF);
  std::shared_ptr<const Model> model;
  const Status st = load(file, &model);
  CHECK(st.code() == StatusCode::kInvalidModel);
  CHECK(st.message().find("not valid UTF-8") != std::string::npos);
}
