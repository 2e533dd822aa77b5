// What every shader shares: the three buffers and how a stored weight is read.
//   binding 0: the model's weights (uploaded once per Model), as 32-bit words;
//              f32 as floats, f16 two to a word, int8 four to a word (little
//              endian, any byte offset), per-row scales and vectors as floats.
//   binding 1: the translator's device buffers (floats; int8-quantized
//              activations as packed words).
//   binding 2: the I/O block's device-local copy, what the shaders read and
//              write: counts, ids, the step's results (copied to and from
//              the host's block by the engine's command buffers).
//   binding 3: the host-visible I/O block itself (only step_input reads it:
//              the step's rows, tokens and parents, which it copies over).
// Offsets in push constants count 32-bit words from the start of a buffer.
#extension GL_EXT_control_flow_attributes : enable

layout(set = 0, binding = 0) readonly buffer WeightWords { uint w[]; };
layout(set = 0, binding = 1) buffer ActFloats { float act[]; };
layout(set = 0, binding = 1) buffer ActWords { uint act_u[]; };
layout(set = 0, binding = 2) buffer IoWords { uint io[]; };
layout(set = 0, binding = 2) buffer IoFloats { float io_f[]; };
layout(set = 0, binding = 3) readonly buffer HostWords { uint host[]; };

const uint NONE = 0xFFFFFFFFu;
const uint TYPE_F32 = 0u;
const uint TYPE_F16 = 1u;
const uint TYPE_I8 = 2u;

// Byte `index` of an int8 matrix starting at word `base`, sign-extended.
int weight_i8(uint base, uint index) {
  const uint b = base * 4u + index;
  return bitfieldExtract(int(w[b >> 2u]), int((b & 3u) * 8u), 8);
}

// Element `index` of a stored matrix starting at word `base` (int8 unscaled).
float weight(uint type, uint base, uint index) {
  if (type == TYPE_F32) return uintBitsToFloat(w[base + index]);
  if (type == TYPE_F16) {
    const uint h = base * 2u + index;
    const vec2 pair = unpackHalf2x16(w[h >> 1u]);
    return (h & 1u) == 0u ? pair.x : pair.y;
  }
  return float(weight_i8(base, index));
}

float weight_f32(uint offset) { return uintBitsToFloat(w[offset]); }

// Element r of a stored vector (a bias), 0 where there is none.
float bias_at(uint vec, uint r) { return vec == NONE ? 0.0 : uintBitsToFloat(w[vec + r]); }

// A count fixed when the command buffer was recorded, or read from the I/O block.
uint count_of(uint fixed_count, uint slot) { return slot == NONE ? fixed_count : io[slot]; }

float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
