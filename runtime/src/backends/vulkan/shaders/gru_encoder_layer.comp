#version 450
// rnn_encoder_layer_kernel.glsl for tiles of 4 sentences (a batch).
#define TILE_ROWS 4u
#define GROUP_SIZE 256
#include "rnn_encoder_layer_kernel.glsl"
