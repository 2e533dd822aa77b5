// Products of a stored weight matrix with rows of activations, for shaders in
// which one invocation owns whole output rows of a tile of up to TM
// activation rows (workgroups of GROUP_SIZE invocations, 64 unless the
// shader says).
//
// The weights are stored for this (vulkan_weights.cpp): a row's columns in
// groups of 16 bytes (int8: 16 values, f16: 8, f32: 4; the last group padded
// with zeros), group g of row r at uvec4 index data / 4 + g * rows + r. The 64
// invocations of a workgroup read 64 neighbouring rows' groups: 1 KiB of
// contiguous memory per load, each thread walking its row's columns in order.
//
// The activations travel through shared memory in chunks of CHUNK 16-byte
// slots per row, loaded once per workgroup and read by every invocation:
// int8 weights multiply x quantized right here (per row, symmetric:
// scale = max|x| / 127, q = clamp(roundEven(x · 127 / max|x|)), as the CPU's
// quantize_i8) with int32 sums; f16 and f32 weights multiply the floats, summed
// in column order as the CPU's reference kernel.
#extension GL_EXT_control_flow_attributes : enable
#ifdef SOFTALIGN_SUBGROUP
// The KS lanes of an output sum their partial sums with subgroup shuffles
// (butterfly: lane l adds lane l ^ d's, d = KS/2 ... 1), not through shared
// memory and two barriers: the device's subgroups hold at least KS
// invocations, numbered in order (Device::open checks the size and support).
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#ifdef SOFTALIGN_INT_DOT
// Packed int8 dot products: OpSDot of two words of 4 signed bytes each
// (SPV_KHR_integer_dot_product; capabilities DotProduct and
// DotProductInput4x8BitPacked; the last operand PackedVectorFormat4x8Bit).
// Debian's glslang has no GL_EXT_integer_dot_product, so the instruction is
// declared here. The sums are the same integers as the plain path's.
#extension GL_EXT_spirv_intrinsics : require
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot_i8x4(uint a, uint b, spirv_literal int packed_vector_format);
#endif

// The buffer x is read from (a shader that writes its x declares a coherent view).
#ifndef X_ACT
#define X_ACT act
#endif
#ifndef GROUP_SIZE
#define GROUP_SIZE 64
#endif
#ifndef TILE_ROWS
#define TILE_ROWS 8u
#endif
#ifndef K_SPLIT
#define K_SPLIT 1u
#endif
// Weight rows an invocation owns: a GRU unit's three gates (and a product's
// outputs), an LSTM unit's four (the LSTM kernels define 4u).
#ifndef WEIGHT_ROWS
#define WEIGHT_ROWS 3u
#endif

layout(set = 0, binding = 0) readonly buffer WeightVec4 { uvec4 w4[]; };

const uint TM = TILE_ROWS;        // activation rows per workgroup
const uint CHUNK = 64u;    // 16-byte slots of x per row per chunk
const uint NRMAX = WEIGHT_ROWS;  // weight rows per invocation (a cell unit's gates; a product's outputs)
const uint GROUP = GROUP_SIZE;  // invocations per workgroup
// Invocations per output: each takes every KS-th 16-byte group of the
// columns, then lane 0 adds the lanes' sums in lane order (one row at a time,
// where outputs alone would leave the device idle: more threads, shorter walks).
const uint KS = K_SPLIT;
const uint OUTS = GROUP / KS;  // outputs per workgroup

// This invocation's output within the workgroup, and its lane among the KS.
uint out_slot() { return gl_LocalInvocationID.x / KS; }
uint out_lane() { return gl_LocalInvocationID.x % KS; }

shared uvec4 xs[TM * CHUNK];  // the chunk: int8 (16 per slot) or floats (4 per slot)
shared float red[(KS > 1u ? NRMAX : 1u) * TM * GROUP];  // row_scales' maxima; with KS > 1 the lanes' float sums
// With KS > 1 the lanes' int8 sums: as ints, not as float bits (a negative
// sum's bits are a NaN's, which a float load or store may quiet).
shared int red_i[KS > 1u ? NRMAX * TM * GROUP : 1u];
shared float xscale[TM];

