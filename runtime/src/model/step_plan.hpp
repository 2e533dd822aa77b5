// The model written once: its encoder and one decoder step (DESIGN.md, "The
// model"; models/softalign_ref/model.py) as a plan of operations with their
// operands (backends/ops.hpp), made from the config at load. Which operations
// a variant runs, in which order, with which weights, scores and window, is
// decided here only: this is the one place below the config's own rules that
// reads the variant, the score and the scope. Every backend runs the plan
// with its own implementation of each kind of operation.
#pragma once

#include "backends/ops.hpp"
#include "backends/weights.hpp"
#include "softalign/config.hpp"

namespace softalign::internal {

// The plan of a model with this config and these weights (of this stored
// precision). Its operations point into `w`, which must outlive it.
Plan plan_model(const ModelConfig& c, const Weights& w, WeightType weight_type);

}  // namespace softalign::internal
