#version 450
// rnn_step_kernel.glsl's LSTM for one row at a time, 8 invocations per output (decoder LSTM steps of one sentence, greedy).
#define TILE_ROWS 1u
#define K_SPLIT 8u
#define LSTM 1
#include "rnn_step_kernel.glsl"
