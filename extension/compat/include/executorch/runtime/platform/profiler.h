// Compatibility layer (extension/compat): the official profiling macros.
// etr profiles through its own execute observer (and Chrome traces), so
// these compile to nothing, as in an official build without profiling.
#pragma once

#include <cstddef>
#include <cstdint>

#define EXECUTORCH_PROFILE_CREATE_BLOCK(name) ((void)(name))
#define EXECUTORCH_BEGIN_PROF(name) ((void)(name), 0u)
#define EXECUTORCH_END_PROF(token_id) ((void)(token_id))
#define EXECUTORCH_SCOPE_PROF(name) ((void)(name))
#define EXECUTORCH_PROFILE_INSTRUCTION_SCOPE(chain_idx, instruction_idx) \
  ((void)(chain_idx), (void)(instruction_idx))
#define EXECUTORCH_DUMP_PROFILE_RESULTS(prof_result) ((void)(prof_result))
#define EXECUTORCH_RESET_PROFILE_RESULTS() ((void)0)
#define EXECUTORCH_TRACK_ALLOCATOR(name) ((void)(name), -1)
#define EXECUTORCH_TRACK_ALLOCATION(id, size) ((void)(id), (void)(size))
