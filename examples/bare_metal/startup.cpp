// Reset and fault handlers and the vector table for a Cortex-M without an OS:
// enables the FPU, copies .data, zeroes .bss, runs static constructors, calls
// main() and exits through semihosting with its status.
#include <cstdint>
#include <cstring>

#include "runtime/platform/bare_metal.h"

extern "C" {
extern uint32_t __stack_top, __data_start, __data_end, __data_load, __bss_start, __bss_end;
void __libc_init_array();
int main();
void etr_reset_handler();
void etr_fault_handler();
void _init();
void _fini();
}

// -nostartfiles leaves out crti/crtn; __libc_init_array still calls these.
void _init() {}
void _fini() {}

void etr_reset_handler() {
#if defined(__ARM_FP)
  // CPACR: full access to CP10/CP11 (the FPU).
  *reinterpret_cast<volatile uint32_t*>(0xE000ED88) |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
  std::memcpy(
      &__data_start, &__data_load,
      reinterpret_cast<uintptr_t>(&__data_end) - reinterpret_cast<uintptr_t>(&__data_start));
  std::memset(&__bss_start, 0,
              reinterpret_cast<uintptr_t>(&__bss_end) - reinterpret_cast<uintptr_t>(&__bss_start));
  __libc_init_array();
  etr::bare_metal::semihosting_exit(main());
}

void etr_fault_handler() {
  etr::bare_metal::semihosting_write("fault: unexpected exception\n");
  etr::bare_metal::semihosting_exit(3);
}

// Initial stack pointer, reset, then NMI .. SysTick (the architecture's 16 entries).
__attribute__((section(".vectors"), used)) const void* const etr_vector_table[16] = {
    &__stack_top,
    reinterpret_cast<const void*>(etr_reset_handler),
    reinterpret_cast<const void*>(etr_fault_handler),  // NMI
    reinterpret_cast<const void*>(etr_fault_handler),  // HardFault
    reinterpret_cast<const void*>(etr_fault_handler),  // MemManage
    reinterpret_cast<const void*>(etr_fault_handler),  // BusFault
    reinterpret_cast<const void*>(etr_fault_handler),  // UsageFault
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    reinterpret_cast<const void*>(etr_fault_handler),  // SVCall
    reinterpret_cast<const void*>(etr_fault_handler),  // DebugMonitor
    nullptr,
    reinterpret_cast<const void*>(etr_fault_handler),  // PendSV
    reinterpret_cast<const void*>(etr_fault_handler),  // SysTick
};
