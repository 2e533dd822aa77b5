// The reference kernels, one concept per file in this folder.
#pragma once

#include <cstddef>
#include <cstdint>

namespace softalign::kernels::ref {

#include "kernels/kernel_set_decls.inc"

}  // namespace softalign::kernels::ref
