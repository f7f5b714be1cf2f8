// Compatibility layer (extension/compat): the official runtime's EventTracer
// hooks (scopes and helpers its runtime and kernels call). As in the official
// runtime they do nothing unless ET_EVENT_TRACER_ENABLED is defined, and
// nothing when the tracer is null. etr's own runtime feeds an EventTracer
// from its ExecuteObserver (see extension/compat/program.cpp), not from these.
#pragma once

#include <executorch/runtime/core/event_tracer.h>

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace internal {

// Profiles its lifetime as an event named `name`, unless the tracer's
// profiling level is kProfileMethodOnly.
class EventTracerProfileOpScope final {
 public:
  EventTracerProfileOpScope(EventTracer* event_tracer, const char* name) {
#ifdef ET_EVENT_TRACER_ENABLED
    tracer_ = event_tracer;
    if (tracer_ != nullptr &&
        tracer_->event_tracer_profiling_level() > EventTracerProfilingLevel::kProfileMethodOnly) {
      entry_ = tracer_->start_profiling(name);
    }
#else
    (void)event_tracer;
    (void)name;
#endif
  }
  ~EventTracerProfileOpScope() {
#ifdef ET_EVENT_TRACER_ENABLED
    if (tracer_ != nullptr &&
        tracer_->event_tracer_profiling_level() > EventTracerProfilingLevel::kProfileMethodOnly) {
      tracer_->end_profiling(entry_);
    }
#endif
  }

 private:
#ifdef ET_EVENT_TRACER_ENABLED
  EventTracer* tracer_ = nullptr;
  EventTracerEntry entry_{};
#endif
};

using EventTracerProfileScope = EventTracerProfileOpScope;

// Profiles its lifetime as an event named `name` at every profiling level.
class EventTracerProfileMethodScope final {
 public:
  EventTracerProfileMethodScope(EventTracer* event_tracer, const char* name) {
#ifdef ET_EVENT_TRACER_ENABLED
    tracer_ = event_tracer;
    if (tracer_ != nullptr) entry_ = tracer_->start_profiling(name);
#else
    (void)event_tracer;
    (void)name;
#endif
  }
  ~EventTracerProfileMethodScope() {
#ifdef ET_EVENT_TRACER_ENABLED
    if (tracer_ != nullptr) tracer_->end_profiling(entry_);
#endif
  }

 private:
#ifdef ET_EVENT_TRACER_ENABLED
  EventTracer* tracer_ = nullptr;
  EventTracerEntry entry_{};
#endif
};

// Sets the tracer's chain and debug handle for its lifetime (unset after).
class EventTracerProfileInstructionScope final {
 public:
  EventTracerProfileInstructionScope(EventTracer* event_tracer, ChainID chain_idx,
                                     DebugHandle debug_handle) {
#ifdef ET_EVENT_TRACER_ENABLED
    tracer_ = event_tracer;
    if (tracer_ != nullptr) tracer_->set_chain_debug_handle(chain_idx, debug_handle);
#else
    (void)event_tracer;
    (void)chain_idx;
    (void)debug_handle;
#endif
  }
  ~EventTracerProfileInstructionScope() {
#ifdef ET_EVENT_TRACER_ENABLED
    if (tracer_ != nullptr) tracer_->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
#endif
  }

 private:
#ifdef ET_EVENT_TRACER_ENABLED
  EventTracer* tracer_ = nullptr;
#endif
};

inline bool event_tracer_enabled() {
#ifdef ET_EVENT_TRACER_ENABLED
  return true;
#else
  return false;
#endif
}

inline void event_tracer_create_event_block(EventTracer* event_tracer, char const* name) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) event_tracer->create_event_block(name);
#else
  (void)event_tracer;
  (void)name;
#endif
}

inline EventTracerEntry event_tracer_begin_profiling_event(EventTracer* event_tracer,
                                                           char const* name) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) return event_tracer->start_profiling(name);
#else
  (void)event_tracer;
  (void)name;
#endif
  return EventTracerEntry();
}

inline void event_tracer_end_profiling_event(EventTracer* event_tracer, EventTracerEntry event) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) event_tracer->end_profiling(event);
#else
  (void)event_tracer;
  (void)event;
#endif
}

inline AllocatorID event_tracer_track_allocator(EventTracer* event_tracer, const char* name) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) return event_tracer->track_allocator(name);
#else
  (void)event_tracer;
  (void)name;
#endif
  return 0;
}

inline void event_tracer_track_allocation(EventTracer* event_tracer, AllocatorID id, size_t size) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) event_tracer->track_allocation(id, size);
#else
  (void)event_tracer;
  (void)id;
  (void)size;
#endif
}

// Logs an intermediate output when the tracer's level asks for them.
inline void event_tracer_log_evalue(EventTracer* event_tracer, EValue& evalue) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr &&
      event_tracer->event_tracer_debug_level() >= EventTracerDebugLogLevel::kIntermediateOutputs) {
    event_tracer->log_evalue(evalue, LoggedEValueType::kIntermediateOutput);
  }
#else
  (void)event_tracer;
  (void)evalue;
#endif
}

// Logs a method output when the tracer's level asks for them.
inline void event_tracer_log_evalue_output(EventTracer* event_tracer, const EValue& evalue) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr &&
      event_tracer->event_tracer_debug_level() >= EventTracerDebugLogLevel::kProgramOutputs) {
    event_tracer->log_evalue(evalue, LoggedEValueType::kProgramOutput);
  }
#else
  (void)event_tracer;
  (void)evalue;
#endif
}

inline void event_tracer_set_bundled_input_index(EventTracer* event_tracer,
                                                 int bundled_input_index) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) event_tracer->set_bundled_input_index(bundled_input_index);
#else
  (void)event_tracer;
  (void)bundled_input_index;
#endif
}

}  // namespace internal
}  // namespace ET_RUNTIME_NAMESPACE
}  // namespace executorch

namespace torch {
namespace executor {
namespace internal {
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_begin_profiling_event;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_create_event_block;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_end_profiling_event;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_log_evalue;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_log_evalue_output;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_set_bundled_input_index;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_track_allocation;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::event_tracer_track_allocator;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileInstructionScope;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileMethodScope;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileOpScope;
using ::executorch::ET_RUNTIME_NAMESPACE::internal::EventTracerProfileScope;
}  // namespace internal
}  // namespace executor
}  // namespace torch
