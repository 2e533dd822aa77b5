#include "model/embedded_spm.hpp"

#include <sentencepiece_processor.h>

#include <cstdint>
#include <exception>
#include <new>

#include "core/utf8.hpp"

namespace softalign::internal {

namespace {

// One field of a protobuf message in wire format (no schema needed).
struct ProtoField {
  uint32_t number = 0;
  int wire_type = 0;
  std::string_view bytes;  // wire type 2 (length-delimited) only
};

// Reads the fields of a message one by one; false at the end or on damage
// (then `error` says what).
class ProtoReader {
 public:
  explicit ProtoReader(std::string_view message) : rest_(message) {}

  bool next(ProtoField* f) {
    if (rest_.empty() || !error.empty()) return false;
    uint64_t key = 0;
    if (!varint(&key)) return fail("a field key runs past the end");
    f->number = static_cast<uint32_t>(key >> 3);
    f->wire_type = static_cast<int>(key & 7);
    uint64_t len = 0;
    switch (f->wire_type) {
      case 0:
        if (!varint(&len)) return fail("a varint runs past the end");
        return true;
      case 1: len = 8; break;
      case 5: len = 4; break;
      case 2:
        if (!varint(&len)) return fail("a length runs past the end");
        break;
      default: return fail("wire type " + std::to_string(f->wire_type) + " (groups are not used by SentencePiece)");
    }
    if (len > rest_.size()) return fail("a field runs past the end");
    f->bytes = rest_.substr(0, static_cast<std::size_t>(len));
    rest_.remove_prefix(static_cast<std::size_t>(len));
    return true;
  }

  std::string error;

 private:
  bool varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && !rest_.empty(); shift += 7) {
      const auto b = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool fail(const std::string& what) {
    error = what;
    return false;
  }

  std::string_view rest_;
};

uint32_t load_u32le(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 | static_cast<uint32_t>(b[2]) << 16 |
         static_cast<uint32_t>(b[3]) << 24;
}

// darts-clone's DoubleArrayUnit, as its commonPrefixSearch reads it.
bool unit_has_leaf(uint32_t u) { return ((u >> 8) & 1) == 1; }
uint32_t unit_value(uint32_t u) { return u & ((1U << 31) - 1); }
uint32_t unit_offset(uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); }

}  // namespace

std::string check_precompiled_charsmap(std::string_view blob) {
  if (blob.size() < 4) return "the table is shorter than its size header";
  const uint32_t trie_bytes = load_u32le(blob.data());
  // SentencePiece only checks trie_bytes < blob.size(), which lets the trie
  // and the string block run past the table.
  if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4)
    return "its trie size " + std::to_string(trie_bytes) + " does not fit the table's " +
           std::to_string(blob.size()) + " bytes";
  const char* trie = blob.data() + 4;
  const std::size_t units = trie_bytes / 4;
  const std::string_view strings = blob.substr(4 + static_cast<std::size_t>(trie_bytes));
  // Every unit a lookup can read: the root (array[0]), then for a unit whose
  // label matched a byte, the 256 units of the block its offset leads to
  // (node ^ byte) and, when it has a leaf, the value unit there. Checking
  // every unit that can match a byte (bit 31 clear; value units have it set
  // and never match) covers every path whatever the input, without a walk.
  for (std::size_t q = 0; q < units; ++q) {
    const uint32_t u = load_u32le(trie + 4 * q);
    if (q != 0 && (u >> 31) != 0) continue;
    const std::size_t next = q ^ unit_offset(u);
    if ((next | 0xff) >= units)
      return "trie unit " + std::to_string(q) + " leads outside the array of " + std::to_string(units) + " units";
    if (!unit_has_leaf(u)) continue;
    const uint32_t value = unit_value(load_u32le(trie + 4 * next));
    if (value >= strings.size())
      return "trie unit " + std::to_string(next) + " points outside the string block (" + std::to_string(value) +
             " >= " + std::to_string(strings.size()) + ")";
    const std::size_t nul = strings.find('\0', value);
    if (nul == std::string_view::npos)
      return "the string at " + std::to_string(value) + " is not NUL-terminated inside the table";
    if (find_invalid_utf8(strings.substr(value, nul - value)) != std::string_view::npos)
      return "the string at " + std::to_string(value) + " is not valid UTF-8";
  }
  return {};
}

namespace {

// Calls `visit(which, charsmap)` for every precompiled_charsmap (ModelProto: 3
// normalizer_spec, 5 denormalizer_spec; NormalizerSpec: 2
// precompiled_charsmap). Protobuf merges repeated occurrences (the last
// charsmap wins), so every occurrence is visited. Empty, or what does not parse.
template <typename Visit>
std::string for_each_charsmap(std::string_view model_proto, Visit visit) {
  ProtoReader model(model_proto);
  ProtoField f;
  while (model.next(&f)) {
    if (f.wire_type != 2 || (f.number != 3 && f.number != 5)) continue;
    const char* which = f.number == 3 ? "normaliser" : "denormaliser";
    ProtoReader spec(f.bytes);
    ProtoField g;
    while (spec.next(&g))
      if (g.number == 2 && g.wire_type == 2 && !g.bytes.empty()) {
        const std::string err = visit(which, g.bytes);
        if (!err.empty()) return err;
      }
    if (!spec.error.empty()) return std::string("the ") + which + " spec is damaged: " + spec.error;
  }
  if (!model.error.empty()) return "the model proto is damaged: " + model.error;
  return {};
}

}  // namespace

std::string check_spm_normalizers(std::string_view model_proto) {
  return for_each_charsmap(model_proto, [](const char* which, std::string_view blob) -> std::string {
    const std::string err = check_precompiled_charsmap(blob);
    return err.empty() ? err : std::string("the ") + which + " table (precompiled_charsmap) is damaged: " + err;
  });
}

std::vector<std::pair<std::size_t, std::size_t>> precompiled_charsmap_ranges(std::string_view model_proto) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::string err = for_each_charsmap(model_proto, [&](const char*, std::string_view blob) {
    out.emplace_back(static_cast<std::size_t>(blob.data() - model_proto.data()), blob.size());
    return std::string();
  });
  if (!err.empty()) out.clear();
  return out;
}

Status load_embedded_spm(std::string_view model_proto, const char* side,
                         std::unique_ptr<sentencepiece::SentencePieceProcessor>* out) {
  const std::string what = std::string("embedded ") + side + " SentencePiece model: ";
  auto invalid = [&](const std::string& msg) { return Status(StatusCode::kInvalidModel, what + msg); };
  // Before SentencePiece reads them: it trusts its normaliser tables.
  const std::string table_error = check_spm_normalizers(model_proto);
  if (!table_error.empty()) return invalid(table_error);
  // SentencePiece reports most damage as a status, but some (piece strings
  // that break its trie builder, darts_clone) as an exception: both are a bad file.
  try {
    auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto st = sp->LoadFromSerializedProto(model_proto);
    if (!st.ok()) return invalid(st.ToString());
    // Every piece reaches text (results, Python str): it must be UTF-8.
    for (int id = 0; id < sp->GetPieceSize(); ++id)
      if (find_invalid_utf8(sp->IdToPiece(id)) != std::string_view::npos)
        return invalid("piece " + std::to_string(id) + " is not valid UTF-8");
    *out = std::move(sp);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    return invalid(e.what());
  }
}

}  // namespace softalign::internal
