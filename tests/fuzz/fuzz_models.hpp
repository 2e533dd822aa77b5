// The model files a text fuzz target loads: $SOFTALIGN_FUZZ_MODELS (paths
// separated by ':') or the target's SOFTALIGN_FUZZ_DEFAULT_MODELS.
#pragma once

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

inline std::vector<std::string> fuzz_model_paths() {
  std::vector<std::string> paths;
  const char* env = std::getenv("SOFTALIGN_FUZZ_MODELS");
  std::stringstream list(env && env[0] ? env : SOFTALIGN_FUZZ_DEFAULT_MODELS);
  for (std::string p; std::getline(list, p, ':');)
    if (!p.empty()) paths.push_back(p);
  return paths;
}
