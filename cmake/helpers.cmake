# etr_add_library(name SOURCES ... DEPS ... [CORE])
#   CORE: built like the embeddable core (no exceptions, no RTTI).
function(etr_add_library name)
  cmake_parse_arguments(ARG "CORE" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  # The installed package's name for it, also in the build tree (add_subdirectory users).
  string(REGEX REPLACE "^etr_" "" alias ${name})
  add_library(executorch::${alias} ALIAS ${name})
  target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  target_compile_options(${name} PRIVATE ${ETR_WARNING_FLAGS})
  target_compile_definitions(${name} PUBLIC ETR_STRIP_LOGS=$<BOOL:${ETR_STRIP_LOGS}>
    ETR_MAX_KERNEL_TABLES=${ETR_MAX_KERNEL_TABLES} ETR_MAX_BACKENDS=${ETR_MAX_BACKENDS})
  if(ARG_CORE)
    target_compile_options(${name} PRIVATE -fno-exceptions -fno-rtti)
  endif()
endfunction()

# etr_add_test(name SOURCES ... DEPS ...)
function(etr_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  # Cross builds: the command (e.g. qemu-aarch64) that runs a target binary the test starts.
  string(JOIN " " _etr_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  target_compile_options(${name} PRIVATE ${ETR_WARNING_FLAGS})
  target_compile_definitions(${name} PRIVATE ETR_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    ETR_RUNNER_PATH="$<TARGET_FILE_DIR:${name}>/../examples/executor_runner/executor_runner"
    ETR_TEST_EMULATOR="${_etr_emulator}")
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} DISCOVERY_TIMEOUT 60)
endfunction()

# etr_isa_sources(src...): the one ISA idiom. On x86-64, a source ending in
# _avx2.cpp is compiled with AVX2+FMA+F16C, one ending in _avx512.cpp with
# AVX-512F as well and one ending in _avx512vnni.cpp with AVX-512 F, BW, VL
# and VNNI as well; callers reach them only where cpu_features()
# (kernels/cpu_math/cpu_features.h) reports the instruction set.
function(etr_isa_sources)
  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    return()
  endif()
  foreach(src ${ARGN})
    if(src MATCHES "_avx2\\.cpp$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma;-mf16c")
    elseif(src MATCHES "_avx512\\.cpp$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "-mavx512f;-mavx2;-mfma;-mf16c")
    elseif(src MATCHES "_avx512vnni\\.cpp$")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS
        "-mavx512f;-mavx512bw;-mavx512vl;-mavx512vnni;-mavx2;-mfma;-mf16c")
    endif()
  endforeach()
endfunction()

# etr_collect_targets(dir out): every etr_* static library and *_schema
# interface target below `dir`, outside test/, examples/ and bench/ (what the
# install rules and the shared libraries are made of).
function(etr_collect_targets dir out)
  set(found)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if((type STREQUAL "STATIC_LIBRARY" AND t MATCHES "^etr_")
       OR (type STREQUAL "INTERFACE_LIBRARY" AND t MATCHES "^etr_.*_schema$|^etr_schema$"))
      list(APPEND found ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${sub})
    if(NOT rel MATCHES "^(test|examples|bench)(/|$)")
      etr_collect_targets(${sub} sub_found)
      list(APPEND found ${sub_found})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()
