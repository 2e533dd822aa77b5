#version 450
// gru_step_kernel.glsl for tiles of 8 rows (decoder GRU steps over many rows).
#define TILE_ROWS 4u
#include "gru_step_kernel.glsl"
