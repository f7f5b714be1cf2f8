# libFuzzer harnesses (test/fuzz: each one links whatever kernel libraries and
# test helpers it needs, so they live with the tests, not with the parser they
# cover). Built only with -DETR_BUILD_FUZZERS=ON and clang; run with scripts/fuzz.sh.
function(etr_add_fuzzer name source)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${ARGN})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
endfunction()

etr_add_fuzzer(program_fuzzer ${PROJECT_SOURCE_DIR}/test/fuzz/program_fuzzer.cpp etr_test_support)
if(TARGET etr_optimized_kernels)
  # Hostile programs reach the optimized kernels and kernel fusion too.
  target_link_libraries(program_fuzzer PRIVATE etr_optimized_kernels)
endif()
etr_add_fuzzer(mmap_loader_fuzzer
  ${PROJECT_SOURCE_DIR}/test/fuzz/mmap_loader_fuzzer.cpp etr_test_support
  etr_data_loader)
etr_add_fuzzer(npy_fuzzer ${PROJECT_SOURCE_DIR}/test/fuzz/npy_fuzzer.cpp etr_tensor_ext)
etr_add_fuzzer(flat_tensor_fuzzer
  ${PROJECT_SOURCE_DIR}/test/fuzz/flat_tensor_fuzzer.cpp etr_flat_tensor
  etr_data_loader)
etr_add_fuzzer(bundled_program_fuzzer
  ${PROJECT_SOURCE_DIR}/test/fuzz/bundled_program_fuzzer.cpp
  etr_bundled_program etr_data_loader etr_portable_kernels etr_prim_ops)
if(TARGET etr_tokenizers)
  etr_add_fuzzer(hf_tokenizer_fuzzer
    ${PROJECT_SOURCE_DIR}/test/fuzz/hf_tokenizer_fuzzer.cpp etr_tokenizers)
  etr_add_fuzzer(tiktoken_tokenizer_fuzzer
    ${PROJECT_SOURCE_DIR}/test/fuzz/tiktoken_tokenizer_fuzzer.cpp etr_tokenizers)
  etr_add_fuzzer(llama2c_tokenizer_fuzzer
    ${PROJECT_SOURCE_DIR}/test/fuzz/llama2c_tokenizer_fuzzer.cpp etr_tokenizers)
  if(ETR_HAS_SENTENCEPIECE)
    etr_add_fuzzer(sp_tokenizer_fuzzer
      ${PROJECT_SOURCE_DIR}/test/fuzz/sp_tokenizer_fuzzer.cpp etr_tokenizers)
  endif()
endif()
if(TARGET etr_xnnpack_backend)
  etr_add_fuzzer(xnnpack_payload_fuzzer
    ${PROJECT_SOURCE_DIR}/test/fuzz/xnnpack_payload_fuzzer.cpp etr_xnnpack_backend)
  etr_add_fuzzer(weight_cache_fuzzer
    ${PROJECT_SOURCE_DIR}/test/fuzz/weight_cache_fuzzer.cpp etr_xnnpack_backend)
endif()
if(TARGET etr_vulkan_backend)
  etr_add_fuzzer(vulkan_payload_fuzzer
    ${PROJECT_SOURCE_DIR}/test/fuzz/vulkan_payload_fuzzer.cpp etr_vulkan_backend)
endif()
