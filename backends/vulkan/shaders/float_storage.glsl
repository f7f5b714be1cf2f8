// The element type of float tensors in a shader's buffers. Each shader that
// includes this is compiled twice: as is (float32 buffers), and with -DFP16
// for devices with 16-bit storage buffers (float16 buffers: the tensors of
// an fp16 program stay in fp16 on the device). Shaders read an element with
// LOAD() into a float and write one with STORE(), so every computation is in
// float32 whatever the storage. WORD_T is the element of a raw copy (32 or
// 16 bits). Included before the first declaration (extensions must be).
#ifdef FP16
#extension GL_EXT_shader_16bit_storage : require
#define FLOAT_T float16_t
#define WORD_T uint16_t
#define STORE(v) float16_t(v)
#else
#define FLOAT_T float
#define WORD_T uint
#define STORE(v) (v)
#endif
#define LOAD(v) float(v)
