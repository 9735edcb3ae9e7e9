#include "sc_main/build_id.h"

#include "strata_build_id.h"  // generated at build time: STRATA_BUILD_COMMIT (cmake/build_id.cmake)

namespace strata {
const char* build_commit() { return STRATA_BUILD_COMMIT; }
}  // namespace strata
