// Compatibility layer (extension/compat): build-wide switches.
#pragma once

// Enum names are available as strings (to_string(Error), ...).
#ifndef ET_ENABLE_ENUM_STRINGS
#define ET_ENABLE_ENUM_STRINGS 1
#endif
