// Checks of a converted file against the safetensors it came from.
#pragma once

#include <string>
#include <vector>

#include "softalign_format.h"
#include "test_util.h"

namespace test {

// The file verified with the reader's rules (fails the test otherwise).
// `bytes` must outlive the result.
const softalign::fb::Model* verified(const std::vector<uint8_t>& bytes);

// The input tensors of a safetensors file, read with the converter's parser.
TensorMap read_input_tensors(const std::string& safetensors_path, json* config);

// Each check covers every tensor of `input` and nothing else in the file.
void check_f32_exact(const softalign::fb::Model& m, const TensorMap& input);
void check_f16(const softalign::fb::Model& m, const TensorMap& input);
void check_int8(const softalign::fb::Model& m, const TensorMap& input);
void check_config(const softalign::fb::Model& m, const json& config);
// Runs `softalign-convert --inspect` and compares its config and tensor table
// with the file's content and the config.
void check_inspect(const std::string& path, const softalign::fb::Model& m, const json& config);

// Converts `weights` to f32, f16 and int8 in `outdir` (stem.f32.softalign, ...),
// checking every property above and determinism.
void convert_and_check_all(const std::string& weights, const std::string& outdir, const std::string& stem);

}  // namespace test
