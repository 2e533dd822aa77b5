#include "linear.hpp"

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

void Linear::run(const kernels::KernelTable& k, const float* x, int rows, float* y, int8_t* xq,
                 pthreadpool* pool) const {
  if (rows <= 0) return;
  if (op_ != nullptr &&
      xnn_setup_fully_connected_nc_f32(op_, rows, x, y, pool) == xnn_status_success &&
      xnn_run_operator(op_, pool) == xnn_status_success)
    return;
  for (int r = 0; r < rows; ++r)
    kernels::matvec(k, w_, x + static_cast<std::size_t>(r) * w_.cols, bias_, y + static_cast<std::size_t>(r) * w_.rows,
                    xq);
}

}  // namespace softalign::internal
