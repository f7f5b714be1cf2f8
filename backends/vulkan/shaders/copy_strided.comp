#version 450
// Strided copy of 32-bit elements over a view of up to 6 dims (innermost
// last): element c of the view is read at in_offset + sum(c[d] * in_strides[d])
// and written at out_offset + sum(c[d] * out_strides[d]). permute, slice,
// select, expand (stride 0) and each input of cat are such views. When
// pos_index is not ~0u, the input offset also moves by pos[pos_index] *
// pos_stride, the position clamped to [0, pos_max]: a slice whose start is a position the graph holds on the device
// (et_vk.select_as_symint of input_pos), so one recording serves every step.
#extension GL_GOOGLE_include_directive : require
#include "float_storage.glsl"
layout(local_size_x = 64) in;
#include "common.glsl"

layout(std430, set = 0, binding = 0) writeonly buffer Out { WORD_T o[]; };
layout(std430, set = 0, binding = 1) readonly buffer In { WORD_T x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Pos { int pos[]; };
layout(push_constant) uniform Params {
  uint numel;  // elements of the view
  uint ndim;
  uint in_offset;
  uint out_offset;
  uint dims[6];
  uint in_strides[6];
  uint out_strides[6];
  uint pos_index;
  uint pos_stride;
  int pos_max;
} p;

void main() {
  const uint i = flat_index();
  if (i >= p.numel) return;
  uint rest = i;
  uint src = p.in_offset;
  if (p.pos_index != 0xFFFFFFFFu) src += uint(clamp(pos[p.pos_index], 0, p.pos_max)) * p.pos_stride;
  uint dst = p.out_offset;
  for (int d = int(p.ndim) - 1; d >= 0; --d) {
    const uint c = rest % p.dims[d];
    rest /= p.dims[d];
    src += c * p.in_strides[d];
    dst += c * p.out_strides[d];
  }
  o[dst] = x[src];
}