// The tile: logical rows tile_first + i for i < tile_rows (<= TM), set by
// the shader; logical row k is buffer row k, or with a row map (the batch's
// source positions, packed) buffer row io[map + k].
uint tile_first, tile_rows, tile_map;

// This workgroup's tile of the m rows (y: tiles of TM), rows mapped as above
// (map NONE: buffer row = logical row). False when the tile is past m: the
// whole workgroup returns (uniform control flow).
bool tile_begin(uint m, uint map) {
  tile_first = gl_WorkGroupID.y * TM;
  if (tile_first >= m) return false;
  tile_rows = min(TM, m - tile_first);
  tile_map = map;
  return true;
}

uint tile_row(uint i) {
  const uint k = tile_first + i;
  return tile_map == NONE ? k : io[tile_map + k];
}


uint values_per_group(uint type) { return type == TYPE_I8 ? 16u : type == TYPE_F16 ? 8u : 4u; }

// max|x| of each tile row over cols columns, into xscale (then the x scale
// max / 127 of the int8 path, 0 for an all-zero row).
void row_scales(uint x_off, uint ldx, uint cols) {
  const uint t = gl_LocalInvocationID.x;
  [[unroll]] for (uint i = 0u; i < TM; ++i) {
    float a = 0.0;
    if (i < tile_rows)
      for (uint c = t; c < cols; c += GROUP) a = max(a, abs(X_ACT[x_off + tile_row(i) * ldx + c]));
    red[i * GROUP + t] = a;
  }
  barrier();
  if (t < TM) {
    float a = 0.0;
    for (uint s = 0u; s < GROUP; ++s) a = max(a, red[t * GROUP + s]);
    xscale[t] = a;
  }
  barrier();
}

// Loads slots [s0, s0 + slots) of every tile row into xs (zeros past cols; slots <= CHUNK).
void load_chunk(uint type, uint x_off, uint ldx, uint cols, uint s0, uint slots) {
  const uint t = gl_LocalInvocationID.x;
  const uint per = type == TYPE_I8 ? 16u : 4u;  // values per slot
  for (uint e = t; e < TM * slots; e += GROUP) {
    const uint i = e / slots, s = e % slots, c0 = (s0 + s) * per;
    uvec4 v = uvec4(0u);
    if (i < tile_rows && c0 < cols) {
      const uint x0 = x_off + tile_row(i) * ldx;
      if (type == TYPE_I8) {
        const float amax = xscale[i];
        const float inv = amax > 0.0 ? 127.0 / amax : 0.0;
        [[unroll]] for (uint b = 0u; b < 16u; ++b) {
          const uint c = c0 + b;
          if (c < cols && amax > 0.0) {
            const uint q = uint(int(clamp(roundEven(X_ACT[x0 + c] * inv), -127.0, 127.0))) & 0xFFu;
            v[b >> 2u] |= q << (8u * (b & 3u));
          }
        }
      } else {
        [[unroll]] for (uint b = 0u; b < 4u; ++b)
          if (c0 + b < cols) v[b] = floatBitsToUint(X_ACT[x0 + c0 + b]);
      }
    }
    xs[i * CHUNK + s] = v;
  }
}

