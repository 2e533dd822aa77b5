#include "linear.hpp"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <limits>
#include <mutex>
#include <vector>

namespace softalign::internal {

namespace {
bool xnnpack_ready() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = xnn_initialize(nullptr) == xnn_status_success; });
  return ok;
}

// Output rows per thread-pool task: a multiple of the kernels' row blocks,
// small enough to balance two to eight threads over a vocabulary.
constexpr std::size_t kRowTile = 256;

struct Job {
  const kernels::KernelTable* k;
  const kernels::Matrix* w;
  const float* bias;
  const float* x;
  const int8_t* xq;
  const float* xs;
  int m;
  float* y;
};

void run_tile(void* ctx, std::size_t first, std::size_t count) {
  const Job& j = *static_cast<const Job*>(ctx);
  const int r0 = static_cast<int>(first);
  kernels::matmat(*j.k, j.w->slice_rows(r0, static_cast<int>(count)), j.x, j.xq, j.xs, j.m,
                  j.bias ? j.bias + r0 : nullptr, j.y + r0, j.w->rows);
}
}  // namespace

Linear::~Linear() {
  if (op_ != nullptr) xnn_delete_operator(op_);
}

Status Linear::init(const kernels::Matrix& w, const float* bias, bool use_xnnpack) {
  w_ = w;
  bias_ = bias;
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
  return Status::Ok();
}

void Linear::run(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq, float* xs,
                 pthreadpool* pool) const {
  if (rows <= 0) return;
  if (op_ != nullptr &&
      xnn_setup_fully_connected_nc_f32(op_, rows, x, y, pool) == xnn_status_success &&
      xnn_run_operator(op_, pool) == xnn_status_success)
    return;
  if (w_.type == WeightType::kI8)
    for (int r = 0; r < rows; ++r)
      xs[r] = k.quantize_i8(x + static_cast<std::size_t>(r) * w_.cols, w_.cols, xq + static_cast<std::size_t>(r) * w_.cols);
  Job job{&k, &w_, bias_, x, xq, xs, rows, y};
  const std::size_t out = static_cast<std::size_t>(w_.rows);
  if (pool != nullptr && pthreadpool_get_threads_count(pool) > 1 && out >= 2 * kRowTile)
    pthreadpool_parallelize_1d_tile_1d(pool, run_tile, &job, out, kRowTile, 0);
  else
    run_tile(&job, 0, out);
}

}  // namespace softalign::internal
