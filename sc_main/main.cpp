// strata: command-line entry (filled in by the platform work; see platform/).
#include <systemc>
int sc_main(int, char**) { return 0; }
