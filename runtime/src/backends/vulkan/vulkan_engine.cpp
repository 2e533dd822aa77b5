#include "backends/vulkan/vulkan_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "backends/cpu/attention.hpp"

namespace softalign::internal::vk {

namespace {

uint32_t groups_of(uint32_t n, uint32_t size) { return (n + size - 1) / size; }

// product.glsl's workgroup: kGroup invocations, one per output for
// kTileRows activation rows; the _row kernels: one row, kSplit invocations
// per output.
constexpr uint32_t kGroup = 64, kTileRows = 4, kSplit = 8;
// product_kernel.glsl: the weight rows an invocation owns (NRMAX), so
// kWeightRows / rows-per-output outputs each.
constexpr uint32_t kWeightRows = 3;

// The kernel for at most `rows` rows: tiles of kTileRows, or one row.
Kernel tiled(Kernel tile, Kernel one, uint32_t rows) { return rows == 1 ? one : tile; }
uint32_t tiles_of(uint32_t rows) { return rows == 1 ? 1 : groups_of(rows, kTileRows); }
// A workgroup's outputs for at most `rows` rows, `per` to an invocation; the
// workgroups for `outputs` outputs.
uint32_t group_outputs(uint32_t rows, uint32_t per) { return (rows == 1 ? kGroup / kSplit : kGroup) * per; }
uint32_t output_groups(uint32_t outputs, uint32_t rows, uint32_t per = 1) {
  return groups_of(outputs, group_outputs(rows, per));
}

// attend_luong.comp's selectors of a score and a window; kNone where the
// shader has no such score or window (the op then runs on the host).
uint32_t luong_score(Scores scores) {
  switch (scores) {
    case Scores::kDot: return 1;
    case Scores::kDotKeys: return 2;
    case Scores::kAdditive: return 3;
    case Scores::kPosition: return 4;
  }
  return kNone;
}
uint32_t luong_window(Window window) {
  switch (window) {
    case Window::kAll: return 0;
    case Window::kAtStep: return 1;
    case Window::kPredicted: return 2;
  }
  return kNone;
}

}  // namespace

bool g_attention_on_host = false;

bool VulkanEngine::supports(const StepOperation& op) {
  switch (op.op) {
    case StepOp::kAttendAdditive:
      return !g_attention_on_host;
    case StepOp::kAttendWithState:
      return !g_attention_on_host && luong_score(op.scores) != kNone && luong_window(op.window) != kNone;
    default:  // the base operations (gathers, products, cells): every backend has them
      return true;
  }
}

VulkanEngine::VulkanEngine(const Plan& model_plan, const ShortlistTable& shortlist, Device& device,
                           std::shared_ptr<const VulkanWeights> weights, const kernels::KernelTable& kernels,
                           const EngineLimits& limits)
    : plan_(model_plan),
      shapes_(model_plan.shapes),
      k_(kernels),
      table_(shortlist),
      dev_(device),
      api_(device.api),
      weights_(std::move(weights)),
      w_(*weights_),
      S_(static_cast<uint32_t>(limits.max_source)),
      K_(static_cast<uint32_t>(limits.max_rows)),
      B_(static_cast<uint32_t>(limits.max_sentences)),
      R_(static_cast<uint32_t>(limits.max_rows) * static_cast<uint32_t>(limits.max_sentences)),
      shortlist_room_(limits.shortlist && table_.present()) {
  n_ = static_cast<uint32_t>(shapes_.enc_hidden);
  d_ = static_cast<uint32_t>(shapes_.dec_hidden);
  e_ = static_cast<uint32_t>(shapes_.emb);
  a_ = static_cast<uint32_t>(shapes_.att_hidden);
  l_ = static_cast<uint32_t>(shapes_.maxout);
  V_ = static_cast<uint32_t>(shapes_.vocab);
  A_ = static_cast<uint32_t>(shapes_.ann);
  gates_ = static_cast<uint32_t>(shapes_.gates);
  lstm_ = shapes_.cell == Cell::kLstm;
  state_ = static_cast<uint32_t>(shapes_.state_size);
  cell_at_ = static_cast<uint32_t>(shapes_.cell_offset);
  fed_at_ = static_cast<uint32_t>(shapes_.fed_offset);
  // A step's GRU input row: [E y ; fed] (ops.hpp, FedInput).
  xw_ = e_ + static_cast<uint32_t>(shapes_.fed);
  key_dim_ = static_cast<uint32_t>(shapes_.key_dim);
  q_width_ = std::max(a_, 1u);
  for (const StepOperation& op : plan_.step) {
    if (op.op == StepOp::kInput) zero_attention_ = op.zero_attention;
    if (op.op == StepOp::kCombine) feed_back_ = op.feed_back;
    if (op.op != StepOp::kAttendWithState) continue;
    if (op.scores == Scores::kPosition) q_width_ = std::max(q_width_, static_cast<uint32_t>(op.matrix->rows));
    predicted_window_ = op.window == Window::kPredicted;
  }
  for (const StepOperation& op : plan_.step)
    if (!supports(op)) host_ops_.push_back(&op);
  parts_ = 1 + static_cast<uint32_t>(host_ops_.size());
  costs_.host_operations = static_cast<int>(host_ops_.size());
  plan();
}

VulkanEngine::~VulkanEngine() {

  const VkDevice dev = dev_.device;
  if (fence_ != VK_NULL_HANDLE) api_.vkDestroyFence(dev, fence_, nullptr);
  if (cmd_pool_ != VK_NULL_HANDLE) api_.vkDestroyCommandPool(dev, cmd_pool_, nullptr);
  if (pool_ != VK_NULL_HANDLE) api_.vkDestroyDescriptorPool(dev, pool_, nullptr);
  dev_.destroy_buffer(&act_);
  dev_.destroy_buffer(&io_);
  dev_.destroy_buffer(&ctl_);
  dev_.destroy_buffer(&rows_);
  dev_.destroy_buffer(&xchg_);
}

// Offsets of every region of the device buffer and of the I/O block, in
// 32-bit words (the shaders index them with 32-bit integers: a plan past 2^32
// words is refused by init()).
void VulkanEngine::plan() {
  uint64_t at = 0;
  auto take = [this, &at](uint64_t words) {
    const uint64_t off = at;
    at += (words + 3) & ~uint64_t{3};  // 16-byte aligned regions
    if (at > UINT32_MAX) too_large_ = true;
    return static_cast<uint32_t>(off);
  };
  const uint64_t bs = static_cast<uint64_t>(B_) * S_;
  const uint32_t enc_w = std::max(e_, A_);
  enc_a_ = take(bs * enc_w);
  enc_b_ = take(bs * enc_w);
  gi_f_ = take(bs * gates_ * n_);
  gi_b_ = shapes_.directions == 2 ? take(bs * gates_ * n_) : gi_f_;  // one-way: none
  h_ = take(uint64_t{4} * B_ * n_);  // [direction][step parity][sentence][n]
  if (lstm_) c_ = take(uint64_t{2} * B_ * n_);  // [direction][sentence][n]
  // The last layer's output are the annotations (ping-pong: layer 0 writes enc_b_).
  ann_ = shapes_.enc_layers % 2 == 1 ? enc_b_ : enc_a_;
  keys_ = take(bs * std::max(key_dim_, 1u));
  finals_ld_ = static_cast<uint32_t>(shapes_.enc_layers) * A_;
  finals_ = take(uint64_t{B_} * finals_ld_);
  if (lstm_) final_cells_ = take(uint64_t{B_} * finals_ld_);
  top_final_ = finals_ + finals_ld_ - A_;
  state_cur_ = take(uint64_t{R_} * state_);
  state_next_ = take(uint64_t{R_} * state_);
  x_ = take(uint64_t{R_} * xw_);
  // Per row: attention queries (bahdanau W_a s, concat W_q h, location W_loc h), local-p's W_p h.
  q_ = take(uint64_t{R_} * q_width_);
  qp_ = take(uint64_t{R_} * std::max(a_, 1u));
  cat_ = take(uint64_t{R_} * (A_ + d_));
  t_ = take(uint64_t{R_} * std::max(l_, d_));
  logits_ = take(uint64_t{R_} * V_);
  act_words_ = at;
  // The output layer's input: luong's h~ (in the state when it is fed back), else t.
  gen_in_ = feed_back_ ? state_next_ + fed_at_ : t_;
  gen_ld_ = feed_back_ ? state_ : static_cast<uint32_t>(shapes_.output_in);

  at = 0;
  io_sentences_ = take(1);
  io_enc_rows_ = take(1);
  io_rows_ = take(1);
  io_t_ = take(1);
  io_lens_ = take(B_);
  io_enc_lens_ = take(B_);
  io_att_lens_ = take(B_);
  io_src_ = take(bs);
  io_positions_ = take(bs);
  io_order_ = take(B_);
  io_live_ = take(S_);
  position_grids_room_ = 2 + 2 * static_cast<uint32_t>(shapes_.enc_layers);  // embeddings, 2 products a layer, keys
  io_position_grids_ = take(3 * position_grids_room_);
  io_tokens_ = take(R_);
  io_row_sent_ = take(R_);
  io_parents_ = take(R_);
  io_want_ = take(R_);
  io_row_logp_ = take(R_);
  io_t_max_ = take(B_);
  rows_grids_room_ = 2 * kMaxStepDispatches;  // the one-row and the tiled greedy steps
  io_rows_grids_ = take(3 * rows_grids_room_);
  io_rows_grid_per_ = take(2 * rows_grids_room_);
  io_status_ = take(1);
  io_greedy_tok_ = take(uint64_t{kGreedySteps} * B_);
  io_greedy_logp_ = take(uint64_t{kGreedySteps} * B_);
  io_greedy_att_ = take(uint64_t{kGreedySteps} * B_ * S_);
  io_greedy_end_ = static_cast<uint32_t>(at);
  io_idx_ = take(uint64_t{R_} * K_);
  io_val_ = take(uint64_t{R_} * K_);
  io_lse_ = take(R_);
  io_fault_ = take(R_);
  io_att_ = take(uint64_t{R_} * S_);
  io_logits_ = take(V_);
  io_width_ = take(1);
  io_vocab_ids_ = take(V_);
  io_mask_on_ = take(1);
  // The step's buckets of rows (bucket_index()), each recorded ending in
  // top-k and in rows, and the forced step: an output layer each.
  bucket_rows_.clear();
  for (uint32_t rows = 1; rows < R_; rows = rows == 1 ? kTileRows : 2 * rows) bucket_rows_.push_back(rows);
  bucket_rows_.push_back(R_);
  width_grids_room_ = 2 * static_cast<uint32_t>(bucket_rows_.size()) + 1;
  io_width_grids_ = take(3 * width_grids_room_);
  if (shortlist_room_ && B_ > 1) {
    mask_words_ = (V_ + 31) / 32;
    io_mask_ = take(uint64_t{B_} * mask_words_);
  }
  io_words_ = at;
  if (host_ops_.empty()) return;
  at = 0;
  x_ann_ = take(bs * A_);
  x_keys_ = take(bs * std::max(key_dim_, 1u));
  x_in_ = take(uint64_t{R_} * std::max(a_, d_));
  x_out_ = take(uint64_t{R_} * (A_ + d_));
  x_att_ = take(uint64_t{R_} * S_);
  x_fault_ = take(R_);
  x_words_ = at;
}

void VulkanEngine::layout(Arena& arena) {
  length_slots_ = arena.take<uint32_t>(S_ + 1);
  vocab_.layout(arena, shortlist_room_, static_cast<int>(V_), static_cast<int>(B_));
  if (shortlist_room_) union_pos_ = arena.take<int32_t>(V_);
  host_rows_ = arena.take<float>(uint64_t{R_} * V_);
  if (host_ops_.empty()) return;
  host_query_ = arena.take<float>(std::max({a_, d_, key_dim_, 1u}));
  host_xq_ = arena.take<int8_t>(d_);
}

Status VulkanEngine::init() {
  // Checked before anything is allocated: each buffer is bound whole.
  const uint64_t act_bytes = act_words_ * 4, io_bytes = io_words_ * 4;
  const uint64_t rows_bytes = uint64_t{R_} * V_ * 4 + x_words_ * 4;  // with the exchange buffer
  const uint64_t largest = dev_.properties.limits.maxStorageBufferRange;
  if (too_large_ || act_bytes > largest || io_bytes > largest ||
      act_bytes + 2 * io_bytes + rows_bytes + w_.buffer.size > dev_.device_local_bytes)
    return Status(StatusCode::kResourceExhausted,
                  "this translator needs " + std::to_string((act_bytes + io_bytes + rows_bytes) >> 20) +
                      " MiB of Vulkan buffers, more than the device has (" + std::to_string(largest >> 20) +
                      " MiB per buffer, " + std::to_string(dev_.device_local_bytes >> 20) +
                      " MiB of device memory with the weights' " + std::to_string(w_.buffer.size >> 20) +
                      " MiB): lower the beam size, max_batch or max_source_tokens");
  // Dispatches span the rows (the batch's positions, the step's rows) in one
  // dimension: at most the device's workgroup count.
  const VkPhysicalDeviceLimits& lim = dev_.properties.limits;
  const uint64_t most_groups = std::max<uint64_t>(uint64_t{B_} * S_, R_);
  if (most_groups > std::min(lim.maxComputeWorkGroupCount[0], lim.maxComputeWorkGroupCount[1]))
    return Status(StatusCode::kResourceExhausted,
                  "this translator's " + std::to_string(most_groups) +
                      " rows (max_batch x max_source_tokens, or max_batch x beam) exceed the Vulkan device's " +
                      std::to_string(std::min(lim.maxComputeWorkGroupCount[0], lim.maxComputeWorkGroupCount[1])) +
                      " workgroups per dispatch: lower max_batch, the beam size or max_source_tokens");
  Status st = dev_.create_buffer(act_bytes, false, &act_);
  if (st.ok()) st = dev_.create_buffer(io_bytes, true, &io_);
  if (st.ok()) st = dev_.create_buffer(io_bytes, false, &ctl_);
  if (st.ok()) st = dev_.create_buffer(uint64_t{R_} * V_ * 4, true, &rows_);
  if (st.ok() && x_words_ > 0) st = dev_.create_buffer(x_words_ * 4, true, &xchg_);
  if (!st.ok()) return Status(st.code(), "cannot allocate the translator's Vulkan buffers: " + st.message());
  io_u_ = static_cast<uint32_t*>(io_.mapped);
  io_f_ = static_cast<float*>(io_.mapped);
  std::memset(io_.mapped, 0, io_bytes);

  const VkDevice dev = dev_.device;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4};
  VkDescriptorPoolCreateInfo pi{};
  pi.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pi.maxSets = 1;
  pi.poolSizeCount = 1;
  pi.pPoolSizes = &size;
  VkResult r = api_.vkCreateDescriptorPool(dev, &pi, nullptr, &pool_);
  if (r != VK_SUCCESS) return vk_error("vkCreateDescriptorPool", r);
  VkDescriptorSetAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  ai.descriptorPool = pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &dev_.set_layout;
  r = api_.vkAllocateDescriptorSets(dev, &ai, &set_);
  if (r != VK_SUCCESS) return vk_error("vkAllocateDescriptorSets", r);
  VkDescriptorBufferInfo infos[4] = {{w_.buffer.buffer, 0, VK_WHOLE_SIZE},
                                     {act_.buffer, 0, VK_WHOLE_SIZE},
                                     {ctl_.buffer, 0, VK_WHOLE_SIZE},
                                     {io_.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet writes[4]{};
  for (uint32_t b = 0; b < 4; ++b) {
    writes[b].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[b].dstSet = set_;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &infos[b];
  }
  api_.vkUpdateDescriptorSets(dev, 4, writes, 0, nullptr);

  VkCommandPoolCreateInfo cp{};

  cp.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cp.queueFamilyIndex = dev_.queue_family;
  r = api_.vkCreateCommandPool(dev, &cp, nullptr, &cmd_pool_);
  if (r != VK_SUCCESS) return vk_error("vkCreateCommandPool", r);
  const std::size_t buckets = bucket_rows_.size();
  // The one-row kernels, the tiled ones; none where a host op cuts the step.
  const uint32_t greedy_kinds = !host_ops_.empty() ? 0 : R_ > 1 ? 2 : 1;
  std::vector<VkCommandBuffer> cbs(4 + (1 + 2 * buckets) * parts_ + greedy_kinds * kGreedySteps);
  VkCommandBufferAllocateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  ci.commandPool = cmd_pool_;
  ci.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ci.commandBufferCount = static_cast<uint32_t>(cbs.size());
  r = api_.vkAllocateCommandBuffers(dev, &ci, cbs.data());
  if (r != VK_SUCCESS) return vk_error("vkAllocateCommandBuffers", r);
  encoder_cb_ = cbs[0];
  vocab_cb_ = cbs[1];
  greedy_in_cb_ = cbs[2];
  greedy_out_cb_ = cbs[3];
  auto next = cbs.begin() + 4;
  force_cbs_.assign(next, next + parts_);
  next += parts_;
  step_cbs_.assign(next, next + buckets * parts_);
  next += buckets * parts_;
  rows_cbs_.assign(next, next + buckets * parts_);
  next += buckets * parts_;
  greedy_cbs_.assign(next, cbs.end());
  greedy_submit_.assign(kGreedySteps + 3, VK_NULL_HANDLE);  // the vocabulary's copy, in, the steps, out
  VkFenceCreateInfo fi{};
  fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  r = api_.vkCreateFence(dev, &fi, nullptr, &fence_);
  if (r != VK_SUCCESS) return vk_error("vkCreateFence", r);

  // Each piece: its first command buffer begun (begin_part), the commands,
  // its last ended (end_part); a step's parts between are cut by record_step.
  // A failure of either is kept in part_fault_.
  auto record = [&](VkCommandBuffer* parts, std::size_t count, auto&& commands) {
    VkResult res = begin_part(parts[0]);
    if (res != VK_SUCCESS) return vk_error("vkBeginCommandBuffer", res);
    commands();
    res = end_part(parts[count - 1]);
    if (res != VK_SUCCESS) return vk_error("vkEndCommandBuffer", res);
    return part_fault_;
  };
  // The encoder's operations (ops.hpp), in one command buffer; the host ops
  // read its annotations and keys from the exchange buffer.
  counting_ = &costs_.encoder;
  Status st2 = record(&encoder_cb_, 1, [&] {
    for (const EncoderOperation& op : plan_.encoder) record_encoder_op(encoder_cb_, op);
    if (host_ops_.empty()) return;
    const uint64_t bs = uint64_t{B_} * S_;
    const VkBufferCopy ann{uint64_t{ann_} * 4, uint64_t{x_ann_} * 4, bs * A_ * 4};
    copy(encoder_cb_, act_, xchg_, &ann, 1);
    if (key_dim_ == 0) return;
    const VkBufferCopy keys{uint64_t{keys_} * 4, uint64_t{x_keys_} * 4, bs * key_dim_ * 4};
    copy(encoder_cb_, act_, xchg_, &keys, 1);
  });
  counting_ = nullptr;
  for (std::size_t b = 0; b < buckets && st2.ok(); ++b) {
    VkCommandBuffer* step = &step_cbs_[b * parts_];
    VkCommandBuffer* rows = &rows_cbs_[b * parts_];
    counting_ = bucket_rows_[b] == R_ ? &costs_.step : nullptr;  // costs(): the step over every row
    st2 = record(step, parts_, [&] { record_step(step, StepEnd::kTopk, bucket_rows_[b]); });
    counting_ = nullptr;
    if (st2.ok()) st2 = record(rows, parts_, [&] { record_step(rows, StepEnd::kRows, bucket_rows_[b]); });
  }
  rec_from_device_ = true;
  for (uint32_t kind = 0; kind < greedy_kinds && st2.ok(); ++kind) {
    const uint32_t rows = kind == 0 ? 1 : R_, first_grid = static_cast<uint32_t>(rows_grids_.size());
    for (uint32_t slot = 0; slot < kGreedySteps && st2.ok(); ++slot) {
      VkCommandBuffer cb = greedy_cbs_[kind * kGreedySteps + slot];
      rows_grid_next_ = first_grid;  // the same grids each step
      counting_ = rows == R_ && slot == 0 ? &costs_.greedy : nullptr;  // costs(): a greedy step over every row
      st2 = record(&cb, 1, [&] { record_step(&cb, StepEnd::kGreedy, rows, slot); });
      counting_ = nullptr;
    }
  }
  rec_from_device_ = false;
  for (std::size_t g = 0; g < rows_grids_.size(); ++g) {  // greedy.comp's rules
    const GridRule& rule = rows_grids_[g];
    io_u_[io_rows_grid_per_ + 2 * g] = rule.x.by == AxisBy::kRows ? rule.x.n : 0;
    io_u_[io_rows_grid_per_ + 2 * g + 1] = rule.y.by == AxisBy::kRows ? rule.y.n : 0;
  }
  // The control words greedy.comp reads and writes (the step and row count,
  // each row's id, sentence, parent, wanted candidates and log-probability,
  // each sentence's last step, the status) in; the results out (encdec: no
  // attention rows, they stay the zeros the host's block starts with).
  if (st2.ok()) st2 = record(&greedy_in_cb_, 1, [&] {
    copy_io(greedy_in_cb_, true, io_rows_, io_t_ + 1);
    copy_io(greedy_in_cb_, true, io_tokens_, io_status_ + 1);
  });
  const uint32_t greedy_end = zero_attention_ ? io_greedy_att_ : io_greedy_end_;
  if (st2.ok()) st2 = record(&greedy_out_cb_, 1, [&] { copy_io(greedy_out_cb_, false, io_status_, greedy_end); });
  if (st2.ok())
    st2 = record(&vocab_cb_, 1, [&] { copy_io(vocab_cb_, true, io_width_, static_cast<uint32_t>(io_words_)); });
  if (st2.ok()) st2 = record(force_cbs_.data(), parts_, [&] { record_step(force_cbs_.data(), StepEnd::kForced, 1); });
  return st2.ok() ? record_fault_ : st2;
}

VkResult VulkanEngine::begin_part(VkCommandBuffer cb) {
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  const VkResult res = api_.vkBeginCommandBuffer(cb, &bi);
  if (res == VK_SUCCESS)
    api_.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, dev_.pipeline_layout, 0, 1, &set_, 0, nullptr);
  return res;
}

// Ends with a barrier that makes the writes visible to the host once the fence is signalled.
VkResult VulkanEngine::end_part(VkCommandBuffer cb) {
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  api_.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  return api_.vkEndCommandBuffer(cb);
}

void VulkanEngine::copy(VkCommandBuffer cb, const Buffer& from, const Buffer& to, const VkBufferCopy* regions,
                        uint32_t count) {
  api_.vkCmdCopyBuffer(cb, from.buffer, to.buffer, count, regions);
  barrier(cb);
}

// Row i's `width` words at `from` + i * from_ld to `to` + i * to_ld, i < rec_rows_.
static std::vector<VkBufferCopy> row_copies(uint32_t rows, uint32_t from, uint32_t from_ld, uint32_t to,
                                            uint32_t to_ld, uint32_t width) {
  std::vector<VkBufferCopy> regions(rows);
  for (uint32_t i = 0; i < rows; ++i)
    regions[i] = {uint64_t{from + i * from_ld} * 4, uint64_t{to + i * to_ld} * 4, uint64_t{width} * 4};
  return regions;
}

// The attention's query rows (additive) or the new top states (with state).
void VulkanEngine::copy_host_inputs(VkCommandBuffer cb, const StepOperation& op) {
  const uint32_t top = static_cast<uint32_t>(shapes_.dec_layers - 1) * d_;
  const std::vector<VkBufferCopy> rows = op.op == StepOp::kAttendAdditive
                                             ? row_copies(rec_rows_, q_, a_, x_in_, a_, a_)
                                             : row_copies(rec_rows_, state_next_ + top, state_, x_in_, d_, d_);
  copy(cb, act_, xchg_, rows.data(), rec_rows_);
}

// The contexts into the GRU input rows (additive) or the [c ; h] rows (with
// state); the attention rows and the position faults into the I/O block's
// device copy, where the device's attention writes them.
void VulkanEngine::copy_host_outputs(VkCommandBuffer cb, const StepOperation& op) {
  const uint32_t cat = A_ + d_;
  const std::vector<VkBufferCopy> rows = op.op == StepOp::kAttendAdditive
                                             ? row_copies(rec_rows_, x_out_, A_, x_ + e_, xw_, A_)
                                             : row_copies(rec_rows_, x_out_, cat, cat_, cat, cat);
  copy(cb, xchg_, act_, rows.data(), rec_rows_);
  const VkBufferCopy att{uint64_t{x_att_} * 4, uint64_t{io_att_} * 4, uint64_t{rec_rows_} * S_ * 4};
  copy(cb, xchg_, ctl_, &att, 1);
  if (!predicted_window_) return;
  const VkBufferCopy fault{uint64_t{x_fault_} * 4, uint64_t{io_fault_} * 4, uint64_t{rec_rows_} * 4};
  copy(cb, xchg_, ctl_, &fault, 1);
}

void VulkanEngine::run_host_op(const StepOperation& op) {
  const uint32_t rows = io_u_[io_rows_];
  const int t = static_cast<int>(io_u_[io_t_]);
  float* x = static_cast<float*>(xchg_.mapped);
  const std::size_t ann = A_, bs = S_;
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t b = io_u_[io_row_sent_ + r];
    const SourceMemory memory{x + x_ann_ + b * bs * ann, key_dim_ > 0 ? x + x_keys_ + b * bs * key_dim_ : nullptr,
                              static_cast<int>(io_u_[io_att_lens_ + b])};
    float* att = x + x_att_ + static_cast<std::size_t>(r) * S_;
    // The EOS column a source without EOS skipped (past the attended positions): 0.
    const uint32_t eos_at = io_u_[io_enc_lens_ + b];
    if (shapes_.skip_source_eos && eos_at >= 1) att[eos_at] = 0.0f;
    if (op.op == StepOp::kAttendAdditive) {
      attend_additive(k_, op, shapes_, x + x_in_ + static_cast<std::size_t>(r) * a_, memory, att,
                      x + x_out_ + r * ann);
      continue;
    }
    const float* h = x + x_in_ + static_cast<std::size_t>(r) * d_;
    float* row = x + x_out_ + r * (ann + d_);  // [c ; h]
    const bool finite = attend_with_state(k_, op, shapes_, h, t, memory, {host_query_, host_xq_}, att, row);
    std::memcpy(row + ann, h, sizeof(float) * d_);
    reinterpret_cast<uint32_t*>(x)[x_fault_ + r] = finite ? 0u : 1u;
  }
}

