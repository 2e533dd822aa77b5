#version 450
// rnn_step_kernel.glsl for tiles of 4 rows (decoder GRU steps over many rows).
#define TILE_ROWS 4u
#include "rnn_step_kernel.glsl"
