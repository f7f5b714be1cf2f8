# `cmake --install <build> --prefix P`: headers under P/include (same include
# paths as in the source: "runtime/core/...", "extension/module/module.h"),
# static libraries under P/lib, the CMake package executorch (imported targets
# executorch::<library without etr_>, e.g. executorch::runtime,
# executorch::portable_kernels, executorch::module) and P/lib/pkgconfig/etr.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ETR_VERSION 0.1.0)
# The official ExecuTorch release whose C++ API and CMake package etr's face implements.
set(ETR_OFFICIAL_API_VERSION 1.5.1)
set(ETR_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/executorch)

# Every etr_* static library and *_schema interface target (etr_collect_targets,
# helpers.cmake), so a library added later is installed without an edit here.
etr_collect_targets(${PROJECT_SOURCE_DIR} ETR_INSTALL_TARGETS)

# System libraries linked by absolute path become executorch::sys_<name>
# targets in the installed package, which executorchConfig.cmake finds again
# with find_library (so the package does not pin this machine's paths).
set(ETR_SYSTEM_LIBS)
foreach(t IN LISTS ETR_INSTALL_TARGETS ITEMS executorch)
  string(REGEX REPLACE "^etr_" "" export_name ${t})
  if(t STREQUAL "executorch")
    set(export_name runtime)
  endif()
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${export_name})
  get_target_property(type ${t} TYPE)
  get_target_property(includes ${t} INTERFACE_INCLUDE_DIRECTORIES)
  if(t MATCHES "schema$" AND includes)
    # Generated flatbuffer headers: used inside the build only.
    list(TRANSFORM includes PREPEND "$<BUILD_INTERFACE:")
    list(TRANSFORM includes APPEND ">")
    set_target_properties(${t} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${includes}")
  else()
    target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endif()
  get_target_property(links ${t} INTERFACE_LINK_LIBRARIES)
  if(links)
    set(rewritten)
    foreach(item IN LISTS links)
      string(REGEX MATCH "/[^<>$;]*/lib([A-Za-z0-9_+-]+)\\.(so|a)[.0-9]*" path "${item}")
      if(path)
        set(name ${CMAKE_MATCH_1})
        list(APPEND ETR_SYSTEM_LIBS ${name})
        string(REPLACE "${path}"
          "$<BUILD_INTERFACE:${path}>$<INSTALL_INTERFACE:executorch::sys_${name}>" item "${item}")
      endif()
      list(APPEND rewritten "${item}")
    endforeach()
    set_target_properties(${t} PROPERTIES INTERFACE_LINK_LIBRARIES "${rewritten}")
  endif()
endforeach()
list(REMOVE_DUPLICATES ETR_SYSTEM_LIBS)

install(TARGETS ${ETR_INSTALL_TARGETS} executorch EXPORT executorchTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Compatibility layer (extension/compat, exported as executorch::compat): the
# official component names executorch::extension_module, ::extension_module_static,
# ::extension_tensor and ::etdump (ETDumpGen), and its headers at the official include paths
# (P/include/executorch/extension/module/module.h, ...).
if(TARGET etr_compat)
  install(TARGETS etr_compat_extension_module etr_compat_extension_module_static
    etr_compat_extension_tensor etr_compat_etdump ${ETR_OFFICIAL_TARGETS}
    EXPORT executorchTargets)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/extension/compat/include/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
endif()
# -DETR_BUILD_SHARED=ON: libexecutorch.so and the component names (shared_libs.cmake).
if(ETR_SHARED_TARGETS)
  install(TARGETS ${ETR_SHARED_TARGETS} EXPORT executorchTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT executorchTargets NAMESPACE executorch:: DESTINATION ${ETR_INSTALL_CMAKEDIR})

# Public headers. Executor internals (they include generated flatbuffer
# code), fuzzers and tests stay out; flatbuffers is not needed by users.
foreach(dir runtime extension kernels devtools)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h"
    PATTERN "fuzz" EXCLUDE PATTERN "test" EXCLUDE
    PATTERN "method_loader.h" EXCLUDE PATTERN "flatbuffer_util.h" EXCLUDE
    PATTERN "merged_named_data.h" EXCLUDE)
endforeach()
if(TARGET etr_xnnpack_backend)
  install(FILES ${PROJECT_SOURCE_DIR}/backends/xnnpack/xnnpack_backend.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/backends/xnnpack)
endif()

# Package config + version. The config also sets the official package's
# variables (EXECUTORCH_LIBRARIES, EXECUTORCH_COMPILE_DEFINITIONS, ...): the
# compile definitions are those the libraries were built with.
set(ETR_CONFIG_COMPILE_DEFINITIONS ETR_MAX_KERNEL_TABLES=${ETR_MAX_KERNEL_TABLES}
  ETR_MAX_BACKENDS=${ETR_MAX_BACKENDS})
if(ETR_STRIP_LOGS)
  list(APPEND ETR_CONFIG_COMPILE_DEFINITIONS ETR_STRIP_LOGS=1)
else()
  list(APPEND ETR_CONFIG_COMPILE_DEFINITIONS ETR_STRIP_LOGS=0)
endif()
# The Vulkan delegate links the Vulkan loader's imported target (Vulkan::Vulkan);
# etr::Module registers the delegate, so every app linking the runtime needs it.
set(ETR_CONFIG_NEEDS_VULKAN OFF)
if(TARGET etr_vulkan_backend)
  set(ETR_CONFIG_NEEDS_VULKAN ON)
endif()
set(ETR_CONFIG_NEEDS_CPUINFO OFF)
if(TARGET etr_threadpool)
  set(ETR_CONFIG_NEEDS_CPUINFO ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/executorchConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/executorchConfig.cmake INSTALL_DESTINATION ${ETR_INSTALL_CMAKEDIR})
# The package answers for the official API it implements (ETR_OFFICIAL_API_VERSION):
# find_package(executorch 1.5) finds it, a request for another major version does not,
# as the official wheel's package decides (ranges included).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/executorchConfigVersion.cmake
  VERSION ${ETR_OFFICIAL_API_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/executorchConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/executorchConfigVersion.cmake DESTINATION ${ETR_INSTALL_CMAKEDIR})

# pkg-config: every library, dependents first (static linking order).
set(ETR_PC_ORDER etr_llm_runner etr_tokenizers etr_module etr_method_memory etr_bundled_program etr_etdump_writer etr_flat_tensor etr_tensor_ext etr_threadpool
  etr_xnnpack_backend etr_vulkan_backend etr_llm_kernels etr_optimized_kernels etr_cpu_math etr_quantized_kernels etr_portable_kernels etr_prim_ops etr_executor
  etr_data_loader etr_kernel_registry etr_backend_registry etr_core etr_platform)
set(ETR_PC_LIBS)
foreach(t IN LISTS ETR_INSTALL_TARGETS)  # libraries not in the list above go first
  get_target_property(type ${t} TYPE)
  if(type STREQUAL "STATIC_LIBRARY" AND NOT t IN_LIST ETR_PC_ORDER)
    string(APPEND ETR_PC_LIBS " -l${t}")
  endif()
endforeach()
foreach(t IN LISTS ETR_PC_ORDER)
  if(TARGET ${t})
    string(APPEND ETR_PC_LIBS " -l${t}")
  endif()
endforeach()
foreach(name IN LISTS ETR_SYSTEM_LIBS)
  string(APPEND ETR_PC_LIBS " -l${name}")
endforeach()
if(TARGET etr_vulkan_backend)
  string(APPEND ETR_PC_LIBS " -lvulkan")  # the loader (Vulkan::Vulkan in the CMake package)
endif()
if(TARGET etr_threadpool)
  string(APPEND ETR_PC_LIBS " -lcpuinfo")
endif()
string(APPEND ETR_PC_LIBS " -lpthread")
set(ETR_PC_CFLAGS "-DETR_MAX_KERNEL_TABLES=${ETR_MAX_KERNEL_TABLES} -DETR_MAX_BACKENDS=${ETR_MAX_BACKENDS}")
if(ETR_STRIP_LOGS)
  string(APPEND ETR_PC_CFLAGS " -DETR_STRIP_LOGS=1")
else()
  string(APPEND ETR_PC_CFLAGS " -DETR_STRIP_LOGS=0")
endif()
if(TARGET etr_xnnpack_backend)
  string(APPEND ETR_PC_CFLAGS " -DETR_HAVE_XNNPACK=1")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/etr.pc.in ${CMAKE_CURRENT_BINARY_DIR}/etr.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/etr.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
