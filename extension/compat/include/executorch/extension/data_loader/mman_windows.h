// Compatibility layer (extension/compat): the official header maps the POSIX
// mmap API onto Windows. etr targets POSIX systems only, so it provides
// nothing; extension/data_loader/mman.h has the helpers.
#pragma once
