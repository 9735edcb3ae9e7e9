/* A plain C file of a CUDA program: host code `strata cuda build` compiles as C. */
#include <stdlib.h>

float* make_input(int n) {
  float* h = (float*)malloc((size_t)n * sizeof(float));
  for (int i = 0; i < n; ++i) h[i] = (float)(i % 17);
  return h;
}