// acc[q * TM + i] += row wr[q] of the matrix · tile row i, for q < nr (int8:
// accumulated in acci; f16, f32: in accf, in column order). Every invocation
// of the workgroup must call it (it loads the chunks); `live` says whether
// this one's rows exist. For int8, call row_scales first.
void term_product(uint type, uint data, uint wrows, uint cols, uint x_off, uint ldx, bool live, uint wr[NRMAX],
                  uint nr, inout int acci[NRMAX * TM], inout float accf[NRMAX * TM]) {
  const uint vpg = values_per_group(type);
  const uint groups = (cols + vpg - 1u) / vpg;
  const uint base = data / 4u;
  // Slots of x per weight group: int8 1 (16 values), f16 2 (8 floats), f32 1 (4 floats).
  const uint spg = type == TYPE_F16 ? 2u : 1u;
  const uint gpc = CHUNK / spg;  // weight groups per chunk
  for (uint g0 = 0u; g0 < groups; g0 += gpc) {
    barrier();  // the previous chunk is no longer read
    const uint gend = min(groups - g0, gpc);
    load_chunk(type, x_off, ldx, cols, g0 * spg, gend * spg);
    barrier();
    if (!live) continue;
    for (uint g = out_lane(); g < gend; g += KS) {  // gpc is a multiple of KS
      if (type == TYPE_I8) {
        // Each weight byte and each x byte is unpacked once and used for
        // every (weight row, tile row) pair.
        uvec4 wq[NRMAX];
        [[unroll]] for (uint q = 0u; q < NRMAX; ++q)
          if (q < nr) wq[q] = w4[base + (g0 + g) * wrows + wr[q]];
        uvec4 xq[TM];
        [[unroll]] for (uint i = 0u; i < TM; ++i) xq[i] = xs[i * CHUNK + g];
#ifdef SOFTALIGN_INT_DOT
        [[unroll]] for (uint c = 0u; c < 4u; ++c)
          [[unroll]] for (uint q = 0u; q < NRMAX; ++q)
            if (q < nr)
              [[unroll]] for (uint i = 0u; i < TM; ++i) acci[q * TM + i] += sdot_i8x4(wq[q][c], xq[i][c], 0);
#else
        [[unroll]] for (uint c = 0u; c < 4u; ++c) {
          [[unroll]] for (uint k = 0u; k < 32u; k += 8u) {
            int wb[NRMAX];
            [[unroll]] for (uint q = 0u; q < NRMAX; ++q)
              if (q < nr) wb[q] = bitfieldExtract(int(wq[q][c]), int(k), 8);
            [[unroll]] for (uint i = 0u; i < TM; ++i) {
              const int xb = bitfieldExtract(int(xq[i][c]), int(k), 8);
              [[unroll]] for (uint q = 0u; q < NRMAX; ++q)
                if (q < nr) acci[q * TM + i] += wb[q] * xb;
            }
          }
        }
#endif
        continue;
      }
      [[unroll]] for (uint q = 0u; q < NRMAX; ++q) {
        if (q >= nr) continue;
        const uvec4 wv = w4[base + (g0 + g) * wrows + wr[q]];
        if (type == TYPE_F16) {
          const vec2 w01 = unpackHalf2x16(wv.x), w23 = unpackHalf2x16(wv.y);
          const vec2 w45 = unpackHalf2x16(wv.z), w67 = unpackHalf2x16(wv.w);
          [[unroll]] for (uint i = 0u; i < TM; ++i) {
            if (i >= tile_rows) continue;
            const vec4 xa = uintBitsToFloat(xs[i * CHUNK + 2u * g]);
            const vec4 xb = uintBitsToFloat(xs[i * CHUNK + 2u * g + 1u]);
            float a = accf[q * TM + i];
            a += w01.x * xa.x;
            a += w01.y * xa.y;
            a += w23.x * xa.z;
            a += w23.y * xa.w;
            a += w45.x * xb.x;
            a += w45.y * xb.y;
            a += w67.x * xb.z;
            a += w67.y * xb.w;
            accf[q * TM + i] = a;
          }
        } else {
          const vec4 wf = uintBitsToFloat(wv);
          [[unroll]] for (uint i = 0u; i < TM; ++i) {
            if (i >= tile_rows) continue;
            const vec4 xa = uintBitsToFloat(xs[i * CHUNK + g]);
            float a = accf[q * TM + i];
            a += wf.x * xa.x;
            a += wf.y * xa.y;
            a += wf.z * xa.z;
            a += wf.w * xa.w;
            accf[q * TM + i] = a;
          }
        }
      }
    }
  }
#ifdef SOFTALIGN_SUBGROUP
  if (KS > 1u) {  // every lane of an output: the lanes' sums (int8: the same integers)
    [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
      if (k >= nr * TM) break;
      [[unroll]] for (uint d = KS / 2u; d > 0u; d >>= 1u) {
        if (type == TYPE_I8)
          acci[k] += subgroupShuffleXor(acci[k], d);
        else
          accf[k] += subgroupShuffleXor(accf[k], d);
      }
    }
  }
#else
  if (KS > 1u) {  // lane 0 of each output: the lanes' sums, in lane order
    const uint t = gl_LocalInvocationID.x;
    barrier();
    [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k)
      if (k < nr * TM) {
        if (type == TYPE_I8)
          red_i[t * NRMAX * TM + k] = acci[k];
        else
          red[t * NRMAX * TM + k] = accf[k];
      }
    barrier();
    if (out_lane() == 0u) {
      [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
        if (k >= nr * TM) break;
        int si = 0;
        float sf = 0.0;
        for (uint l = 0u; l < KS; ++l) {
          if (type == TYPE_I8)
            si += red_i[(t + l) * NRMAX * TM + k];
          else
            sf += red[(t + l) * NRMAX * TM + k];
        }
        acci[k] = si;
        accf[k] = sf;
      }
    }
    barrier();  // red is free again
  }
#endif
}

