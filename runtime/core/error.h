// The runtime's one error type. Values are stable (they may be logged, stored
// or compared across versions) and grouped by the high nibble:
//   0x00-0x0f  system:    something inside the runtime or its caller's setup
//   0x10-0x1f  argument:  the caller (or a kernel's arguments) asked for something wrong
//   0x20-0x2f  resource:  a file, buffer, name or memory region is missing or malformed
//   0x30-0x3f  delegate:  a backend refused or failed
#pragma once

#include <cstdint>

#include "runtime/platform/log.h"

namespace etr {

enum class Error : uint8_t {
  Ok = 0x00,
  // Broken invariant inside the runtime; a bug report is warranted.
  Internal = 0x01,
  // An API was used in the wrong order (e.g. execute before every input was set).
  InvalidState = 0x02,
  // Execution reached the end of the method (returned by step-wise execution).
  EndOfMethod = 0x03,

  // The program or call needs a feature this build does not have.
  NotSupported = 0x10,
  // The feature exists in the format but is not implemented yet.
  NotImplemented = 0x11,
  // A value (index, shape, option) is outside what the callee accepts.
  InvalidArgument = 0x12,
  // A value has the wrong type or dtype.
  InvalidType = 0x13,
  // A program names an operator that no registered kernel implements.
  OperatorMissing = 0x14,
  // A registry is full.
  RegistrationExceedingMaxKernels = 0x15,
  // The same name (and kernel key) was registered twice.
  RegistrationAlreadyRegistered = 0x16,

  // A named item (method, backend, key, file) does not exist.
  NotFound = 0x20,
  // An allocator ran out of memory.
  MemoryAllocationFailed = 0x21,
  // Reading from a data source failed (I/O error, short read).
  AccessFailed = 0x22,
  // The program bytes are malformed: bad identifier, failed verification,
  // out-of-range index or offset, inconsistent sizes.
  InvalidProgram = 0x23,
  // External data (.ptd) is malformed or does not match the program.
  InvalidExternalData = 0x24,
  // A fixed-capacity resource (instruction budget, rank limit) was exhausted.
  OutOfResources = 0x25,

  // A delegate blob is not compatible with the backend that should run it.
  DelegateInvalidCompatibility = 0x30,
  // A backend could not allocate what it needed.
  DelegateMemoryAllocationFailed = 0x31,
  // A delegate handle is invalid.
  DelegateInvalidHandle = 0x32,
  // A program needs a backend that is not registered or not available.
  BackendMissing = 0x33,
};

// Stable name of an error ("InvalidProgram"); "Unknown" for values not listed above.
constexpr const char* to_string(Error e) {
  switch (e) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::InvalidState: return "InvalidState";
    case Error::EndOfMethod: return "EndOfMethod";
    case Error::NotSupported: return "NotSupported";
    case Error::NotImplemented: return "NotImplemented";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::InvalidType: return "InvalidType";
    case Error::OperatorMissing: return "OperatorMissing";
    case Error::RegistrationExceedingMaxKernels: return "RegistrationExceedingMaxKernels";
    case Error::RegistrationAlreadyRegistered: return "RegistrationAlreadyRegistered";
    case Error::NotFound: return "NotFound";
    case Error::MemoryAllocationFailed: return "MemoryAllocationFailed";
    case Error::AccessFailed: return "AccessFailed";
    case Error::InvalidProgram: return "InvalidProgram";
    case Error::InvalidExternalData: return "InvalidExternalData";
    case Error::OutOfResources: return "OutOfResources";
    case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed: return "DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
    case Error::BackendMissing: return "BackendMissing";
  }
  return "Unknown";
}

}  // namespace etr

// Log a message that says what failed and where, then return `error` from the
// enclosing function (which returns Error or Result<T>). The message is dropped
// when ETR_STRIP_LOGS=1; the error value is not.
#define ETR_FAIL(error, ...)     \
  do {                           \
    ETR_LOG(Error, __VA_ARGS__); \
    return (error);              \
  } while (0)

// Like ETR_FAIL but only when `cond` is false.
#define ETR_CHECK_OR_FAIL(cond, error, ...) \
  do {                                      \
    if (!(cond)) {                          \
      ETR_LOG(Error, __VA_ARGS__);          \
      return (error);                       \
    }                                       \
  } while (0)

// Evaluate an expression yielding Error; return it if not Ok.
#define ETR_RETURN_IF_ERROR(expr)         \
  do {                                    \
    const ::etr::Error etr_err_ = (expr); \
    if (etr_err_ != ::etr::Error::Ok) {   \
      return etr_err_;                    \
    }                                     \
  } while (0)

#define ETR_CONCAT_INNER_(a, b) a##b
#define ETR_CONCAT_(a, b) ETR_CONCAT_INNER_(a, b)

// `ETR_ASSIGN_OR_RETURN(auto x, f());` declares/assigns x from a Result or
// returns its error.
#define ETR_ASSIGN_OR_RETURN(lhs, expr) \
  ETR_ASSIGN_OR_RETURN_IMPL_(ETR_CONCAT_(etr_result_, __LINE__), lhs, expr)
#define ETR_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) {                                 \
    return tmp.error();                            \
  }                                                \
  lhs = std::move(*tmp)