void VulkanEngine::barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  api_.vkCmdPipelineBarrier(cb, stages, stages | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, 0, 1, &mb, 0, nullptr, 0,
                            nullptr);
  if (counting_ != nullptr) ++counting_->barriers;
}

bool VulkanEngine::bind(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push,
                        uint32_t words) {
  Status error;
  const VkPipeline pipeline = dev_.pipeline(kernel, spec, &error);
  if (pipeline == VK_NULL_HANDLE) {
    if (record_fault_.ok()) record_fault_ = error;
    return false;
  }
  api_.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  api_.vkCmdPushConstants(cb, dev_.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, words * 4, push);
  if (counting_ != nullptr) ++counting_->dispatches;
  return true;
}

void VulkanEngine::dispatch(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push,
                            uint32_t words, uint32_t gx, uint32_t gy, uint32_t gz, RowsIn rows) {
  if (rec_from_device_ && rows.axis != RowsIn::kNone) {
    const GridAxis by_rows{AxisBy::kRows, rows.per};
    rows_grid(cb, kernel, spec, push, words, rows.axis == RowsIn::kX ? by_rows : GridAxis{AxisBy::kFixed, gx},
              rows.axis == RowsIn::kY ? by_rows : GridAxis{AxisBy::kFixed, gy});
    return;
  }
  if (gx == 0 || gy == 0 || gz == 0 || !bind(cb, kernel, spec, push, words)) return;
  api_.vkCmdDispatch(cb, gx, gy, gz);
  barrier(cb);
}

