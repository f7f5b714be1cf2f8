// Compatibility layer (extension/compat): the official umbrella header for
// TensorPtr and its makers.
#pragma once

#include <executorch/extension/tensor/tensor_ptr.h>
#include <executorch/extension/tensor/tensor_ptr_maker.h>
