#version 450
// gru_encoder_step_kernel.glsl for tiles of 8 rows (encoder positions over many rows).
#define TILE_ROWS 4u
#include "gru_encoder_step_kernel.glsl"
