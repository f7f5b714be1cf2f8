// The Vulkan delegate ("VulkanBackend"): runs the payloads the official
// exporter's VulkanPartitioner writes, with our own GLSL compute shaders
// (compiled to SPIR-V at build time and embedded in the library).
//
//   etr::register_vulkan_backend();                 // the default registry
//   etr::register_vulkan_backend(&my_registry);     // or a registry you pass in
//
// Registration is explicit (no static initializer). At init:
//   - the payload is parsed and checked (vk_graph.h) and every operator is
//     checked and planned into shader dispatches and buffer copies
//     (vk_ops.h); an unknown operator fails with NotSupported naming it;
//   - the process-wide Vulkan device is acquired (vk_device.h: first device
//     with a compute queue, or ETR_VULKAN_DEVICE=N; created once and kept
//     for the process, with the compute pipelines every delegate shares);
//   - a program's float16 tensors (force_fp16) get float16 buffers when the
//     device has 16-bit storage buffers and every shader the program needs
//     has a float16-storage variant, float32 buffers otherwise (or when
//     ETR_VULKAN_FP16_STORAGE=0, read at each init); shaders compute in
//     float32 either way;
//   - every tensor gets a device storage buffer, contiguous in the payload's
//     dims (the payload's texture/layout requests are not followed; for a
//     program exported with dynamic dims, the dims are the upper bounds);
//     tensors with the same mem_obj_id share one buffer (the exporter's
//     memory plan);
//   - constants are uploaded once through a staging buffer (et_vk.prepack's
//     output is the uploaded constant itself), after which the payload and
//     the named-data buffers are released;
//   - the device's pipeline of each shader the delegate uses is created if
//     no delegate made it yet, the descriptor sets are written, and one
//     command buffer is recorded:
//     input staging -> device, the dispatches with barriers between them,
//     device -> output staging.
// execute copies the inputs into their host-visible staging buffers,
// submits that command buffer, waits on a fence and copies the outputs out:
// nothing is created per execute. A dynamic program whose inputs changed
// shape (within the exported bounds; outside them the execute fails naming
// the input, dim and bound) first has its shapes propagated (vk_shapes.h),
// its operators planned again and the command buffer re-recorded, and its
// outputs resized: still nothing is allocated and no pipeline is created.
#pragma once

#include <cstddef>

#include "runtime/backend/backend.h"

namespace etr {

// The backend object (stateless; one instance serves every method).
const BackendInterface& vulkan_backend();

// Registers "VulkanBackend" in `registry` (null: the default registry).
[[nodiscard]] Error register_vulkan_backend(BackendRegistry* registry = nullptr);

// Compute pipelines created in this process so far (a second execute
// creates none).
size_t vulkan_pipeline_creations();
// Validation-layer warnings and errors seen in this process (the layer is
// enabled by ETR_VULKAN_VALIDATION=1 when installed).
size_t vulkan_validation_messages();
// Delegates initialized so far in this process that keep float16 tensors in
// float16 buffers on the device (tests check which storage ran).
size_t vulkan_fp16_storage_delegates();

}  // namespace etr