void VulkanEngine::dispatch_grid(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push,
                                 uint32_t words, GridBy by, uint32_t fixed, uint32_t per, RowsIn rows) {
  if (rec_from_device_ && by == GridBy::kWidth && rows.axis == RowsIn::kY) {
    rows_grid(cb, kernel, spec, push, words, {AxisBy::kWidth, per}, {AxisBy::kRows, rows.per});
    return;
  }
  std::vector<GridRule>& rules = by == GridBy::kPositions ? position_grids_ : width_grids_;
  const uint32_t room = by == GridBy::kPositions ? position_grids_room_ : width_grids_room_;
  const uint32_t first = by == GridBy::kPositions ? io_position_grids_ : io_width_grids_;
  if (rules.size() >= room) {
    if (record_fault_.ok()) record_fault_ = Status(StatusCode::kInternal, "Vulkan engine: grids past their room");
    return;
  }
  if (!bind(cb, kernel, spec, push, words)) return;
  const uint32_t grid = first + 3 * static_cast<uint32_t>(rules.size());
  if (by == GridBy::kPositions)
    rules.push_back({{AxisBy::kFixed, fixed}, {AxisBy::kPositions, per}});
  else
    rules.push_back({{AxisBy::kWidth, per}, {AxisBy::kFixed, fixed}});
  api_.vkCmdDispatchIndirect(cb, ctl_.buffer, uint64_t{grid} * 4);
  barrier(cb);
}

