# Bare-metal Cortex-M55 (QEMU mps3-an547): arm-none-eabi-m4f.cmake with the M55 flags.
set(ETR_CORTEX_M_CPU cortex-m55 CACHE STRING "cortex-m4 or cortex-m55")
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi-m4f.cmake)
