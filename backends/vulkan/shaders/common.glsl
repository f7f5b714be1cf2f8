// Shared by every shader: the flat invocation index of a 1-D dispatch that
// was split over a 2-D grid of 64-wide workgroups (x first), so element
// counts above 64 * 65535 stay within the guaranteed workgroup-count limit.
uint flat_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
         gl_LocalInvocationID.x;
}
