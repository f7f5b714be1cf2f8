// XNNPACK on the runtime's own pool. Debian's libXNNPACK calls
// libpthreadpool's pthreadpool_parallelize_* functions on the pool object it
// was given; pthreadpool_shim.cpp defines those functions itself, so in a
// process where its definitions are the ones the dynamic linker binds (a
// program that links this library and libXNNPACK), a handle from
// make_handle() runs XNNPACK's operators through a PthreadPool's
// parallel_for: its caller claims chunks itself and never waits for a
// worker that has not started, and its idle workers sleep after 100 us,
// where libpthreadpool's caller and workers spin for about a million pauses
// each (milliseconds of CPU time per operator on a host with more busy
// threads than cores). Pool objects made by libpthreadpool itself are
// passed on to its functions unchanged.
#pragma once

struct pthreadpool;

namespace etr {
class ThreadPool;
namespace pool_shim {

// True when the pthreadpool_parallelize_* functions this process resolves
// are those of pthreadpool_shim.cpp (so a handle from make_handle() is
// safe to give to XNNPACK).
bool active();

// A pthreadpool handle whose parallelize calls run on `pool` (which must
// outlive it); free it with destroy_handle. Null when memory is short.
pthreadpool* make_handle(ThreadPool* pool);
void destroy_handle(pthreadpool* handle);

}  // namespace pool_shim
}  // namespace etr
