// Compatibility layer (extension/compat): POSIX file functions (open, pread,
// ...). etr targets POSIX systems, where <unistd.h> has them all.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
