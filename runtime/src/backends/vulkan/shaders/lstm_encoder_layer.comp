#version 450
// rnn_encoder_layer_kernel.glsl's LSTM for tiles of 4 sentences (a batch).
#define TILE_ROWS 4u
#define GROUP_SIZE 256
#define LSTM 1
#include "rnn_encoder_layer_kernel.glsl"
