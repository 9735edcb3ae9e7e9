// The config keys memory-side policies declare in their own files
// (models/ref/memside/memside.h memside_params): the schema takes them from the
// policy registry (platform/schema.cpp), as it takes workload knobs from the
// workload registry, and the platform hands a policy its values.
#pragma once
#include <string>
#include <vector>

#include "platform/config.h"

extern "C" {
#include "memside/memside.h"
}

namespace strata {

// Every parameter family of the registered policies, each once, in registry order.
std::vector<const memside_params*> memside_families();
// The whole config key of a family's parameter (prefix + name, or the name after '=').
std::string memside_key(const memside_params& f, const memside_param& p);
// The family's values in the config, in declaration order (an enum: the index of its choice).
std::vector<memside_value> memside_values(const Config& C, const memside_params& f);
// What the config says about the platform around the memory side.
memside_sys memside_sys_of(const Config& C);

}  // namespace strata
