/* repl_registry: the table of replacement/insertion policies known by name.
 *
 * Adding a policy = one file repl_<name>.c defining `const repl_ops
 * repl_<name>_ops` plus ONE line in REPL_POLICIES below:
 *     X(repl_<name>_ops, "<name>")
 * The string must equal the ops' .name (the unit test test_repl_registry
 * checks that every listed name resolves to ops carrying that name).
 */
#include <string.h>

#include "repl.h"

#define REPL_POLICIES \
  X(repl_lru_ops, "lru") \
  X(repl_hac_static_ops, "hac_static") \
  X(repl_hac_ops, "hac") \
  X(repl_hac_literal_ops, "hac_literal") \
  X(repl_eabp_ops, "eabp") \
  X(repl_wbar_ops, "wbar")

#define X(sym, nm) extern const repl_ops sym;
REPL_POLICIES
#undef X

static const repl_ops *const repl_table[] = {
#define X(sym, nm) &sym,
    REPL_POLICIES
#undef X
};

/* ", name1, name2" built at compile time; repl_names() skips the leading ", ". */
static const char repl_name_list[] = ""
#define X(sym, nm) ", " nm
    REPL_POLICIES
#undef X
    ;

const repl_ops *repl_find(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof repl_table / sizeof repl_table[0]; ++i)
    if (strcmp(repl_table[i]->name, name) == 0) return repl_table[i];
  return NULL;
}

const char *repl_names(void) { return repl_name_list + 2; }
