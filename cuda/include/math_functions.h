/* Strata's CUDA headers: math functions in device code. */
#ifndef STRATA_CUDA_MATH_FUNCTIONS_H
#define STRATA_CUDA_MATH_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