void VulkanEngine::rows_grid(VkCommandBuffer cb, Kernel kernel, const Specialization& spec, const uint32_t* push,
                             uint32_t words, GridAxis x, GridAxis y) {
  const uint32_t index = rows_grid_next_++;
  if (index >= rows_grids_room_) {
    if (record_fault_.ok()) record_fault_ = Status(StatusCode::kInternal, "Vulkan engine: grids past their room");
    return;
  }
  if (index == rows_grids_.size()) rows_grids_.push_back({x, y});
  if (!bind(cb, kernel, spec, push, words)) return;
  api_.vkCmdDispatchIndirect(cb, ctl_.buffer, uint64_t{io_rows_grids_ + 3 * index} * 4);
  barrier(cb);
}

RowsIn VulkanEngine::rows_in_tiles(uint32_t max_rows) {
  return {RowsIn::kY, max_rows == 1 ? 1 : kTileRows};
}

void VulkanEngine::write_grids(const std::vector<GridRule>& rules, uint32_t first, uint32_t rows) {
  auto groups = [&](const GridAxis& a) {
    switch (a.by) {
      case AxisBy::kFixed: return a.n;
      case AxisBy::kWidth: return groups_of(width_, a.n);
      case AxisBy::kRows: return groups_of(rows, a.n);
      case AxisBy::kPositions: return groups_of(positions_, a.n);
    }
    return a.n;
  };
  for (std::size_t g = 0; g < rules.size(); ++g) {
    uint32_t* grid = io_u_ + first + 3 * g;
    grid[0] = groups(rules[g].x);
    grid[1] = groups(rules[g].y);
    grid[2] = 1;
  }
}

void VulkanEngine::set_width(uint32_t width) {
  width_ = width;
  io_u_[io_width_] = width_;
  write_grids(width_grids_, io_width_grids_, 0);
}

void VulkanEngine::fill_zero(VkCommandBuffer cb, uint32_t off, uint32_t words) {
  api_.vkCmdFillBuffer(cb, act_.buffer, uint64_t{off} * 4, uint64_t{words} * 4, 0);
  barrier(cb);
}

void VulkanEngine::copy_io(VkCommandBuffer cb, bool to_device, uint32_t first, uint32_t end) {
  const VkBufferCopy c{uint64_t{first} * 4, uint64_t{first} * 4, uint64_t{end - first} * 4};
  api_.vkCmdCopyBuffer(cb, to_device ? io_.buffer : ctl_.buffer, to_device ? ctl_.buffer : io_.buffer, 1, &c);
  barrier(cb);
}

