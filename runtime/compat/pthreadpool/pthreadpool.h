/* A single-thread stand-in for pthreadpool (the part of its API softalign
 * calls), used where Debian's libpthreadpool is not available: the
 * WebAssembly build (no threads; runtime/CMakeLists.txt, SOFTALIGN_XNNPACK=OFF
 * without a pthreadpool library). Every task runs on the calling thread, in
 * order; a pool reports one thread, so the linear layers never split work. */
#ifndef SOFTALIGN_COMPAT_PTHREADPOOL_H
#define SOFTALIGN_COMPAT_PTHREADPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct pthreadpool* pthreadpool_t;
typedef void (*pthreadpool_task_1d_t)(void*, size_t);
typedef void (*pthreadpool_task_1d_tile_1d_t)(void*, size_t, size_t);

#define PTHREADPOOL_FLAG_DISABLE_DENORMALS 0x00000001
#define PTHREADPOOL_FLAG_YIELD_WORKERS 0x00000002

#ifdef __cplusplus
extern "C" {
#endif

pthreadpool_t pthreadpool_create(size_t threads_count);
size_t pthreadpool_get_threads_count(pthreadpool_t threadpool);
void pthreadpool_parallelize_1d(pthreadpool_t threadpool, pthreadpool_task_1d_t function, void* context,
                                size_t range, uint32_t flags);
void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t threadpool, pthreadpool_task_1d_tile_1d_t function,
                                        void* context, size_t range, size_t tile, uint32_t flags);
void pthreadpool_destroy(pthreadpool_t threadpool);

#ifdef __cplusplus
}
#endif

#endif
