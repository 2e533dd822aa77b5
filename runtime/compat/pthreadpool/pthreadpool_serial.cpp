// The single-thread pthreadpool stand-in (pthreadpool.h beside this file).
#include "pthreadpool.h"

struct pthreadpool {
  int unused;
};

extern "C" {

pthreadpool_t pthreadpool_create(size_t) {
  static pthreadpool the_pool{0};  // no state: every pool is the caller's thread
  return &the_pool;
}

size_t pthreadpool_get_threads_count(pthreadpool_t) { return 1; }

void pthreadpool_parallelize_1d(pthreadpool_t, pthreadpool_task_1d_t function, void* context, size_t range,
                                uint32_t) {
  for (size_t i = 0; i < range; ++i) function(context, i);
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t, pthreadpool_task_1d_tile_1d_t function, void* context,
                                        size_t range, size_t tile, uint32_t) {
  if (tile == 0) tile = 1;
  for (size_t i = 0; i < range; i += tile) function(context, i, range - i < tile ? range - i : tile);
}

void pthreadpool_destroy(pthreadpool_t) {}

}  // extern "C"
