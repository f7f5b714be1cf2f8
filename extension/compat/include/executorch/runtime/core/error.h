// Compatibility layer (extension/compat): the official ExecuTorch Error enum,
// with the official names and values. etr::Error has the same values for every
// code listed here; etr-only codes are mapped (BackendMissing -> NotFound).
#pragma once

#include <executorch/runtime/platform/log.h>

#include <cstdint>

namespace executorch {
namespace runtime {

typedef uint32_t error_code_t;

enum class Error : error_code_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  RegistrationExceedingMaxKernels = 0x15,
  RegistrationAlreadyRegistered = 0x16,
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

// "Error::InvalidArgument"-style name of an error.
constexpr const char* to_string(const Error error) {
  switch (error) {
    case Error::Ok: return "Error::Ok";
    case Error::Internal: return "Error::Internal";
    case Error::InvalidState: return "Error::InvalidState";
    case Error::EndOfMethod: return "Error::EndOfMethod";
    case Error::NotSupported: return "Error::NotSupported";
    case Error::NotImplemented: return "Error::NotImplemented";
    case Error::InvalidArgument: return "Error::InvalidArgument";
    case Error::InvalidType: return "Error::InvalidType";
    case Error::OperatorMissing: return "Error::OperatorMissing";
    case Error::RegistrationExceedingMaxKernels: return "Error::RegistrationExceedingMaxKernels";
    case Error::RegistrationAlreadyRegistered: return "Error::RegistrationAlreadyRegistered";
    case Error::NotFound: return "Error::NotFound";
    case Error::MemoryAllocationFailed: return "Error::MemoryAllocationFailed";
    case Error::AccessFailed: return "Error::AccessFailed";
    case Error::InvalidProgram: return "Error::InvalidProgram";
    case Error::InvalidExternalData: return "Error::InvalidExternalData";
    case Error::OutOfResources: return "Error::OutOfResources";
    case Error::DelegateInvalidCompatibility: return "Error::DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed: return "Error::DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle: return "Error::DelegateInvalidHandle";
  }
  return "Error::Unknown";
}

}  // namespace runtime
}  // namespace executorch

namespace torch {
namespace executor {
using ::executorch::runtime::Error;
using ::executorch::runtime::error_code_t;
}  // namespace executor
}  // namespace torch

// Logs `message__` and returns Error::error__ (e.g. InvalidArgument) from the
// enclosing function when `cond__` is false.
#define ET_CHECK_OR_RETURN_ERROR(cond__, error__, message__, ...) \
  {                                                               \
    if (!(cond__)) {                                              \
      ET_LOG(Error, message__, ##__VA_ARGS__);                    \
      return ::executorch::runtime::Error::error__;               \
    }                                                             \
  }

// Logs "Check failed (cond): message" and returns false when `cond__` is false.
#define ET_CHECK_OR_RETURN_FALSE(cond__, message__, ...)                      \
  {                                                                           \
    if (!(cond__)) {                                                          \
      ET_LOG(Error, "Check failed (%s): " message__, #cond__, ##__VA_ARGS__); \
      return false;                                                           \
    }                                                                         \
  }

// ET_CHECK_OK_OR_RETURN_ERROR(error [, format, ...]): returns `error` from the
// enclosing function when it is not Error::Ok, logging the message if given.
#define ET_CHECK_OK_OR_RETURN_ERROR(...)                                                 \
  ET_COMPAT_PICK_(__VA_ARGS__, ET_COMPAT_OK_OR_RETURN_MSG_, ET_COMPAT_OK_OR_RETURN_MSG_, \
                  ET_COMPAT_OK_OR_RETURN_MSG_, ET_COMPAT_OK_OR_RETURN_MSG_,              \
                  ET_COMPAT_OK_OR_RETURN_MSG_, ET_COMPAT_OK_OR_RETURN_MSG_,              \
                  ET_COMPAT_OK_OR_RETURN_MSG_, ET_COMPAT_OK_OR_RETURN_MSG_,              \
                  ET_COMPAT_OK_OR_RETURN_MSG_, ET_COMPAT_OK_OR_RETURN_)                  \
  (__VA_ARGS__)
// Internal: the 11th argument (used to pick a macro by argument count).
#define ET_COMPAT_PICK_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, name, ...) name
#define ET_COMPAT_OK_OR_RETURN_(error__)                  \
  do {                                                    \
    const auto et_error__ = (error__);                    \
    if (et_error__ != ::executorch::runtime::Error::Ok) { \
      return et_error__;                                  \
    }                                                     \
  } while (0)
#define ET_COMPAT_OK_OR_RETURN_MSG_(error__, message__, ...) \
  do {                                                       \
    const auto et_error__ = (error__);                       \
    if (et_error__ != ::executorch::runtime::Error::Ok) {    \
      ET_LOG(Error, message__, ##__VA_ARGS__);               \
      return et_error__;                                     \
    }                                                        \
  } while (0)
