# Bare-metal Cortex-M with Debian's gcc-arm-none-eabi + newlib (nano); no OS.
#   cmake -S . -B build-cortexm -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-none-eabi-m4f.cmake
# ETR_CORTEX_M_CPU picks the core: cortex-m4 (default; M4F, single-precision FPU) or
# cortex-m55 (Armv8.1-M, Helium/MVE + FPU; arm-none-eabi-m55.cmake sets it). Selects the
# bare-metal platform hooks and turns off tests and the POSIX examples.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(ETR_CORTEX_M_CPU cortex-m4 CACHE STRING "cortex-m4 or cortex-m55")
if(ETR_CORTEX_M_CPU STREQUAL "cortex-m4")
  set(_etr_cpu_flags "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -mno-unaligned-access")
elseif(ETR_CORTEX_M_CPU STREQUAL "cortex-m55")
  # Single-precision FPU (models are float; double stays in software, as on the M4F). With
  # the default double-precision FPU and MVE, GCC 12 emits IT-predicated f64 conversions
  # (vcvtne.f64.s32) that binutils 2.40 rejects in MVE syntax.
  set(_etr_cpu_flags "-mcpu=cortex-m55 -mfpu=fpv5-sp-d16 -mthumb -mfloat-abi=hard -mno-unaligned-access")
else()
  message(FATAL_ERROR "ETR_CORTEX_M_CPU: cortex-m4 or cortex-m55, not ${ETR_CORTEX_M_CPU}")
endif()
# -fsingle-precision-constant is not used: a stray double literal shows up as a
# soft-float call in the map file instead of being hidden.
set(CMAKE_C_FLAGS_INIT "${_etr_cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT
    "${_etr_cpu_flags} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti \
-fno-threadsafe-statics -fno-use-cxa-atexit")
# newlib-nano. Debian's newlib (nano and full) is built without C99 printf formats, so the
# %zu in the runtime's messages prints as "zu"; ETR_STRIP_LOGS=ON removes the messages.
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=nosys.specs -Wl,--gc-sections")

set(ETR_PLATFORM bare_metal CACHE STRING "Default platform hooks")
set(ETR_BUILD_TESTS OFF CACHE BOOL "Build the gtest suites")
set(ETR_BUILD_EXAMPLES OFF CACHE BOOL "Build examples/executor_runner")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)  # the host's FlatBuffers config (flatc)
