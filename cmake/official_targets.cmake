# The official ExecuTorch CMake names, over etr's libraries. Each is an
# INTERFACE library etr_official_<name> exported as executorch::<name>; in
# this build tree each is also reachable as executorch::<name> and under the
# plain name an official source build uses (portable_ops_lib, ...).
#
#   name                             what it links
#   runtime, executorch_core         the official API (extension/compat) over
#                                    the executor, data loaders, portable
#                                    kernels and prim ops (etr_module)
#   portable_ops_lib                 the same (kernels register on the first
#                                    Program::load_method / Module load)
#   kernels_optimized,               etr_optimized_kernels (when built)
#     optimized_native_cpu_ops_lib,
#     optimized_ops_lib
#   kernels_quantized,               etr_quantized_kernels (when built)
#     quantized_ops_lib
#   backend_xnnpack                  etr_xnnpack_backend (when built)
#   extension_threadpool             etr_threadpool (when built)
#   extension_data_loader, extension_runner_util, extension_evalue_util,
#   extension_flat_tensor, extension_named_data_map
#                                    the official API
# Names that match an etr library's export name already (executorch::
# portable_kernels, ::threadpool, ::xnnpack_backend, ::bundled_program,
# ::extension_module(_static), ::extension_tensor, ::etdump) are not repeated here.
set(ETR_OFFICIAL_TARGETS)

# etr_official_target(NAME DEP...): executorch::NAME linking DEP..., when
# every DEP exists.
function(etr_official_target name)
  foreach(dep IN LISTS ARGN)
    if(NOT TARGET ${dep})
      return()
    endif()
  endforeach()
  add_library(etr_official_${name} INTERFACE)
  target_link_libraries(etr_official_${name} INTERFACE ${ARGN})
  set_target_properties(etr_official_${name} PROPERTIES EXPORT_NAME ${name})
  if(NOT TARGET executorch::${name})
    add_library(executorch::${name} ALIAS etr_official_${name})
  endif()
  set(ETR_OFFICIAL_TARGETS ${ETR_OFFICIAL_TARGETS} etr_official_${name} PARENT_SCOPE)
endfunction()

if(TARGET etr_compat)
  target_link_libraries(executorch INTERFACE etr_compat)
  etr_official_target(executorch_core executorch)
  etr_official_target(portable_ops_lib executorch)
  foreach(name extension_data_loader extension_runner_util extension_evalue_util
               extension_flat_tensor extension_named_data_map)
    etr_official_target(${name} etr_compat)
  endforeach()
  foreach(name kernels_optimized optimized_native_cpu_ops_lib optimized_ops_lib)
    etr_official_target(${name} executorch etr_optimized_kernels)
  endforeach()
  foreach(name kernels_quantized quantized_ops_lib)
    etr_official_target(${name} executorch etr_quantized_kernels)
  endforeach()
  etr_official_target(backend_xnnpack executorch etr_xnnpack_backend)
  etr_official_target(extension_threadpool etr_threadpool)
endif()

# The plain names of an official source build, in this build tree (for
# add_subdirectory users): executorch exists already.
foreach(t IN LISTS ETR_OFFICIAL_TARGETS)
  string(REGEX REPLACE "^etr_official_" "" name ${t})
  if(NOT TARGET ${name} AND NOT name MATCHES "^(kernels_|backend_|runtime$)")
    add_library(${name} ALIAS ${t})
  endif()
endforeach()
foreach(pair extension_module:etr_compat_extension_module
             extension_module_static:etr_compat_extension_module_static
             extension_tensor:etr_compat_extension_tensor etdump:etr_compat_etdump
             portable_kernels:etr_portable_kernels xnnpack_backend:etr_xnnpack_backend
             extension_threadpool:etr_threadpool bundled_program:etr_bundled_program)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 target)
  if(TARGET ${target} AND NOT TARGET ${name})
    add_library(${name} ALIAS ${target})
  endif()
endforeach()
