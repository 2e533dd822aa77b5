#version 450
// rnn_encoder_layer_kernel.glsl's LSTM for one sentence (gru_encoder_layer_row.comp's layout).
#define TILE_ROWS 1u
#define GROUP_SIZE 256
#define LSTM 1
#include "rnn_encoder_layer_kernel.glsl"
