// Round trip of one cache line between two threads pinned to CPUs 0 and 1
// (bench/ab_threads.py prints it with every round). On the shared 2-vCPU
// benchmark host it reads about 55 ns when the two vCPUs sit on cores that
// share a cache and 400-3000 ns when they do not (or one is descheduled):
// in the second case every activation that one thread writes and the other
// reads crosses the host's slower path, and 2-thread runs slow down by up to
// 1.5x whatever the program does. Build: c++ -O2 -pthread core_pingpong.cpp
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace {

alignas(64) std::atomic<int> flag{0};

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

}  // namespace

int main() {
  constexpr int kTrips = 100000;
  std::thread other([] {
    pin(1);
    for (int i = 0; i < kTrips; ++i) {
      while (flag.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      flag.store(2 * i + 2, std::memory_order_release);
    }
  });
  pin(0);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kTrips; ++i) {
    flag.store(2 * i + 1, std::memory_order_release);
    while (flag.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const auto end = std::chrono::steady_clock::now();
  other.join();
  std::printf("%.0f\n", std::chrono::duration<double, std::nano>(end - start).count() / kTrips);
  return 0;
}
