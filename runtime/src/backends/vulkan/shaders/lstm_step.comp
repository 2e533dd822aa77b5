#version 450
// rnn_step_kernel.glsl's LSTM for tiles of 4 rows (decoder LSTM steps over many rows).
#define TILE_ROWS 4u
#define LSTM 1
#include "rnn_step_kernel.glsl"
