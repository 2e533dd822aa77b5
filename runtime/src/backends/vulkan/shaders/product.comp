#version 450
// product_kernel.glsl for tiles of 8 rows (products over many rows).
#define TILE_ROWS 4u
#include "product_kernel.glsl"
