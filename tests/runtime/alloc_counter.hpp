// Counts heap allocations: this test binary replaces malloc & co. and global
// operator new with versions that count while counting is switched on.
#pragma once

#include <cstddef>

namespace alloc_counter {
void start();
// Stops counting; returns the allocations since start().
long stop();
}  // namespace alloc_counter
