// Compatibility layer (extension/compat): the official flatcc emitter hook.
// etr's ETDumpGen builds its ETDump without flatcc (devtools/etdump), so
// etdump_flatcc_custom_init only reports that (returns -1).
#pragma once

#include <executorch/devtools/etdump/etdump_flatcc.h>

#include <cstdint>
#include <cstdlib>

typedef struct flatcc_builder flatcc_builder_t;

namespace executorch {
namespace etdump {
namespace internal {

int etdump_flatcc_custom_init(flatcc_builder_t* builder, internal::ETDumpStaticAllocator* alloc);

}  // namespace internal
}  // namespace etdump
}  // namespace executorch
