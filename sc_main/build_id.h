// The source state the strata executable was built from (cmake/build_id.cmake): `strata --version` prints it
// and `strata sweep` records it per run as part of the run's identity (docs/experiments.md "Run identity").
#pragma once
namespace strata {
// The short commit, "<commit>-dirty.<8 hex>" when tracked files (other than *.md) differed from it (the hex:
// a hash of the difference), or "unknown" outside a git checkout.
const char* build_commit();
}  // namespace strata
