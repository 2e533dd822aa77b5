// softalign.h compiles as C++ too (warnings as errors), with C linkage.
#include <softalign/softalign.h>

#include <type_traits>

static_assert(std::is_same<decltype(&softalign_translate),
                           softalign_status (*)(softalign_translator*, const char*, softalign_result**)>::value,
              "softalign_translate keeps its signature");
static_assert(SOFTALIGN_OK == 0, "success is 0");
// Any int32_t a C caller passes is a softalign_status value in C++ too.
static_assert(std::is_same<std::underlying_type<softalign_status>::type, int32_t>::value,
              "softalign_status is int32_t in C++");
