#include "platform/version.h"
namespace strata {
const char* version() { return STRATA_VERSION_STRING; }
}
