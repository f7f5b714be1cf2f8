# Every build option of the project, in one place.
option(ETR_BUILD_TESTS "Build the gtest suites" ON)
option(ETR_BUILD_EXAMPLES "Build examples/executor_runner" ON)
option(ETR_STRIP_LOGS "Compile out every log message and error string (microcontrollers)" OFF)
option(ETR_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(ETR_BUILD_FUZZERS "Build libFuzzer harnesses (needs clang)" OFF)
option(ETR_WERROR "Treat warnings in our code as errors" ON)
set(ETR_MAX_KERNEL_TABLES 32 CACHE STRING "Kernel tables the registry can hold")
set(ETR_MAX_BACKENDS 16 CACHE STRING "Backends the registry can hold")

if(ETR_BUILD_FUZZERS AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "ETR_BUILD_FUZZERS needs clang (configure with -DCMAKE_CXX_COMPILER=clang++)")
endif()
