// softalign.h compiles as C++ too (warnings as errors), with C linkage.
#include <softalign/softalign.h>

#include <type_traits>

static_assert(std::is_same<decltype(&softalign_translate),
                           softalign_status (*)(softalign_translator*, const char*, softalign_result**)>::value,
              "softalign_translate keeps its signature");
static_assert(SOFTALIGN_OK == 0, "success is 0");
