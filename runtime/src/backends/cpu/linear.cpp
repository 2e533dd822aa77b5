#include "backends/cpu/linear.hpp"

#include <pthreadpool.h>
#if SOFTALIGN_HAVE_XNNPACK
#include <xnnpack.h>
#endif

#include <algorithm>
#include <limits>
#include <mutex>
#include <vector>

namespace softalign::internal {

namespace {
#if SOFTALIGN_HAVE_XNNPACK
bool xnnpack_ready() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = xnn_initialize(nullptr) == xnn_status_success; });
  return ok;
}
#endif

// A thread-pool task gets at least this many multiply-adds (and a multiple
// of 256 output rows): below it, waking a worker costs more than it saves.
// Products smaller than two tasks stay on the calling thread.
constexpr std::size_t kTaskMacs = std::size_t(1) << 19;

struct Job {
  const kernels::KernelTable* k;
  const kernels::Matrix* w;
  const int32_t* row_ids;  // null: W's rows in order
  const float* bias;
  const float* x;
  const int8_t* xq;
  const float* xs;
  int m;
  float* y;
  int ldy;
};

void run_tile(void* ctx, std::size_t first, std::size_t count) {
  const Job& j = *static_cast<const Job*>(ctx);
  const int r0 = static_cast<int>(first), n = static_cast<int>(count);
  if (j.row_ids != nullptr)
    kernels::matmat_gather(*j.k, *j.w, j.row_ids + r0, n, j.x, j.xq, j.xs, j.m, j.bias, j.y + r0, j.ldy);
  else
    kernels::matmat(*j.k, j.w->slice_rows(r0, n), j.x, j.xq, j.xs, j.m, j.bias ? j.bias + r0 : nullptr, j.y + r0,
                    j.ldy);
}
}  // namespace

Linear::~Linear() {
#if SOFTALIGN_HAVE_XNNPACK
  if (op_ != nullptr) xnn_delete_operator(op_);
#endif
}

Status Linear::init(const kernels::Matrix& w, const float* bias, bool use_xnnpack) {
  w_ = w;
  bias_ = bias;
#if SOFTALIGN_HAVE_XNNPACK
  if (!use_xnnpack || w.type == WeightType::kI8 || !xnnpack_ready()) return Status::Ok();
  // XNNPACK packs its own copy of the weights at create, so f16 weights are
  // widened (exactly) into a temporary that is dropped right after.
  std::vector<float> widened;
  const float* kernel = static_cast<const float*>(w.data);
  if (w.type == WeightType::kF16) {
    widened.resize(static_cast<std::size_t>(w.rows) * w.cols);
    const auto* h = static_cast<const uint16_t*>(w.data);
    for (std::size_t i = 0; i < widened.size(); ++i) widened[i] = kernels::half_to_float(h[i]);
    kernel = widened.data();
  }
  const float inf = std::numeric_limits<float>::infinity();
  const xnn_status st =
      xnn_create_fully_connected_nc_f32(w.cols, w.rows, w.cols, w.rows, kernel, bias, -inf, inf, 0, &op_);
  if (st != xnn_status_success) {
    op_ = nullptr;
    return Status(StatusCode::kInternal, "XNNPACK fully-connected operator: status " + std::to_string(st));
  }
#else
  (void)use_xnnpack;  // built without XNNPACK (SOFTALIGN_XNNPACK=OFF): our kernels for every layer
#endif
  return Status::Ok();
}

void Linear::run(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq, float* xs,
                 pthreadpool* pool) const {
  if (rows <= 0) return;
#if SOFTALIGN_HAVE_XNNPACK
  if (op_ != nullptr) {
    if (xnn_setup_fully_connected_nc_f32(op_, rows, x, y, pool) == xnn_status_success &&
        xnn_run_operator(op_, pool) == xnn_status_success)
      return;
  }
#endif
  run_kernels(k, nullptr, w_.rows, x, rows, y, xq, xs, pool);
}

void Linear::run_gather(const kernels::KernelTable& k, const int32_t* row_ids, int count, const float* x, int rows,
                        float* y, int8_t* xq, float* xs, pthreadpool* pool) const {
  if (rows <= 0 || count <= 0) return;
  run_kernels(k, row_ids, count, x, rows, y, xq, xs, pool);
}

void Linear::run_kernels(const kernels::KernelTable& k, const int32_t* row_ids, int out_cols, const float* x,
                         int rows, float* y, int8_t* xq, float* xs, pthreadpool* pool) const {
  if (w_.type == WeightType::kI8)
    for (int r = 0; r < rows; ++r)
      xs[r] = k.quantize_i8(x + static_cast<std::size_t>(r) * w_.cols, w_.cols, xq + static_cast<std::size_t>(r) * w_.cols);
  Job job{&k, &w_, row_ids, bias_, x, xq, xs, rows, y, out_cols};
  const std::size_t out = static_cast<std::size_t>(out_cols);
  const std::size_t macs_per_row = static_cast<std::size_t>(rows) * w_.cols;
  const std::size_t tile = (kTaskMacs / std::max<std::size_t>(macs_per_row, 1) + 255) / 256 * 256;
  // YIELD_WORKERS: the workers sleep after the call instead of spinning, which
  // matters on a machine whose cores other programs share.
  if (pool != nullptr && pthreadpool_get_threads_count(pool) > 1 && out >= 2 * tile)
    pthreadpool_parallelize_1d_tile_1d(pool, run_tile, &job, out, tile, PTHREADPOOL_FLAG_YIELD_WORKERS);
  else
    run_tile(&job, 0, out);
}

}  // namespace softalign::internal
