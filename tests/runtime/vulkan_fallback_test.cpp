// The fall-back to the CPU, in a process where Vulkan cannot start: ctest
// runs this twice, once with the loader pointed at an empty driver directory
// (VK_ICD_FILENAMES / VK_DRIVER_FILES) and once with no loader at all
// (SOFTALIGN_VULKAN_LOADER names a file that does not exist). Each run gives
// SOFTALIGN_TEST_FALLBACK_REASON, the words the reason must contain.
//   backend=auto:   the CPU, with that reason (on a system without a GPU
//                   device node, auto does not load the drivers: it says
//                   so instead), and the CPU's results;
//   backend=vulkan: a clear error (kUnsupported) with that reason;
//   the C API says the same.
#include <doctest/doctest.h>

#include <cstdlib>

#include "golden_util.hpp"
#include "softalign/softalign.h"
#include "backends/vulkan/vulkan_device.hpp"

using namespace softalign;

namespace {

std::string expected_reason() {
  const char* env = std::getenv("SOFTALIGN_TEST_FALLBACK_REASON");
  return env != nullptr ? env : "";
}

// What auto says for a translator of batches (one that decodes one sentence
// at a time takes the CPU before any probe).
std::string expected_auto_reason() {
  return softalign::internal::vk::gpu_device_node_present() ? expected_reason() : "no GPU device node";
}

}  // namespace

TEST_CASE("vulkan fall-back: auto takes the CPU and says why; vulkan is an error") {
  const std::string reason = expected_reason();
  REQUIRE_MESSAGE(!reason.empty(), "SOFTALIGN_TEST_FALLBACK_REASON is not set (run this test through ctest)");
  std::shared_ptr<const Model> model;
  REQUIRE(Model::load(golden::model_path("bahdanau", "f32").string(), &model).ok());
  TranslatorOptions o;
  o.search.beam_size = 4;
  o.max_batch = 8;
  o.backend = Backend::kAuto;
  std::unique_ptr<Translator> automatic, cpu;
  Status st = Translator::prepare(model, o, &automatic);
  REQUIRE_MESSAGE(st.ok(), st.to_string());
  const BackendInfo& info = automatic->backend_info();
  CHECK(info.backend == Backend::kCpu);
  CHECK(info.name == "cpu");
  CHECK(info.device.empty());
  CHECK_MESSAGE(info.reason.find("backend=auto: " + expected_auto_reason()) == 0, info.reason);
  MESSAGE("auto: ", info.reason);

  // The same results as backend=cpu.
  o.backend = Backend::kCpu;
  REQUIRE(Translator::prepare(model, o, &cpu).ok());
  const nlohmann::json g = golden::load_json("bahdanau");
  for (const auto& sent : g["sentences"]) {
    const std::vector<int32_t> src = golden::ids(sent["src_ids"]);
    NBestView a, b;
    REQUIRE(automatic->translate_ids(src, &a).ok());
    REQUIRE(cpu->translate_ids(src, &b).ok());
    REQUIRE(a.count == b.count);
    for (std::size_t r = 0; r < a.count; ++r) {
      CHECK(std::vector<int32_t>(a.hypotheses[r].ids, a.hypotheses[r].ids + a.hypotheses[r].length) ==
            std::vector<int32_t>(b.hypotheses[r].ids, b.hypotheses[r].ids + b.hypotheses[r].length));
      CHECK(a.hypotheses[r].score == b.hypotheses[r].score);
    }
  }

  // Asked for explicitly: an error that says why, and no translator.
  o.backend = Backend::kVulkan;
  std::unique_ptr<Translator> vulkan;
  st = Translator::prepare(model, o, &vulkan);
  CHECK(st.code() == StatusCode::kUnsupported);
  CHECK_MESSAGE(st.message().find("backend=vulkan: " + reason) == 0, st.message());
  CHECK(vulkan == nullptr);
}

TEST_CASE("vulkan fall-back through the C API") {
  const std::string reason = expected_reason();
  REQUIRE(!reason.empty());
  softalign_model* m = nullptr;
  REQUIRE(softalign_model_load(golden::model_path("bahdanau", "f32").string().c_str(), &m) == SOFTALIGN_OK);
  softalign_translator_options o;
  softalign_translator_options_default(&o);
  CHECK(o.device == nullptr);  // the default: the CPU, without probing
  softalign_translator* t = nullptr;
  REQUIRE(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  CHECK(std::string(softalign_translator_backend(t)) == "cpu");
  CHECK(std::string(softalign_translator_backend_reason(t)) == "backend=cpu");
  softalign_translator_free(t);
  t = nullptr;
  o.device = "auto";
  REQUIRE(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  CHECK(std::string(softalign_translator_backend(t)) == "cpu");
  // A C translator decodes one sentence at a time: auto's rule takes the CPU.
  CHECK(std::string(softalign_translator_backend_reason(t)).find("backend=auto: the CPU for fewer than 8") == 0);
  softalign_translator_free(t);
  t = nullptr;
  o.device = "vulkan";
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_UNSUPPORTED);
  CHECK(t == nullptr);
  CHECK(std::string(softalign_last_error()).find(reason) != std::string::npos);
  o.device = "gpu";
  CHECK(softalign_translator_create(m, &o, &t) == SOFTALIGN_INVALID_ARGUMENT);
  CHECK(std::string(softalign_last_error()).find("device must be") != std::string::npos);
  o.device = "cpu";
  REQUIRE(softalign_translator_create(m, &o, &t) == SOFTALIGN_OK);
  CHECK(std::string(softalign_translator_backend(t)) == "cpu");
  CHECK(std::string(softalign_translator_backend_reason(t)) == "backend=cpu");
  softalign_translator_free(t);
  CHECK(softalign_translator_backend(nullptr) == nullptr);
  CHECK(softalign_translator_backend_reason(nullptr) == nullptr);
  softalign_model_free(m);
}