void VulkanEngine::product(VkCommandBuffer cb, const Term* terms, uint32_t nterms, uint32_t bias, uint32_t max_m,
                           uint32_t m_slot, uint32_t y_off, uint32_t ldy, uint32_t flags, uint32_t row_ids,
                           uint32_t rows_slot, bool positions) {
  uint32_t p[kPushWords] = {static_cast<uint32_t>(terms[0].w->rows),
                            bias,
                            y_off,
                            ldy,
                            max_m,
                            m_slot,
                            flags,
                            row_ids,
                            rows_slot,
                            positions ? io_positions_ : kNone};
  Specialization spec;  // product_kernel.glsl: the terms' types, their count, the rows per output
  spec.values[3] = nterms;
  spec.values[4] = (flags & 4) != 0 ? 2 : 1;
  uint32_t at = 10;
  for (uint32_t k = 0; k < 3; ++k) {
    const Term& t = terms[std::min(k, nterms - 1)];
    if (k < nterms) spec.values[k] = t.w->type;
    p[at++] = t.w->data;
    p[at++] = t.w->scales;
    p[at++] = t.x_off;
    p[at++] = t.ldx;
    p[at++] = static_cast<uint32_t>(t.w->cols);
    if (counting_ != nullptr && k < nterms) counting_->weight_bytes += t.w->bytes;
  }
  const uint32_t outputs = static_cast<uint32_t>(terms[0].w->rows) / ((flags & 4) != 0 ? 2 : 1);
  const uint32_t per = kWeightRows / spec.values[4];  // outputs an invocation
  const uint32_t gx = output_groups(outputs, positions ? kTileRows : max_m, per);
  if (positions)  // tiles of the batch's positions
    dispatch_grid(cb, Kernel::kProduct, spec, p, at, GridBy::kPositions, gx, kTileRows);
  else if (rows_slot == io_width_)  // the vocabulary's columns now
    dispatch_grid(cb, tiled(Kernel::kProduct, Kernel::kProductRow, max_m), spec, p, at, GridBy::kWidth,
                  tiles_of(max_m), group_outputs(max_m, per), rows_in_tiles(max_m));
  else
    dispatch(cb, tiled(Kernel::kProduct, Kernel::kProductRow, max_m), spec, p, at, gx, tiles_of(max_m), 1,
             rows_in_tiles(max_m));
}

// The encoder's inputs (counts, lengths, ids, positions) to the device;
// layer 0's input: the source embeddings, [b * S + j] rows.
void VulkanEngine::record_embeddings(VkCommandBuffer cb, const EncoderOperation& op) {
  copy_io(cb, true, 0, io_tokens_);
  // A sentence the encoder reads nothing of (its EOS alone, skipped) keeps
  // zero final states; the layers write every other sentence's.
  if (shapes_.skip_source_eos) {
    api_.vkCmdFillBuffer(cb, act_.buffer, uint64_t{finals_} * 4, uint64_t{B_} * finals_ld_ * 4, 0);
    if (lstm_) api_.vkCmdFillBuffer(cb, act_.buffer, uint64_t{final_cells_} * 4, uint64_t{B_} * finals_ld_ * 4, 0);
    barrier(cb);
  }
  const uint32_t bs = B_ * S_;
  const MatrixRef& emb = w_.matrix(op.matrix);
  const uint32_t p[] = {emb.data, emb.scales, e_, enc_a_, e_, bs, io_enc_rows_, io_src_, io_positions_};
  dispatch_grid(cb, Kernel::kEmbed, {{emb.type}}, p, sizeof p / 4, GridBy::kPositions, groups_of(e_, 64), 1);
}

// Layers ping-pong between enc_a_ and enc_b_: layer k reads one, writes the other.
static void layer_buffers(int layer, uint32_t a, uint32_t b, uint32_t* in, uint32_t* out) {
  *in = layer % 2 == 0 ? a : b;
  *out = layer % 2 == 0 ? b : a;
}

// A layer: its input projections over the batch's positions, then its
// recurrence in one dispatch (rnn_encoder_layer_kernel.glsl: a workgroup per
// tile of sentences and direction, looping over the positions), which also
// writes the layer's final states (and cells). Without the source's EOS, a
// sentence the encoder reads nothing of attends one zero annotation: the
// last layer's position 0 of every sentence is zeroed first (the others'
// are written over).
void VulkanEngine::record_layer(VkCommandBuffer cb, const EncoderOperation& op) {
  const int layer = op.layer;
  const uint32_t bs = B_ * S_;
  uint32_t in, out;
  layer_buffers(layer, enc_a_, enc_b_, &in, &out);
  const uint32_t in_dim = layer == 0 ? e_ : A_;
  const RnnRef& f = w_.rnn(op.forward);
  const RnnRef& b = w_.rnn(op.backward);  // none for a one-way layer
  const uint32_t directions = op.backward != nullptr ? 2 : 1;
  product(cb, f.w_ih, f.b_ih, in, in_dim, bs, io_enc_rows_, gi_f_, gates_ * n_, 0, true);  // the batch's positions
  if (directions == 2) product(cb, b.w_ih, b.b_ih, in, in_dim, bs, io_enc_rows_, gi_b_, gates_ * n_, 0, true);
  if (shapes_.skip_source_eos && layer == shapes_.enc_layers - 1) {
    for (uint32_t s = 0; s < B_; ++s)
      api_.vkCmdFillBuffer(cb, act_.buffer, uint64_t{out + s * S_ * A_} * 4, uint64_t{A_} * 4, 0);
    barrier(cb);
  }
  const uint32_t layer_at = static_cast<uint32_t>(layer) * A_;
  const uint32_t p[] = {n_,           S_,
                        io_live_,     io_order_,
                        io_enc_lens_, f.w_hh.data,
                        f.w_hh.scales, f.b_hh,
                        b.w_hh.data,  b.w_hh.scales,
                        b.b_hh,       gi_f_,
                        gi_b_,        h_,
                        out,          B_,
                        A_,           op.reverse ? 1u : 0u,
                        c_,           finals_ + layer_at,
                        lstm_ ? final_cells_ + layer_at : kNone, finals_ld_};
  const Kernel kernel = lstm_ ? tiled(Kernel::kLstmEncoderLayer, Kernel::kLstmEncoderLayerRow, B_)
                              : tiled(Kernel::kGruEncoderLayer, Kernel::kGruEncoderLayerRow, B_);
  dispatch(cb, kernel, {{f.w_hh.type, directions == 2 ? b.w_hh.type : f.w_hh.type}}, p, sizeof p / 4, 1,
           tiles_of(B_), directions);
}

// The encoder's operations in order: the embeddings, the layers, the
// attention keys (one product over the batch's positions), encdec's fixed
// contexts (the top layer's final states, already written) and each
// sentence's bridge state (record_bridge).
void VulkanEngine::record_encoder_op(VkCommandBuffer cb, const EncoderOperation& op) {
  const uint32_t bs = B_ * S_;
  switch (op.op) {
    case EncoderOp::kEmbed:
      record_embeddings(cb, op);
      break;
    case EncoderOp::kLayer:
      record_layer(cb, op);
      break;
    case EncoderOp::kKeys:
      product(cb, w_.matrix(op.matrix), w_.vector(op.bias), ann_, A_, bs, io_enc_rows_, keys_, key_dim_, 0, true);
      break;
    case EncoderOp::kFixedContext:
      break;  // c = F_top: the top layer's dispatch wrote its final states (top_final_)
    case EncoderOp::kBridge:
      record_bridge(cb, op);
      break;
  }
}

