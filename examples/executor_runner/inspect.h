// --info: what a .pte needs and whether this build can run it.
#pragma once

#include <string>

#include "runtime/executor/program.h"

namespace etr {
namespace runner {

// Prints the program's header and storage facts.
void print_program_info(const Program& program, const std::string& path, size_t file_size);

// Prints one method's inputs, outputs, planned memory, operators (call
// counts, dtypes, which library of the default registry has a kernel for
// them) and delegates (whether their backend is registered).
// `method_allocator_bytes` is what a load of the method took from its method
// allocator (0: the load failed, printed as unknown). Returns false when an
// operator or a backend is missing.
bool print_method_info(const Program& program, const char* method, size_t method_allocator_bytes);

}  // namespace runner
}  // namespace etr
