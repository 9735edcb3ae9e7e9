// Layering probe (tests/layering/CMakeLists.txt): compiled with the include path of
// models/ sources; the test passes only if this include does NOT resolve.
#include "platform/config.h"
