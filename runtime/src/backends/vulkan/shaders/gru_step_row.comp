#version 450
// rnn_step_kernel.glsl for one row at a time, 8 invocations per output (decoder GRU steps of one sentence, greedy).
#define TILE_ROWS 1u
#define K_SPLIT 8u
#include "rnn_step_kernel.glsl"
