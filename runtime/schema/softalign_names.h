// softalign_names.h — the one table of each named choice of a model: variant,
// score, scope, cell, decoder init and beam rules
// (header-only).
//
// Each row is one value: the public enum's (softalign/config.hpp), its name in
// the weights format (models/WEIGHTS_FORMAT.md: the config JSON, `info`,
// messages) and the file's (softalign.fbs). Every conversion between the
// three goes through these tables: the runtime's names (variant_name, ...)
// and its reading of a file, the format's verifier, the converter's reading
// of the config JSON, its file writer and its tensor list. A new score is one
// row here, its value in softalign.fbs and its math.
//
//   Score s;
//   if (!names::parse("general", &s)) { /* names::choices<Score>() lists the names */ }
//   fb::Score f = names::to_file(s);   // and names::from_file(f, &s)
//   const char* n = names::name(s);    // "general"; names::name(f) too
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>

#include "softalign/config.hpp"
#include "softalign_generated.h"

namespace softalign::names {

template <class Enum, class File>
struct Row {
  Enum value;        // the public enum (softalign/config.hpp)
  const char* name;  // the weights format's name
  File file;         // the value in the file (softalign.fbs)
};

inline constexpr Row<Variant, fb::Variant> kVariants[] = {
    {Variant::kEncDec, "encdec", fb::Variant::EncDec},
    {Variant::kBahdanau, "bahdanau", fb::Variant::Bahdanau},
    {Variant::kLuong, "luong", fb::Variant::Luong},
};

inline constexpr Row<Score, fb::Score> kScores[] = {
    {Score::kNone, "none", fb::Score::None},
    {Score::kDot, "dot", fb::Score::Dot},
    {Score::kGeneral, "general", fb::Score::General},
    {Score::kConcat, "concat", fb::Score::Concat},
    {Score::kLocation, "location", fb::Score::Location},
};

inline constexpr Row<Scope, fb::Scope> kScopes[] = {
    {Scope::kGlobal, "global", fb::Scope::Global},
    {Scope::kLocalM, "local-m", fb::Scope::LocalM},
    {Scope::kLocalP, "local-p", fb::Scope::LocalP},
};

inline constexpr Row<Cell, fb::Cell> kCells[] = {
    {Cell::kGru, "gru", fb::Cell::Gru},
    {Cell::kLstm, "lstm", fb::Cell::Lstm},
};

inline constexpr Row<DecoderInit, fb::DecoderInit> kDecoderInits[] = {
    {DecoderInit::kTanhBackward, "tanh-backward", fb::DecoderInit::TanhBackward},
    {DecoderInit::kTanhFinal, "tanh-final", fb::DecoderInit::TanhFinal},
    {DecoderInit::kFinal, "final", fb::DecoderInit::Final},
    {DecoderInit::kReluFinal, "relu-final", fb::DecoderInit::ReluFinal},
    {DecoderInit::kLastForward, "last-forward", fb::DecoderInit::LastForward},
    {DecoderInit::kZero, "zero", fb::DecoderInit::Zero},
};

inline constexpr Row<BeamRules, fb::BeamRules> kBeamRules[] = {
    {BeamRules::kSoftalign, "softalign", fb::BeamRules::Softalign},
    {BeamRules::kOpenNmt, "opennmt", fb::BeamRules::OpenNmt},
    {BeamRules::kJoeyNmt, "joeynmt", fb::BeamRules::JoeyNmt},
};

// Every value of the schema has its row: a value added to softalign.fbs
// without one does not build.
#define SOFTALIGN_EVERY_FILE_VALUE(table, Enum) \
  static_assert(std::size(table) == std::extent_v<std::remove_reference_t<decltype(fb::EnumValues##Enum())>>, \
                "softalign_names.h: " #table " needs one row per fb::" #Enum " value")
SOFTALIGN_EVERY_FILE_VALUE(kVariants, Variant);
SOFTALIGN_EVERY_FILE_VALUE(kScores, Score);
SOFTALIGN_EVERY_FILE_VALUE(kScopes, Scope);
SOFTALIGN_EVERY_FILE_VALUE(kCells, Cell);
SOFTALIGN_EVERY_FILE_VALUE(kDecoderInits, DecoderInit);
SOFTALIGN_EVERY_FILE_VALUE(kBeamRules, BeamRules);
#undef SOFTALIGN_EVERY_FILE_VALUE

// The table of an enum, public or the file's.
constexpr const auto& table(Variant) { return kVariants; }
constexpr const auto& table(fb::Variant) { return kVariants; }
constexpr const auto& table(Score) { return kScores; }
constexpr const auto& table(fb::Score) { return kScores; }
constexpr const auto& table(Scope) { return kScopes; }
constexpr const auto& table(fb::Scope) { return kScopes; }
constexpr const auto& table(Cell) { return kCells; }
constexpr const auto& table(fb::Cell) { return kCells; }
constexpr const auto& table(DecoderInit) { return kDecoderInits; }
constexpr const auto& table(fb::DecoderInit) { return kDecoderInits; }
constexpr const auto& table(BeamRules) { return kBeamRules; }
constexpr const auto& table(fb::BeamRules) { return kBeamRules; }

template <class E>
using RowOf = std::remove_reference_t<decltype(table(E{})[0])>;

// The row of a public or a file value; nullptr for one outside the table
// (a file's byte can hold any value).
template <class E>
constexpr const RowOf<E>* find(E v) {
  for (const auto& r : table(v)) {
    if constexpr (std::is_same_v<E, decltype(r.value)>) {
      if (r.value == v) return &r;
    } else if (r.file == v) {
      return &r;
    }
  }
  return nullptr;
}

// The weights format's name of a public or a file value; "?" outside the table.
template <class E>
constexpr const char* name(E v) {
  const auto* r = find(v);
  return r ? r->name : "?";
}

// The public value of a name; false (and *out unchanged) for an unknown name.
template <class E>
bool parse(std::string_view s, E* out) {
  for (const auto& r : table(E{}))
    if (s == r.name) {
      *out = r.value;
      return true;
    }
  return false;
}

// The public value of a file's; false (and *out unchanged) outside the table.
template <class E>
bool from_file(decltype(RowOf<E>::file) f, E* out) {
  const auto* r = find(f);
  if (r) *out = r->value;
  return r != nullptr;
}

// The file's value of a public one. A value outside the table (never one
// that parse or from_file gave) becomes one outside the schema, which the
// verifier refuses.
template <class E>
constexpr auto to_file(E v) {
  const auto* r = find(v);
  return r ? r->file : static_cast<decltype(r->file)>(std::size(table(v)));
}

// The names, for messages: "encdec, bahdanau or luong".
template <class E>
std::string choices() {
  std::string out;
  const auto& t = table(E{});
  for (std::size_t i = 0; i < std::size(t); ++i)
    out += std::string(i == 0 ? "" : i + 1 == std::size(t) ? " or " : ", ") + t[i].name;
  return out;
}

}  // namespace softalign::names
