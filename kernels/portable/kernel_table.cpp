// The portable kernel table. Each group of ops declares its kernel functions
// in ops_<group>.h and lists its entries in table_<group>.inc.
#include "kernels/portable/portable_kernels.h"

#include "kernels/portable/ops_elementwise.h"
#include "kernels/portable/ops_layout.h"

namespace etr {
namespace {

constexpr KernelEntry kPortableKernels[] = {
#include "kernels/portable/table_elementwise.inc"
#include "kernels/portable/table_layout.inc"
};

}  // namespace

Span<const KernelEntry> portable_kernels() {
  return {kPortableKernels, sizeof(kPortableKernels) / sizeof(kPortableKernels[0])};
}

KernelLibrary portable_kernel_library() {
  return KernelLibrary{"portable", kPortablePriority, portable_kernels()};
}

}  // namespace etr