// Each sentence's first decoder state (WEIGHTS_FORMAT.md "Bridge"), as the
// CPU's init_state: into the next-state rows (the first step's gather copies
// them in); every layer's s_0, then with LSTM every layer's cell; a fed-back
// h~_{-1} = 0.
void VulkanEngine::record_bridge(VkCommandBuffer cb, const EncoderOperation& op) {
  fill_zero(cb, state_next_, B_ * state_);
  const uint32_t ld = static_cast<uint32_t>(shapes_.dec_layers) * d_;
  switch (op.init) {
    case DecoderInit::kTanhBackward:
    case DecoderInit::kTanhFinal: {  // tanh(W x + b), x = F_top or ←h_0; LSTM: the cells the same
      const bool final = op.init == DecoderInit::kTanhFinal;
      const uint32_t x = final ? top_final_ : ann_ + n_, ldx = final ? finals_ld_ : S_ * A_;
      product(cb, w_.matrix(op.matrix), w_.vector(op.bias), x, ldx, B_, io_sentences_, state_next_, state_, 2);
      if (lstm_)
        product(cb, w_.matrix(op.matrix), w_.vector(op.bias), x, ldx, B_, io_sentences_, state_next_ + cell_at_,
                state_, 2);
      break;
    }
    case DecoderInit::kFinal: {  // the finals are the states (and cells), layer by layer
      std::vector<VkBufferCopy> rows;
      for (uint32_t b = 0; b < B_; ++b) {
        rows.push_back({uint64_t{finals_ + b * finals_ld_} * 4, uint64_t{state_next_ + b * state_} * 4,
                        uint64_t{finals_ld_} * 4});
        if (lstm_)
          rows.push_back({uint64_t{final_cells_ + b * finals_ld_} * 4,
                          uint64_t{state_next_ + b * state_ + cell_at_} * 4, uint64_t{finals_ld_} * 4});
      }
      copy(cb, act_, act_, rows.data(), static_cast<uint32_t>(rows.size()));
      break;
    }
    case DecoderInit::kReluFinal: {  // each direction's piece of L n floats through one shared layer
      const uint32_t piece = static_cast<uint32_t>(shapes_.enc_layers) * n_;
      for (uint32_t q = 0; q < static_cast<uint32_t>(shapes_.directions); ++q) {
        product(cb, w_.matrix(op.matrix), w_.vector(op.bias), finals_ + q * piece, finals_ld_, B_, io_sentences_,
                state_next_ + q * piece, state_, 8);
        if (lstm_)
          product(cb, w_.matrix(op.cell_matrix), w_.vector(op.cell_bias), final_cells_ + q * piece, finals_ld_, B_,
                  io_sentences_, state_next_ + cell_at_ + q * piece, state_, 8);
      }
      break;
    }
    case DecoderInit::kLastForward: {  // the top layer's forward final state for every layer (LSTM: cells too)
      std::vector<VkBufferCopy> rows;
      for (uint32_t b = 0; b < B_; ++b)
        for (uint32_t at = 0; at < (lstm_ ? 2 * ld : ld); at += d_)
          rows.push_back({uint64_t{top_final_ + b * finals_ld_} * 4, uint64_t{state_next_ + b * state_ + at} * 4,
                          uint64_t{d_} * 4});
      copy(cb, act_, act_, rows.data(), static_cast<uint32_t>(rows.size()));
      break;
    }
    case DecoderInit::kZero:
      break;
  }
}

// One operation of the step (ops.hpp) as dispatches: each row's
// inputs by step_input, products by product.comp (several terms, bias,
// activation fused), the attention and the GRU cell by their kernels.
void VulkanEngine::record_step_op(VkCommandBuffer cb, const StepOperation& op) {
  const uint32_t top = static_cast<uint32_t>(shapes_.dec_layers - 1) * d_;
  switch (op.op) {
    case StepOp::kInput: {  // state_cur = state_next[parents]; x = [E y ; the fed input]
      uint32_t feed = 0, feed_off = 0, feed_ld = 0, feed_cols = 0;
      if (op.fed == FedInput::kFixedContext) {  // the sentence's fixed context
        feed = 1, feed_off = top_final_, feed_ld = finals_ld_, feed_cols = A_;
      } else if (op.fed == FedInput::kAttentional) {  // the parent row's h~ (after the layers' states)
        feed = 2, feed_off = state_next_ + fed_at_, feed_ld = state_, feed_cols = d_;
      }
      const MatrixRef& emb = w_.matrix(op.matrix);
      const uint32_t p[] = {state_next_, state_cur_, state_,   io_parents_, emb.data,     emb.scales, e_,
                            x_,          xw_,        rec_rows_, io_rows_,   io_tokens_,   io_row_sent_, feed,
                            feed_off,    feed_ld,    feed_cols, io_t_,      io_want_};
      dispatch(cb, Kernel::kStepInput, {{emb.type, rec_from_device_ ? 1u : 0u}}, p, sizeof p / 4,
               groups_of(state_ + e_ + feed_cols, 64), rec_rows_, 1, {RowsIn::kY, 1});
      break;
    }
    case StepOp::kQuery:
      product(cb, w_.matrix(op.matrix), kNone, state_cur_ + top, state_, rec_rows_, io_rows_, q_, a_, 0);
      break;
    case StepOp::kAttendAdditive: {  // the context into x[:, e:]
      const uint32_t p[] = {q_,       keys_,    w_.vector(op.vector), ann_,         io_att_,      x_ + e_,     xw_, a_,
                            A_,       S_,       rec_rows_,            io_rows_,     io_row_sent_, io_att_lens_, eos_slot()};
      dispatch(cb, Kernel::kAttendAdditive, {}, p, sizeof p / 4, rec_rows_, 1, 1, {RowsIn::kX, 1});
      break;
    }
    case StepOp::kRnn: {  // layer 0 reads x (E y alone where that is all x holds), layer k the new state of layer k - 1
      const RnnRef& g = w_.rnn(op.rnn);
      const uint32_t lo = static_cast<uint32_t>(op.layer) * d_;
      const uint32_t x_off = op.layer == 0 ? x_ : state_next_ + lo - d_, ldx = op.layer == 0 ? xw_ : state_;
      const uint32_t p[] = {d_,
                            rec_rows_,
                            io_rows_,
                            g.w_ih.data,
                            g.w_ih.scales,
                            x_off,
                            ldx,
                            static_cast<uint32_t>(g.w_ih.cols),
                            g.b_ih,
                            g.w_hh.data,
                            g.w_hh.scales,
                            state_cur_ + lo,
                            state_,
                            g.b_hh,
                            state_next_ + lo,
                            state_,
                            state_cur_ + cell_at_ + lo,  // LSTM: the row's cell in, its new one out
                            state_next_ + cell_at_ + lo};
      const Kernel kernel = lstm_ ? tiled(Kernel::kLstmStep, Kernel::kLstmStepRow, rec_rows_)
                                  : tiled(Kernel::kGruStep, Kernel::kGruStepRow, rec_rows_);
      dispatch(cb, kernel, {{g.w_ih.type, g.w_hh.type}}, p, sizeof p / 4,
               output_groups(d_, rec_rows_), tiles_of(rec_rows_), 1, rows_in_tiles(rec_rows_));
      if (counting_ != nullptr) counting_->weight_bytes += g.w_ih.bytes + g.w_hh.bytes;
      break;
    }
    case StepOp::kAttendWithState: {  // with the new top state h, writing [c ; h]
      const uint32_t h = state_next_ + top, cat = A_ + d_;
      uint32_t ldq = 0;
      if (op.scores == Scores::kAdditive || op.scores == Scores::kPosition) {  // the query: W_q h, or W_loc h
        ldq = op.scores == Scores::kAdditive ? a_ : static_cast<uint32_t>(op.matrix->rows);
        product(cb, w_.matrix(op.matrix), w_.vector(op.bias), h, state_, rec_rows_, io_rows_, q_, ldq, 0);
      }
      if (op.window == Window::kPredicted)
        product(cb, w_.matrix(op.position), kNone, h, state_, rec_rows_, io_rows_, qp_, a_, 0);
      const uint32_t score = luong_score(op.scores), window = luong_window(op.window);  // supports(op): not kNone
      const uint32_t keys = op.scores == Scores::kDot ? ann_ : keys_;
      const uint32_t key_dim = op.scores == Scores::kDot ? A_ : key_dim_;
      const uint32_t p[] = {score, window, static_cast<uint32_t>(op.window_d), io_t_, h, state_, d_, q_, ldq, qp_,
                            keys, key_dim, w_.vector(op.vector), w_.vector(op.position_vector), a_, ann_, A_, S_,
                            io_att_, cat_, cat, rec_rows_, io_rows_, io_row_sent_, io_att_lens_, io_fault_,
                            eos_slot()};
      dispatch(cb, Kernel::kAttendLuong, {}, p, sizeof p / 4, rec_rows_, 1, 1, {RowsIn::kX, 1});
      break;
    }
    case StepOp::kCombine:  // h~ = tanh(W_c [c ; h] + b) (bias, tanh: as op says) into the state when fed back, else t
      product(cb, w_.matrix(op.matrix), w_.vector(op.bias), cat_, A_ + d_, rec_rows_, io_rows_, gen_in_, gen_ld_,
              op.tanh ? 2 : 0);
      break;
    case StepOp::kMaxout: {  // t = maxout(U_o s + b_o + V_o E y + C_o c), the terms summed in the CPU engine's order
      const Term terms[] = {{&w_.matrix(op.from_state), state_next_ + top, state_},
                            {&w_.matrix(op.from_embedding), x_, xw_},
                            {&w_.matrix(op.from_context), x_ + e_, xw_}};
      product(cb, terms, 3, w_.vector(op.bias), rec_rows_, io_rows_, t_, l_, 4);
      break;
    }
    case StepOp::kOutput: {
      const Term gen{&w_.matrix(op.matrix), gen_in_, gen_ld_};
      product(cb, &gen, 1, w_.vector(op.bias), rec_rows_, io_rows_, logits_, V_, 0, io_vocab_ids_, io_width_);
      break;
    }
  }
}

