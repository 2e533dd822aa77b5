#include "model/confidence_table.hpp"

#include <string_view>

#include "softalign_generated.h"

namespace softalign::internal {

ConfidenceCalibration read_confidence(const fb::Model& model) {
  ConfidenceCalibration cal;
  const fb::Confidence* conf = model.confidence();
  if (conf == nullptr) return cal;
  for (flatbuffers::uoffset_t i = 0; i < conf->features()->size(); ++i) {
    const flatbuffers::String* name = conf->features()->Get(i);
    const int f = confidence_feature_index(std::string_view(name->data(), name->size()));
    if (f < 0) return ConfidenceCalibration();  // a newer converter's feature
    cal.weights[static_cast<std::size_t>(f)] = conf->weights()->Get(i);
  }
  cal.bias = conf->bias();
  if (conf->fitted_on()) cal.fitted_on = conf->fitted_on()->str();
  cal.present = true;
  return cal;
}

}  // namespace softalign::internal
