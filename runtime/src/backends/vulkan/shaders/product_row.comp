#version 450
// product_kernel.glsl for one row at a time, 8 invocations per output (products of one sentence, greedy).
#define TILE_ROWS 1u
#define K_SPLIT 8u
#include "product_kernel.glsl"
