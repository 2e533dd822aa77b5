#include "softalign/config.hpp"

namespace softalign {

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kEncDec: return "encdec";
    case Variant::kBahdanau: return "bahdanau";
    case Variant::kLuong: return "luong";
  }
  return "?";
}

const char* score_name(Score s) {
  switch (s) {
    case Score::kNone: return "none";
    case Score::kDot: return "dot";
    case Score::kGeneral: return "general";
    case Score::kConcat: return "concat";
    case Score::kLocation: return "location";
  }
  return "?";
}

const char* scope_name(Scope s) {
  switch (s) {
    case Scope::kGlobal: return "global";
    case Scope::kLocalM: return "local-m";
    case Scope::kLocalP: return "local-p";
  }
  return "?";
}

const char* weight_type_name(WeightType t) {
  switch (t) {
    case WeightType::kF32: return "f32";
    case WeightType::kF16: return "f16";
    case WeightType::kI8: return "i8";
  }
  return "?";
}

}  // namespace softalign
