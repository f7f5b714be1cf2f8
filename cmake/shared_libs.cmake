# -DETR_BUILD_SHARED=ON: shared libraries with the official wheel's file names,
# for apps that link the official SDK as the wheel ships it (libexecutorch.so).
#
#   libexecutorch.so          every etr library of this build (runtime, executor,
#                             kernels, backends, extensions and the official API)
#                             in one shared object: one kernel registry, one
#                             backend registry, whoever links it
#   libexecutorch_<component>.so
#                             the wheel's component names (kernels_optimized,
#                             kernels_quantized, backend_xnnpack, threadpool,
#                             etdump, ...): small libraries that need
#                             libexecutorch.so, so link lines written for the
#                             wheel (-lexecutorch -lexecutorch_kernels_optimized)
#                             work; what they name is in libexecutorch.so
#
# The official target names of the installed package (executorch::runtime,
# executorch::kernels_optimized, ...) then link libexecutorch.so instead of the
# static libraries; the static libraries are still built and installed.
if(NOT ETR_BUILD_SHARED)
  return()
endif()

# Every etr_* static library of the build (etr_collect_targets, helpers.cmake).
etr_collect_targets(${PROJECT_SOURCE_DIR} _etr_shared_all)
set(_etr_shared_members)
foreach(t IN LISTS _etr_shared_all)
  get_target_property(type ${t} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    list(APPEND _etr_shared_members ${t})
  endif()
endforeach()

file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/etr_shared_empty.cpp
  "// Intentionally empty: the shared libraries are made of etr's static ones.\n")
add_library(etr_shared_executorch SHARED ${CMAKE_CURRENT_BINARY_DIR}/etr_shared_empty.cpp)
set_target_properties(etr_shared_executorch PROPERTIES OUTPUT_NAME executorch
  EXPORT_NAME shared_executorch)
# The archives whole (every object, so every registration function is
# there), then what they link outside etr (XNNPACK, pthreadpool, Vulkan, ...).
set(_etr_shared_archives)
set(_etr_shared_system)
foreach(t IN LISTS _etr_shared_members)
  list(APPEND _etr_shared_archives $<TARGET_FILE:${t}>)
  get_target_property(links ${t} INTERFACE_LINK_LIBRARIES)
  foreach(item IN LISTS links)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" item "${item}")
    if(item AND NOT item MATCHES "^(etr_|executorch)" AND NOT item MATCHES "^\\$<")
      list(APPEND _etr_shared_system ${item})
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES _etr_shared_system)
# Imported targets of another directory are not visible here: found again by
# their package (Vulkan::Vulkan, Threads::Threads), else linked by name
# (PkgConfig::CPUINFO becomes -lcpuinfo).
set(_etr_shared_resolved)
foreach(item IN LISTS _etr_shared_system)
  if(item MATCHES "^([A-Za-z0-9_]+)::([A-Za-z0-9_]+)$" AND NOT TARGET ${item})
    set(pkg ${CMAKE_MATCH_1})
    string(TOLOWER "${CMAKE_MATCH_2}" lib)
    if(NOT pkg STREQUAL "PkgConfig")
      find_package(${pkg} QUIET)
    endif()
    if(NOT TARGET ${item})
      set(item -l${lib})
    endif()
  endif()
  list(APPEND _etr_shared_resolved ${item})
endforeach()
set(_etr_shared_system ${_etr_shared_resolved})
add_dependencies(etr_shared_executorch ${_etr_shared_members})
target_link_libraries(etr_shared_executorch PRIVATE -Wl,--whole-archive ${_etr_shared_archives}
  -Wl,--no-whole-archive ${_etr_shared_system})
# What the static libraries give their users: headers and compile definitions.
target_include_directories(etr_shared_executorch INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/extension/compat/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_definitions(etr_shared_executorch INTERFACE ETR_STRIP_LOGS=$<BOOL:${ETR_STRIP_LOGS}>
  ETR_MAX_KERNEL_TABLES=${ETR_MAX_KERNEL_TABLES} ETR_MAX_BACKENDS=${ETR_MAX_BACKENDS})
# No undefined symbols left for the app to supply.
target_link_options(etr_shared_executorch PRIVATE -Wl,--no-undefined)
set(ETR_SHARED_TARGETS etr_shared_executorch)

# The wheel's component libraries, for link lines written for it.
foreach(component kernels_optimized kernels_quantized backend_xnnpack threadpool etdump)
  if(TARGET etr_official_${component} OR TARGET executorch::${component})
    add_library(etr_shared_${component} SHARED ${CMAKE_CURRENT_BINARY_DIR}/etr_shared_empty.cpp)
    set_target_properties(etr_shared_${component} PROPERTIES
      OUTPUT_NAME executorch_${component} EXPORT_NAME shared_${component})
    # Kept as a dependency (DT_NEEDED) although it takes no symbol from it.
    target_link_options(etr_shared_${component} PRIVATE -Wl,--no-as-needed)
    target_link_libraries(etr_shared_${component} PUBLIC etr_shared_executorch)
    list(APPEND ETR_SHARED_TARGETS etr_shared_${component})
  endif()
endforeach()

# The official names link the shared library.
set_property(TARGET executorch PROPERTY INTERFACE_LINK_LIBRARIES etr_shared_executorch)
foreach(t IN LISTS ETR_OFFICIAL_TARGETS ITEMS etr_compat_extension_module
                  etr_compat_extension_module_static etr_compat_extension_tensor)
  if(TARGET ${t})
    set_property(TARGET ${t} PROPERTY INTERFACE_LINK_LIBRARIES etr_shared_executorch)
  endif()
endforeach()
