// Compatibility layer (extension/compat): the official ExecuTorch Error enum,
// with the official names and values. etr::Error has the same values for every
// code listed here; etr-only codes are mapped (BackendMissing -> NotFound).
#pragma once

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
