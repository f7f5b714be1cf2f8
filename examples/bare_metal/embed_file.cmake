# cmake -DINPUT=model.pte -DOUTPUT=model_data.cpp -DSYMBOL=kModelPte -P embed_file.cmake
# Writes a C++ file defining `alignas(16) const unsigned char SYMBOL[]` (in flash/.rodata)
# and `SYMBOL_size` with the bytes of INPUT.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n  " bytes "${bytes}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by embed_file.cmake; do not edit.\n"
  "#include <cstddef>\n\n"
  "alignas(16) extern const unsigned char ${SYMBOL}[] = {\n  ${bytes}\n};\n"
  "extern const size_t ${SYMBOL}_size = ${size};\n")
