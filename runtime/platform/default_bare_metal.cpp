// Default hooks for a board with no OS (ETR_PLATFORM=bare_metal): no files, no
// threads, no heap; logs over semihosting, time from a cycle counter.
#include <cstdio>

#include "runtime/platform/bare_metal.h"
#include "runtime/platform/default_hooks.h"
#include "runtime/platform/format.h"

#ifndef ETR_CPU_HZ
#define ETR_CPU_HZ 25000000u  // MPS2/MPS3 FPGA images run at 25 MHz
#endif

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define ETR_CORTEX_M 1
#else
#define ETR_CORTEX_M 0
#endif

namespace etr {
namespace bare_metal {
namespace {

#if ETR_CORTEX_M
// System control space registers (ARMv7-M / ARMv8-M architecture manuals).
volatile uint32_t& reg(uintptr_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }
constexpr uintptr_t kDemcr = 0xE000EDFC;    // bit 24: TRCENA
constexpr uintptr_t kDwtCtrl = 0xE0001000;  // bit 0: CYCCNTENA, bit 25: NOCYCCNT
constexpr uintptr_t kDwtCyccnt = 0xE0001004;
constexpr uintptr_t kSysTickCsr = 0xE000E010;  // bit 0: ENABLE, bit 2: CLKSOURCE
constexpr uintptr_t kSysTickRvr = 0xE000E014;
constexpr uintptr_t kSysTickCvr = 0xE000E018;
constexpr uint32_t kSysTickMask = 0xFFFFFF;

int semihost(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}
#endif

CycleSource g_source = CycleSource::None;
bool g_started = false;
uint32_t g_last = 0;    // last raw counter value
uint64_t g_cycles = 0;  // cycles up to g_last

}  // namespace

CycleSource start_cycle_counter() {
  if (g_started) return g_source;
  g_started = true;
#if ETR_CORTEX_M
  reg(kDemcr) |= 1u << 24;
  if ((reg(kDwtCtrl) & (1u << 25)) == 0) {
    reg(kDwtCyccnt) = 0;
    reg(kDwtCtrl) |= 1u;
    const uint32_t a = reg(kDwtCyccnt);
    for (volatile int i = 0; i < 16; ++i) {
    }
    if (reg(kDwtCyccnt) != a) {
      g_source = CycleSource::Dwt;
      g_last = reg(kDwtCyccnt);
      return g_source;
    }
  }
  // No DWT (or it does not count): SysTick on the processor clock, no interrupt.
  reg(kSysTickRvr) = kSysTickMask;
  reg(kSysTickCvr) = 0;
  reg(kSysTickCsr) = (1u << 2) | 1u;
  g_source = CycleSource::SysTick;
  g_last = reg(kSysTickCvr) & kSysTickMask;
#endif
  return g_source;
}

uint64_t cycle_count() {
  start_cycle_counter();
#if ETR_CORTEX_M
  if (g_source == CycleSource::Dwt) {
    const uint32_t now = reg(kDwtCyccnt);
    g_cycles += now - g_last;  // modulo 2^32
    g_last = now;
  } else if (g_source == CycleSource::SysTick) {
    const uint32_t now = reg(kSysTickCvr) & kSysTickMask;
    g_cycles += (g_last - now) & kSysTickMask;  // counts down, modulo 2^24
    g_last = now;
  }
#endif
  return g_cycles;
}

const char* to_string(CycleSource source) {
  switch (source) {
    case CycleSource::Dwt: return "DWT cycle counter";
    case CycleSource::SysTick: return "SysTick (processor clock)";
    case CycleSource::None: break;
  }
  return "none";
}

void semihosting_write(const char* text) {
#if ETR_CORTEX_M
  semihost(0x04, text);  // SYS_WRITE0
#else
  (void)text;
#endif
}

void semihosting_exit(int code) {
#if ETR_CORTEX_M
  // SYS_EXIT_EXTENDED: {ADP_Stopped_ApplicationExit, exit code}.
  const uint32_t block[2] = {0x20026u, static_cast<uint32_t>(code)};
  semihost(0x20, block);
#else
  (void)code;
#endif
  for (;;) {
  }
}

}  // namespace bare_metal

namespace internal {

void default_log(LogLevel level, const char* file, int line, const char* message) {
  static const char kLevels[] = {'D', 'I', 'E'};
  char text[400];
  const char tag = kLevels[static_cast<uint8_t>(level) % 3];
  if (file != nullptr) {
    internal::format_message(text, sizeof(text), "%c %s:%d] %s\n", tag, file, line, message);
  } else {
    internal::format_message(text, sizeof(text), "%c] %s\n", tag, message);
  }
  bare_metal::semihosting_write(text);
}

uint64_t default_now_ns() {
  const uint64_t cycles = bare_metal::cycle_count();
  const uint64_t hz = ETR_CPU_HZ;
  return cycles / hz * 1000000000ull + cycles % hz * 1000000000ull / hz;
}

void default_abort(const char* reason) {
  bare_metal::semihosting_write("fatal: ");
  bare_metal::semihosting_write(reason != nullptr ? reason : "abort");
  bare_metal::semihosting_write("\n");
  bare_metal::semihosting_exit(1);
}

void* default_allocate(size_t, size_t) { return nullptr; }  // no heap
void default_deallocate(void*) {}

}  // namespace internal
}  // namespace etr