void VulkanEngine::record_step(VkCommandBuffer* parts, StepEnd end_with, uint32_t rows, uint32_t slot) {
  rec_rows_ = rows;
  VkCommandBuffer cb = parts[0];
  for (const StepOperation& op : plan_.step) {
    if (supports(op)) {
      record_step_op(cb, op);
      continue;
    }
    // The cut: this part ends sending the op's inputs to the host; the next
    // begins with its outputs.
    copy_host_inputs(cb, op);
    VkResult res = end_part(cb);
    cb = *++parts;
    if (res == VK_SUCCESS) res = begin_part(cb);
    if (res != VK_SUCCESS && part_fault_.ok()) part_fault_ = vk_error("recording a step's parts", res);
    copy_host_outputs(cb, op);
  }
  if (end_with == StepEnd::kForced) {  // row 0's logits to the host
    VkBufferCopy copy{uint64_t{logits_} * 4, uint64_t{io_logits_} * 4, uint64_t{V_} * 4};
    api_.vkCmdCopyBuffer(cb, act_.buffer, io_.buffer, 1, &copy);
  } else {
    const uint32_t p[] = {logits_, V_, io_width_, K_, rec_rows_, io_rows_, io_want_, io_idx_, io_val_, io_lse_,
                          io_mask_, mask_words_, io_mask_on_, io_row_sent_};
    dispatch(cb, Kernel::kTopk, {}, p, sizeof p / 4, rec_rows_, 1, 1, {RowsIn::kX, 1});
  }
  if (end_with == StepEnd::kGreedy) {  // the choice and the next step's rows; greedy_out_cb_ copies the results
    const uint32_t p[] = {io_rows_,       io_t_,       io_tokens_,    io_row_sent_,
                          io_parents_,    io_row_logp_, io_t_max_,    io_status_,
                          io_idx_,        io_val_,     io_lse_,       K_,
                          io_vocab_ids_,  predicted_window_ ? io_fault_ : kNone, static_cast<uint32_t>(shapes_.eos_id),
                          zero_attention_ ? kNone : io_att_, S_, io_greedy_tok_, io_greedy_logp_,
                          io_greedy_att_, B_,          slot,        io_rows_grids_, io_rows_grid_per_,
                          static_cast<uint32_t>(rows_grids_.size()), io_lens_};
    dispatch(cb, Kernel::kGreedy, {}, p, sizeof p / 4, 1, 1);
    return;
  }
  if (end_with == StepEnd::kRows) {  // every row's logits to the host (top-k gave their log-sum-exp)
    VkBufferCopy copy{uint64_t{logits_} * 4, 0, uint64_t{rec_rows_} * V_ * 4};
    api_.vkCmdCopyBuffer(cb, act_.buffer, rows_.buffer, 1, &copy);
  }
  // The results to the host (each row's candidates, lse, fault flag and attention
  // row); record() ends with the barrier that makes them visible to it.
  // encdec has no attention: its rows stay the zeros the host's block starts with.
  const uint32_t end = zero_attention_ ? io_att_ : io_logits_;
  const VkBufferCopy back{uint64_t{io_idx_} * 4, uint64_t{io_idx_} * 4, uint64_t{end - io_idx_} * 4};
  api_.vkCmdCopyBuffer(cb, ctl_.buffer, io_.buffer, 1, &back);
}

std::size_t VulkanEngine::bucket_index(uint32_t rows) const {
  std::size_t b = 0;
  while (b + 1 < bucket_rows_.size() && bucket_rows_[b] < rows) ++b;
  return b;
}

bool VulkanEngine::run(const VkCommandBuffer* cbs, uint32_t count) {
  if (!fault_.ok()) return false;
  Status st = dev_.submit_and_wait(cbs, count, fence_);
  if (!st.ok()) fault_ = Status(StatusCode::kInternal, "the Vulkan device failed: " + st.message());
  return fault_.ok();
}

bool VulkanEngine::run_step(const VkCommandBuffer* parts) {
  for (uint32_t i = 0; i < parts_; ++i) {
    if (i > 0) run_host_op(*host_ops_[i - 1]);
    const VkCommandBuffer both[] = {vocab_cb_, parts[i]};
    const bool with_vocab = i == 0 && vocab_dirty_;
    if (with_vocab) vocab_dirty_ = false;
    if (!run(with_vocab ? both : both + 1, with_vocab ? 2 : 1)) return false;
  }
  return true;
}

void VulkanEngine::select_vocab(bool use, const int32_t* const* srcs, const int* lens, int n) {
  vocab_dirty_ = true;
  io_u_[io_mask_on_] = 0;
  vocab_.select(table_, use && shortlist_room_, srcs, lens, n, shapes_.eos_id);
  if (!vocab_.active()) {
    if (!identity_vocab_)
      for (uint32_t v = 0; v < V_; ++v) io_u_[io_vocab_ids_ + v] = v;
    identity_vocab_ = true;
    set_width(V_);
    return;
  }
  identity_vocab_ = false;
  write_union(nullptr, n);
}

// The union of the vocabularies of sentences[0..count) (null: 0..count),
// ascending (one sentence: its own), and with more than one each one's own
// columns as bits; copied to the device before the next step.
void VulkanEngine::write_union(const int32_t* sentences, int count) {
  vocab_dirty_ = true;
  union_sentences_ = count;
  set_width(static_cast<uint32_t>(vocab_.union_columns(sentences, count, union_pos_)));
  for (uint32_t v = 0; v < V_; ++v)
    if (union_pos_[v] >= 0) io_u_[io_vocab_ids_ + union_pos_[v]] = v;
  io_u_[io_mask_on_] = count > 1 ? 1 : 0;
  if (count < 2) return;
  for (int k = 0; k < count; ++k) {
    const int b = sentences != nullptr ? sentences[k] : k;
    uint32_t* bits = io_u_ + io_mask_ + static_cast<std::size_t>(b) * mask_words_;
    std::memset(bits, 0, sizeof(uint32_t) * mask_words_);
    for (int i = 0; i < vocab_.width(b); ++i) {
      const uint32_t c = static_cast<uint32_t>(union_pos_[vocab_.ids(b)[i]]);
      bits[c >> 5] |= 1u << (c & 31);
    }
  }
}

// Once half the sentences of the union have ended, the union of those left:
// the output layer and top-k of the steps that follow span fewer columns.
void VulkanEngine::narrow_union(const StepGroups& groups) {
  if (!vocab_.active() || groups.count * 2 > union_sentences_) return;
  write_union(groups.sentence, groups.count);
}

