#include "bounded_json.h"

#include "error.h"

namespace softalign::convert {

nlohmann::json parse_bounded_json(const char* first, const char* last, const std::string& what) {
  using json = nlohmann::json;
  if (static_cast<std::size_t>(last - first) > kMaxJsonBytes)
    throw Error(what + " has " + std::to_string(last - first) + " bytes, more than " +
                std::to_string(kMaxJsonBytes) + " allowed");
  // The parser itself is iterative; the callback stops it before any value
  // is nested deeper than the limit, so nothing later recurses far.
  const auto depth_guard = [&what](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw Error(what + " is nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    return true;
  };
  try {
    return json::parse(first, last, depth_guard);
  } catch (const json::exception& e) {
    throw Error("bad JSON in " + what + ": " + e.what());
  }
}

}  // namespace softalign::convert
