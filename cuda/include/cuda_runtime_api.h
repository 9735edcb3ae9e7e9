/* Strata's CUDA headers: the host API of the CUDA runtime (NVIDIA's CUDA
 * Runtime API documentation gives each function's meaning). Strata's own
 * runtime (cuda/runtime) implements it against the simulated GPU: `strata
 * cuda run` starts the program and serves its calls (docs/cuda.md). */
#ifndef STRATA_CUDA_RUNTIME_API_H
#define STRATA_CUDA_RUNTIME_API_H
#define __CUDA_RUNTIME_API_H__

#include <stddef.h>
#include "strata_cuda_defs.h"
#include "vector_types.h"
#include "driver_types.h"

/* Default arguments of the C++ API (none in C). */
#ifdef __cplusplus
#define STRATA_DV(v) = v
#else
#define STRATA_DV(v)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* errors */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

/* devices: one simulated GPU, device 0 */
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaThreadExit(void);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);

/* memory */
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags STRATA_DV(cudaMemAttachGlobal));
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t size);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void* ptr);
cudaError_t cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned int flags);
cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream STRATA_DV(0));
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream STRATA_DV(0));
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset STRATA_DV(0),
                               enum cudaMemcpyKind kind STRATA_DV(cudaMemcpyHostToDevice));
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset STRATA_DV(0),
                                 enum cudaMemcpyKind kind STRATA_DV(cudaMemcpyDeviceToHost));
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream STRATA_DV(0));
cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol);
cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream STRATA_DV(0));

/* streams: executed in issue order on the one simulated GPU */
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags STRATA_DV(0));
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                  unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, enum cudaStreamAttrID attr,
                                   const union cudaStreamAttrValue* value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, enum cudaStreamAttrID attr, union cudaStreamAttrValue* value);
cudaError_t cudaCtxResetPersistingL2Cache(void);

/* events: time stamps in simulated time */
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream STRATA_DV(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* kernels */
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared_bytes,
                             cudaStream_t stream);
cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache config);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func, int block_size,
                                                          size_t dynamic_shared_bytes);
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, const void* func,
                                               size_t dynamic_shared_bytes STRATA_DV(0),
                                               int block_size_limit STRATA_DV(0));
cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared_bytes STRATA_DV(0), cudaStream_t stream STRATA_DV(0));
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes STRATA_DV(0), void* stream STRATA_DV(0));
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_bytes, void** stream);

/* textures: strata_cuda_texture.h */

#ifdef __cplusplus
}

/* C++ conveniences of the runtime API (typed pointers, symbols by reference). */
template <class T>
static inline cudaError_t cudaMalloc(T** ptr, size_t size) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), size);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T** ptr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline cudaError_t cudaMallocHost(T** ptr, size_t size) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), size);
}
template <class T>
static inline cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), size, flags);
}
template <class T>
static inline cudaError_t cudaMallocPitch(T** ptr, size_t* pitch, size_t width, size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol(static_cast<const void*>(&symbol), src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                               enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(dst, static_cast<const void*>(&symbol), count, offset, kind);
}
template <class T>
static inline cudaError_t cudaGetSymbolAddress(void** dev_ptr, const T& symbol) {
  return cudaGetSymbolAddress(dev_ptr, static_cast<const void*>(&symbol));
}
template <class T>
static inline cudaError_t cudaFuncSetCacheConfig(T* func, enum cudaFuncCache config) {
  return cudaFuncSetCacheConfig(reinterpret_cast<const void*>(func), config);
}
template <class T>
static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, T* func) {
  return cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(func));
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T func, int block_size,
                                                                        size_t dynamic_shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void*>(func), block_size,
                                                       dynamic_shared_bytes);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, T func,
                                                             size_t dynamic_shared_bytes = 0,
                                                             int block_size_limit = 0) {
  return cudaOccupancyMaxPotentialBlockSize(min_grid_size, block_size, reinterpret_cast<const void*>(func),
                                            dynamic_shared_bytes, block_size_limit);
}
template <class T>
static inline cudaError_t cudaHostGetDevicePointer(T** dev_ptr, void* host_ptr, unsigned int flags) {
  return cudaHostGetDevicePointer(reinterpret_cast<void**>(dev_ptr), host_ptr, flags);
}
template <class T>
static inline cudaError_t cudaLaunchKernel(T* func, dim3 grid, dim3 block, void** args, size_t shared_bytes = 0,
                                           cudaStream_t stream = 0) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(func), grid, block, args, shared_bytes, stream);
}
#endif

#endif
