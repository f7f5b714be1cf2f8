# Every build option of the project, in one place. Included from another project
# (add_subdirectory / FetchContent), tests, examples, install rules and -Werror default to off.
if(CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR)
  set(ETR_TOP_LEVEL ON)
else()
  set(ETR_TOP_LEVEL OFF)
endif()
option(ETR_BUILD_TESTS "Build the gtest suites" ${ETR_TOP_LEVEL})
option(ETR_BUILD_EXAMPLES "Build examples/executor_runner" ${ETR_TOP_LEVEL})
option(ETR_STRIP_LOGS "Compile out every log message and error string (microcontrollers)" OFF)
option(ETR_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(ETR_BUILD_FUZZERS "Build libFuzzer harnesses (needs clang)" OFF)
option(ETR_WERROR "Treat warnings in our code as errors" ${ETR_TOP_LEVEL})
option(ETR_BUILD_PYTHON "Build the Python bindings (python/: module _etr, package etr)" OFF)
option(ETR_BUILD_SHARED
  "Also build the official wheel's shared libraries (libexecutorch.so, ...; cmake/shared_libs.cmake)"
  OFF)
option(ETR_INSTALL "Generate install rules (headers, libraries, CMake package, etr.pc)"
  ${ETR_TOP_LEVEL})
set(ETR_PLATFORM posix CACHE STRING "Default platform hooks: posix or bare_metal (no OS)")
set_property(CACHE ETR_PLATFORM PROPERTY STRINGS posix bare_metal)
if(ETR_PLATFORM STREQUAL "posix")
  set(_etr_optimized_default ON)
else()
  set(_etr_optimized_default OFF)
endif()
option(ETR_BUILD_OPTIMIZED_KERNELS
  "Build the optimized kernel library (kernels/optimized; vectorized, threaded)"
  ${_etr_optimized_default})
# Method load fuses convolution -> batch norm (-> relu / hardtanh) into one kernel when a
# library registers the fused kernels (the optimized one does); about 3 KB of executor code,
# so it follows the optimized kernels (off for bare metal).
option(ETR_KERNEL_FUSION "Fuse kernel calls at method load (runtime/executor/kernel_fusion.cpp)"
  ${ETR_BUILD_OPTIMIZED_KERNELS})
# Selective build (cmake/selective_build.cmake): keep only these operators.
set(ETR_SELECT_OPS "" CACHE STRING
  "Operators to link and register (comma-separated names, or files with one per line)")
set(ETR_SELECT_OPS_FROM_PTE "" CACHE STRING
  "Link and register only the operators these .pte files call (semicolon-separated)")
set(ETR_MAX_KERNEL_TABLES 32 CACHE STRING "Kernel tables the registry can hold")
set(ETR_MAX_BACKENDS 16 CACHE STRING "Backends the registry can hold")

if(NOT ETR_PLATFORM MATCHES "^(posix|bare_metal)$")
  message(FATAL_ERROR "ETR_PLATFORM must be posix or bare_metal, not '${ETR_PLATFORM}'")
endif()
# The .pte format is little-endian and the loader reads it in place.
if(CMAKE_CXX_BYTE_ORDER STREQUAL "BIG_ENDIAN")
  message(FATAL_ERROR "etr: big-endian targets are not supported (.pte files are little-endian)")
endif()
if(ETR_BUILD_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "ETR_BUILD_FUZZERS needs clang (configure with -DCMAKE_CXX_COMPILER=clang++)")
endif()