// The value of output q, tile row i, after term_product: int8 sums scaled by
// the weight row's scale times the x row's (as the CPU: acc * (sw * sx)).
float term_value(uint type, uint scales, uint wr, uint q, uint i, int acci[NRMAX * TM], float accf[NRMAX * TM]) {
  if (type != TYPE_I8) return accf[q * TM + i];
  const float amax = xscale[i];
  const float sx = amax > 0.0 ? amax / 127.0 : 0.0;
  return float(acci[q * TM + i]) * (weight_f32(scales + wr) * sx);
}

// A recurrent layer's products for unit u of n (live: u < n): its NRMAX gate
// rows u, n + u, ... (GRU r, z, n; LSTM i, f, g, o) of an [NRMAX n, cols]
// matrix times the tile's rows of x, plus the bias, into gates[gate * TM + i]
// (valid on lane 0 of the unit). Every invocation of the workgroup must call it.
void cell_gates(uint type, uint data, uint scales, uint bias, uint n, uint cols, uint x_off, uint ldx, uint u,
                bool live, out float gates[NRMAX * TM]) {
  uint wr[NRMAX];
  [[unroll]] for (uint q = 0u; q < NRMAX; ++q) wr[q] = live ? q * n + u : 0u;
  int acci[NRMAX * TM];
  float accf[NRMAX * TM];
  [[unroll]] for (uint k = 0u; k < NRMAX * TM; ++k) {
    acci[k] = 0;
    accf[k] = 0.0;
    gates[k] = 0.0;
  }
  if (type == TYPE_I8) row_scales(x_off, ldx, cols);
  term_product(type, data, NRMAX * n, cols, x_off, ldx, live, wr, NRMAX, acci, accf);
  if (live && out_lane() == 0u) {
    [[unroll]] for (uint q = 0u; q < NRMAX; ++q)
      [[unroll]] for (uint i = 0u; i < TM; ++i)
        if (i < tile_rows) gates[q * TM + i] = term_value(type, scales, wr[q], q, i, acci, accf) + bias_at(bias, wr[q]);
  }
}

// PyTorch's GRU cell from gi = W_ih x + b_ih and gh = W_hh h + b_hh (gates r, z, n).
float gru_cell(float gi_r, float gi_z, float gi_n, float gh_r, float gh_z, float gh_n, float h) {
  const float r = sigmoid(gi_r + gh_r);
  const float z = sigmoid(gi_z + gh_z);
  const float c = tanh(gi_n + r * gh_n);
  return (1.0 - z) * c + z * h;
}

// PyTorch's LSTM cell from gi = W_ih x + b_ih and gh = W_hh h + b_hh (gates
// i, f, g, o) and the previous cell c: the new cell, and the new state o tanh(c').
float lstm_cell(float gi_i, float gi_f, float gi_g, float gi_o, float gh_i, float gh_f, float gh_g, float gh_o, float c,
                out float h) {
  const float i = sigmoid(gi_i + gh_i);
  const float f = sigmoid(gi_f + gh_f);
  const float g = tanh(gi_g + gh_g);
  const float o = sigmoid(gi_o + gh_o);
  const float c_new = f * c + i * g;
  h = o * tanh(c_new);
  return c_new;
}
