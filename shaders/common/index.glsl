// index.glsl — invocation index for 1D dispatches.
// cs_dispatch folds 1D dispatches longer than maxComputeWorkGroupCount.x into
// a 2D grid of workgroups; these undo the fold. Always bounds-check after.
// Macros, not functions: gl_WorkGroupSize must be read after the shader's
// local_size declaration, which may come after this include.
#ifndef CS_INDEX_GLSL
#define CS_INDEX_GLSL
#define cs_linear_group() (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x)
#define cs_linear_index() (cs_linear_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x)
#endif
