// Helpers of the bare-metal platform (ETR_PLATFORM=bare_metal) for firmware on a
// Cortex-M without an OS. The default hooks use them: log -> semihosting_write,
// now_ns -> cycle_count() at ETR_CPU_HZ, abort -> semihosting_exit(1), allocate ->
// nullptr (no heap). A board without a debugger replaces the log hook (e.g. a UART)
// with set_platform_hooks(); semihosting traps when no debugger or emulator listens.
#pragma once

#include <cstdint>

namespace etr {
namespace bare_metal {

enum class CycleSource : uint8_t {
  None,     // no counter: cycle_count() stays 0
  Dwt,      // DWT->CYCCNT (Cortex-M3/M4/M7/M33/M55 with the DWT unit)
  SysTick,  // SysTick free-running on the processor clock, 24 bits extended in software
};

// Starts the cycle counter: the DWT cycle counter when it counts, else SysTick
// (QEMU's MPS2/MPS3 models have no DWT). Idempotent; cycle_count() calls it.
CycleSource start_cycle_counter();
// Processor cycles since start_cycle_counter(). With SysTick it must be read at
// least once per 2^24 cycles to see every wrap.
uint64_t cycle_count();
const char* to_string(CycleSource source);

// Semihosting (ARM "bkpt 0xAB"): write a NUL-terminated string to the host console.
void semihosting_write(const char* text);
// Semihosting SYS_EXIT_EXTENDED: ends the program (the emulator exits with `code`).
[[noreturn]] void semihosting_exit(int code);

}  // namespace bare_metal
}  // namespace etr