void VulkanEngine::start(const int32_t* const* srcs, const int* lens, int n) {
  io_u_[io_sentences_] = static_cast<uint32_t>(n);
  uint32_t positions = 0;
  std::fill(length_slots_, length_slots_ + S_ + 1, 0u);
  for (int b = 0; b < n; ++b) {
    // Without the source's EOS the encoder reads one position fewer, and
    // attention covers at least one (an empty source's zero annotation).
    const int enc_len = std::max(shapes_.skip_source_eos ? lens[b] - 1 : lens[b], 0);
    const int att_len = std::max(enc_len, 1);
    io_u_[io_lens_ + b] = static_cast<uint32_t>(lens[b]);
    io_u_[io_enc_lens_ + b] = static_cast<uint32_t>(enc_len);
    io_u_[io_att_lens_ + b] = static_cast<uint32_t>(att_len);
    uint32_t* row = io_u_ + io_src_ + static_cast<std::size_t>(b) * S_;
    for (int j = 0; j < lens[b]; ++j) row[j] = static_cast<uint32_t>(srcs[b][j]);
    // The rows of the encoder's products: the positions attention covers
    // (an empty source's one position gets its keys from the zero annotation).
    for (int j = 0; j < att_len; ++j)
      io_u_[io_positions_ + positions++] = static_cast<uint32_t>(b) * S_ + static_cast<uint32_t>(j);
    io_u_[io_parents_ + b] = static_cast<uint32_t>(b);  // row b starts from sentence b's bridge state
    ++length_slots_[enc_len];
  }
  io_u_[io_enc_rows_] = positions;
  positions_ = positions;
  write_grids(position_grids_, io_position_grids_, 0);
  // The sentences longest first (a counting sort, stable): length l's first
  // slot is the number of sentences longer than l; the sentences running at
  // step t are those longer than t.
  uint32_t longer = 0;
  for (uint32_t l = S_ + 1; l-- > 0;) {
    const uint32_t count = length_slots_[l];
    length_slots_[l] = longer;
    if (l < S_) io_u_[io_live_ + l] = longer;
    longer += count;
  }
  for (int b = 0; b < n; ++b) io_u_[io_order_ + length_slots_[io_u_[io_enc_lens_ + b]]++] = static_cast<uint32_t>(b);
  fault_ = Status::Ok();
  VkCommandBuffer submit[2];
  uint32_t count = 0;
  if (vocab_dirty_) {
    submit[count++] = vocab_cb_;
    vocab_dirty_ = false;
  }
  submit[count++] = encoder_cb_;
  run(submit, count);
}

// A local-p position that was not a number (damaged weights) in the last step.
bool VulkanEngine::position_fault(uint32_t rows) const {
  if (!predicted_window_) return false;
  for (uint32_t i = 0; i < rows; ++i)
    if (io_u_[io_fault_ + i] != 0) return true;
  return false;
}

uint32_t VulkanEngine::write_step_inputs(const StepGroups& groups, const int32_t* tokens, int t, bool one_candidate) {
  uint32_t rows = 0;
  for (int g = 0; g < groups.count; ++g)
    for (int r = 0; r < groups.rows[g]; ++r, ++rows) {
      io_u_[io_row_sent_ + rows] = static_cast<uint32_t>(groups.sentence[g]);
      io_u_[io_want_ + rows] = one_candidate ? 1u : static_cast<uint32_t>(groups.want[g]);
      io_u_[io_tokens_ + rows] = static_cast<uint32_t>(tokens[rows]);
    }
  io_u_[io_rows_] = rows;
  io_u_[io_t_] = static_cast<uint32_t>(t);
  return rows;
}

bool VulkanEngine::log_probs(const StepGroups& groups, const int32_t* tokens, int t) {
  narrow_union(groups);
  const uint32_t rows = write_step_inputs(groups, tokens, t, true);
  if (!run_step(&rows_cbs_[bucket_index(rows) * parts_])) return false;
  bool finite = !position_fault(rows);
  // Row r's own columns: the union's (width_), or those its sentence's mask keeps.
  const float* logits = static_cast<const float*>(rows_.mapped);
  const bool masked = io_u_[io_mask_on_] != 0;
  std::size_t out = 0;
  for (int g = 0, r = 0; g < groups.count; ++g) {
    const uint32_t* bits = masked ? io_u_ + io_mask_ + static_cast<std::size_t>(groups.sentence[g]) * mask_words_ : nullptr;
    for (int i = 0; i < groups.rows[g]; ++i, ++r) {
      const float* row = logits + static_cast<std::size_t>(r) * V_;
      const float lse = io_f_[io_lse_ + r];
      if (!std::isfinite(lse)) finite = false;
      for (uint32_t c = 0; c < width_; ++c)
        if (bits == nullptr || ((bits[c >> 5] >> (c & 31)) & 1u) != 0) host_rows_[out++] = row[c] - lse;
    }
  }
  return finite;
}

// Each row's best want[g] candidates from the device's top-k (the search
// merges each group's rows, candidates.hpp).
bool VulkanEngine::row_candidates(const StepGroups& groups, const int32_t* tokens, int t, RowCandidates* out) {
  narrow_union(groups);
  const uint32_t rows = write_step_inputs(groups, tokens, t, false);
  if (!run_step(&step_cbs_[bucket_index(rows) * parts_])) return false;
  bool finite = !position_fault(rows);
  for (uint32_t i = 0; i < rows; ++i)
    if (!std::isfinite(io_f_[io_lse_ + i])) finite = false;
  out->columns = reinterpret_cast<const int32_t*>(io_u_ + io_idx_);
  out->log_probs = io_f_ + io_val_;
  out->ids = io_u_ + io_vocab_ids_;
  out->stride = static_cast<int>(K_);
  return finite;
}

bool VulkanEngine::greedy(const StepGroups& groups, const int32_t* tokens, const float* row_logp, int t,
                          const int* t_max, int steps, GreedySteps* out) {
  narrow_union(groups);
  const uint32_t rows = write_step_inputs(groups, tokens, t, false);
  for (uint32_t r = 0; r < rows; ++r) io_f_[io_row_logp_ + r] = row_logp[r];
  for (int g = 0; g < groups.count; ++g)
    io_u_[io_t_max_ + groups.sentence[g]] = static_cast<uint32_t>(t_max[groups.sentence[g]]);
  io_u_[io_status_] = 0;
  uint32_t count = 0;
  if (vocab_dirty_) {
    greedy_submit_[count++] = vocab_cb_;
    vocab_dirty_ = false;
  }
  greedy_submit_[count++] = greedy_in_cb_;
  write_grids(rows_grids_, io_rows_grids_, rows);
  const std::size_t first = rows == 1 ? 0 : kGreedySteps;  // the one-row kernels, or the tiled ones
  for (uint32_t s = 0; s < std::min(static_cast<uint32_t>(steps), kGreedySteps); ++s)
    greedy_submit_[count++] = greedy_cbs_[first + s];
  greedy_submit_[count++] = greedy_out_cb_;
  if (!run(greedy_submit_.data(), count)) return false;
  out->tokens = reinterpret_cast<const int32_t*>(io_u_ + io_greedy_tok_);
  out->log_probs = io_f_ + io_greedy_logp_;
  out->attention = io_f_ + io_greedy_att_;
  out->sentences = static_cast<int>(B_);
  out->source = static_cast<int>(S_);
  return io_u_[io_status_] == 0;
}

const float* VulkanEngine::attention(int row) const {
  return io_f_ + io_att_ + static_cast<std::size_t>(row) * S_;
}

void VulkanEngine::reorder(const int32_t* parents, int n) {
  for (int i = 0; i < n; ++i) io_u_[io_parents_ + i] = static_cast<uint32_t>(parents[i]);
}

bool VulkanEngine::force_step(int32_t token, int t, float* logits) {
  io_u_[io_rows_] = 1;
  io_u_[io_t_] = static_cast<uint32_t>(t);
  io_u_[io_tokens_] = static_cast<uint32_t>(token);
  io_u_[io_row_sent_] = 0;
  if (!run_step(force_cbs_.data())) return false;
  io_u_[io_parents_] = 0;  // the next step continues this row
  std::memcpy(logits, io_f_ + io_logits_, sizeof(float) * V_);
  return !position_fault(1);
}

}  // namespace softalign::internal::vk
