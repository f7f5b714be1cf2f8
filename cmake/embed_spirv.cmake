# cmake -DSPV=<file.spv> -DOUT=<file.h> -DNAME=<symbol> -P embed_spirv.cmake
# Writes a header holding the SPIR-V words of SPV as a uint32_t array named
# NAME (and NAME_words, its length), so no shader file is read at run time.
file(READ ${SPV} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR rem "${n} % 8")
if(n EQUAL 0 OR NOT rem EQUAL 0)
  message(FATAL_ERROR "embed_spirv: ${SPV} is not a whole number of 32-bit words")
endif()
# SPIR-V files are little-endian words: bytes b0 b1 b2 b3 -> 0xb3b2b1b0.
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${hex}")
string(REGEX REPLACE "((0x[0-9a-f]+u,){8})" "\\1\n  " words "${words}")
math(EXPR count "${n} / 8")
file(WRITE ${OUT} "// Generated from ${SPV} by cmake/embed_spirv.cmake; do not edit.\n"
  "#pragma once\n#include <cstddef>\n#include <cstdint>\n"
  "static const uint32_t ${NAME}[] = {\n  ${words}\n};\n"
  "static constexpr size_t ${NAME}_words = ${count};\n")
