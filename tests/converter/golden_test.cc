// Every golden tiny model (tests/golden/<name>/model.safetensors, exported by
// the PyTorch reference) converts to f32, f16 and int8 with the checks of
// checks.h.
#include <filesystem>

#include <doctest/doctest.h>

#include "checks.h"

using namespace test;

TEST_CASE("golden models convert to f32 (bit exact), f16 and int8") {
  namespace fs = std::filesystem;
  const fs::path golden = fs::path(source_dir()) / "tests" / "golden";
  std::vector<fs::path> models;
  if (fs::exists(golden))
    for (const auto& e : fs::directory_iterator(golden))
      if (fs::exists(e.path() / "model.safetensors")) models.push_back(e.path());
  std::sort(models.begin(), models.end());
  if (models.empty()) {
    MESSAGE("no golden models under " << golden.string() << " yet; nothing to convert");
    return;
  }
  for (const fs::path& dir : models) {
    CAPTURE(dir.string());
    TempDir out;
    convert_and_check_all((dir / "model.safetensors").string(), out.path, dir.filename().string());
  }
}
