// Compatibility layer (extension/compat): the official hooks a delegate calls
// to report its own events (sub-operator timings, intermediate outputs) to
// the method's EventTracer (BackendExecutionContext::event_tracer()). They do
// nothing unless ET_EVENT_TRACER_ENABLED is defined, or when the tracer is null.
// A sub-event is named either by a string or by an int id (-1: none), not both.
#pragma once

#include <executorch/runtime/core/array_ref.h>
#include <executorch/runtime/core/event_tracer.h>

#include <type_traits>

namespace executorch {
namespace runtime {

inline EventTracerEntry event_tracer_start_profiling_delegate(EventTracer* event_tracer,
                                                              const char* name,
                                                              DebugHandle delegate_debug_id) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr)
    return event_tracer->start_profiling_delegate(name, delegate_debug_id);
#else
  (void)event_tracer;
  (void)name;
  (void)delegate_debug_id;
#endif
  return EventTracerEntry();
}

inline void event_tracer_end_profiling_delegate(EventTracer* event_tracer,
                                                EventTracerEntry event_tracer_entry,
                                                const void* metadata = nullptr,
                                                size_t metadata_len = 0) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr)
    event_tracer->end_profiling_delegate(event_tracer_entry, metadata, metadata_len);
#else
  (void)event_tracer;
  (void)event_tracer_entry;
  (void)metadata;
  (void)metadata_len;
#endif
}

// An event the delegate timed itself (e.g. from a device's timestamps).
inline void event_tracer_log_profiling_delegate(EventTracer* event_tracer, const char* name,
                                                DebugHandle delegate_debug_id,
                                                et_timestamp_t start_time, et_timestamp_t end_time,
                                                const void* metadata = nullptr,
                                                size_t metadata_len = 0) {
#ifdef ET_EVENT_TRACER_ENABLED
  if (event_tracer != nullptr) {
    event_tracer->log_profiling_delegate(name, delegate_debug_id, start_time, end_time, metadata,
                                         metadata_len);
  }
#else
  (void)event_tracer;
  (void)name;
  (void)delegate_debug_id;
  (void)start_time;
  (void)end_time;
  (void)metadata;
  (void)metadata_len;
#endif
}

// An intermediate output of the delegate: int, bool, double, a Tensor or an
// ArrayRef of Tensors.
template <typename T>
inline void event_tracer_log_output_delegate(EventTracer* event_tracer, const char* name,
                                             DebugHandle delegate_debug_id, const T& output) {
#ifdef ET_EVENT_TRACER_ENABLED
  static_assert(std::is_same<T, int>::value || std::is_same<T, bool>::value ||
                    std::is_same<T, double>::value ||
                    std::is_same<T, executorch::aten::Tensor>::value ||
                    std::is_same<T, ArrayRef<executorch::aten::Tensor>>::value,
                "Unsupported type for intermediate output");
  if (event_tracer != nullptr)
    event_tracer->log_intermediate_output_delegate(name, delegate_debug_id, output);
#else
  (void)event_tracer;
  (void)name;
  (void)delegate_debug_id;
  (void)output;
#endif
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::event_tracer_end_profiling_delegate;
using ::executorch::runtime::event_tracer_log_output_delegate;
using ::executorch::runtime::event_tracer_log_profiling_delegate;
using ::executorch::runtime::event_tracer_start_profiling_delegate;
}  // namespace executor
}  // namespace torch
