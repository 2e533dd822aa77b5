// Counts heap allocations: this test binary replaces malloc & co. and global
// operator new with versions that count while counting is switched on.
#pragma once

#include <cstddef>

namespace alloc_counter {
void start();
// Stops counting; returns the allocations since start().
long stop();
// Between driver_enter() and driver_leave() (a Vulkan driver executing a
// submission), allocations are counted apart: driver_allocations() since start().
void driver_enter();
void driver_leave();
long driver_allocations();
}  // namespace alloc_counter
