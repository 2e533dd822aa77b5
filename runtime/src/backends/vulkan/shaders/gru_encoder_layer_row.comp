#version 450
// rnn_encoder_layer_kernel.glsl for one sentence: one invocation per unit
// walks its gate rows whole (a layer's units fill the workgroup; lanes
// splitting a row, as product_row does, gave wrong states on lavapipe when a
// workgroup loops over several blocks of units).
#define TILE_ROWS 1u
#define GROUP_SIZE 256
#include "rnn_encoder_layer_kernel.glsl"
