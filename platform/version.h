#pragma once
#define STRATA_VERSION_STRING "0.1.0"
namespace strata {
const char* version();
}
