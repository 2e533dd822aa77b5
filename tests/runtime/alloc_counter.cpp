// Replaces the C allocator (through glibc's __libc_* entry points) and global
// operator new/delete in this executable. The binary exports them
// (ENABLE_EXPORTS), so the shared libraries it loads (XNNPACK, SentencePiece,
// libstdc++) call them too.
#include "alloc_counter.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<bool> in_driver{false};
std::atomic<long> count{0};
std::atomic<long> driver_count{0};
// ALLOC_COUNTER_TRAP=1 stops at the first counted allocation (run under gdb to see where).
const bool trap = std::getenv("ALLOC_COUNTER_TRAP") != nullptr;
inline void note() {
  if (!counting.load(std::memory_order_relaxed)) return;
  if (in_driver.load(std::memory_order_relaxed)) {
    driver_count.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (trap) __builtin_trap();
  count.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

namespace alloc_counter {
void start() {
  count = 0;
  driver_count = 0;
  counting = true;
}
void driver_enter() { in_driver = true; }
void driver_leave() { in_driver = false; }
long driver_allocations() { return driver_count.load(); }
long stop() {
  counting = false;
  return count.load();
}
}  // namespace alloc_counter

extern "C" {
void* malloc(std::size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) {
  note();
  return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) {
  note();
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
void* memalign(std::size_t al, std::size_t n) {
  note();
  return __libc_memalign(al, n);
}
void* aligned_alloc(std::size_t al, std::size_t n) {
  note();
  return __libc_memalign(al, n);
}
int posix_memalign(void** out, std::size_t al, std::size_t n) {
  note();
  void* p = __libc_memalign(al, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}

void* operator new(std::size_t n) {
  note();
  void* p = __libc_malloc(n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  note();
  return __libc_malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return operator new(n, std::nothrow); }
void* operator new(std::size_t n, std::align_val_t al) {
  note();
  void* p = __libc_memalign(static_cast<std::size_t>(al), n ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t n, std::align_val_t al) { return operator new(n, al); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
