/* Strata's CUDA runtime: the CUDA runtime API (cuda/include/cuda_runtime_api.h)
 * for a program built by `strata cuda build`, linked into the program. It
 * owns no device state: each call that touches the GPU is one request to
 * `strata cuda run` over the socket named by STRATA_CUDA_FD
 * (strata_cuda_wire.h), which holds the device memory, runs the kernels on
 * the simulated GPU and keeps the simulated clock. Semantics follow NVIDIA's
 * CUDA Runtime API documentation; what differs is in docs/cuda.md:
 * streams run in issue order (every call is synchronous), copies cost no
 * simulated time, managed memory is device memory (the host cannot touch it
 * until Unified Memory lands), one device.
 *
 * Host threads may call it concurrently: each request and its reply, and each
 * change of the allocation and mapping tables, is a critical section (g_wire),
 * so calls from several threads are served one at a time. Allocation happens only at registration and in the API calls
 * the program makes, never per device access. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cuda_runtime_api.h"
#include "strata_cuda_texture.h"
#include "strata_cuda_wire.h"

/* ---------------------------------------------------------------- state */

struct kernel_ref {
  const void* stub;   /* the host stub clang emits for the kernel (the launch handle) */
  uint32_t kernel;    /* strata's id */
  struct strata_wire_params params;
};

struct symbol_ref {
  const void* shadow; /* the host variable clang emits for a __device__/__constant__ variable */
  uint64_t dev;       /* its device address */
  uint64_t bytes;
};

struct alloc_ref {
  uint64_t addr, bytes;
};

/* Host memory mapped into the device (cudaHostAllocMapped, cudaHostRegisterMapped): a device
 * allocation of the same size mirrors it. The simulated GPU cannot reach host memory, so the
 * runtime copies the host bytes to the mirror before each launch, copy or memset that touches
 * the device and copies the mirror back after it (zero simulated time, as every copy): host
 * code and kernels see each other's writes at the points a program may rely on them. */
struct mapped_ref {
  char* host;
  uint64_t dev, bytes;
  unsigned flags;
  int owned; /* allocated by cudaHostAlloc (freed by cudaFreeHost) rather than registered */
};

struct launch_cfg {
  dim3 grid, block;
  size_t shared;
  void* stream;
};

struct CUstream_st {
  union cudaStreamAttrValue policy; /* kept for cudaStreamGetAttribute; the simulated L2 ignores it */
};
struct CUevent_st {
  uint64_t ps;
  int recorded;
};

static int g_fd = -1;
static uint32_t g_modules;
static struct kernel_ref* g_kernels;
static size_t g_nkernels, g_capkernels;
static struct symbol_ref* g_symbols;
static size_t g_nsymbols, g_capsymbols;
static struct alloc_ref* g_allocs; /* device allocations, for cudaMemcpyDefault and cudaFree checks */
static size_t g_nallocs, g_capallocs;
static struct mapped_ref* g_mapped;
static size_t g_nmapped, g_capmapped;
static int g_syncing; /* inside a mapped-memory synchronisation: no nested one */
static struct CUstream_st g_default_stream;
static _Thread_local struct launch_cfg g_cfg[8]; /* pushed by <<<>>>, popped by the stub */
static _Thread_local unsigned g_ncfg; /* per host thread, as a launch configuration and the last error are */
static _Thread_local cudaError_t g_last = cudaSuccess;
static char g_msg[512]; /* the server's message for the last failed call */
static pthread_mutex_t g_wire = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP; /* recursive: calls nest */

/* ---------------------------------------------------------------- the wire */

static void die(const char* what) {
  fprintf(stderr, "%s: Strata CUDA runtime: %s\n", program_invocation_short_name, what);
  exit(2);
}

/* The program uses what Strata does not implement: strata stops the run with this line (exit 2); a
 * program started outside strata prints it and exits 2. */
static void unsupported(const char* what) {
  if (g_fd < 0) die(what);
  fflush(stdout);
  struct strata_wire_req h = {STRATA_WIRE_FAIL, 0, (uint64_t)strlen(what)};
  ssize_t k = send(g_fd, &h, sizeof h, MSG_NOSIGNAL);
  if (k == (ssize_t)sizeof h) k = send(g_fd, what, strlen(what), MSG_NOSIGNAL);
  if (k < 0) die(what);
  char sink;
  while (recv(g_fd, &sink, 1, 0) > 0) { /* strata ends the program */
  }
  _exit(2);
}

static void lost(void) {
  /* strata ended the run (an error it has reported, or a time limit): leave quietly */
  _exit(1);
}

static void send_all(const void* p, size_t n) {
  const char* c = (const char*)p;
  while (n) {
    ssize_t k = send(g_fd, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) lost();
    c += k;
    n -= (size_t)k;
  }
}

static void recv_all(void* p, size_t n) {
  char* c = (char*)p;
  while (n) {
    ssize_t k = recv(g_fd, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) lost();
    c += k;
    n -= (size_t)k;
  }
}

static void connect_once(void) {
  if (g_fd >= 0) return;
  const char* e = getenv(STRATA_WIRE_FD_ENV);
  char* end = NULL;
  long fd = e ? strtol(e, &end, 10) : -1;
  if (!e || !*e || *end || fd < 0 || fd > 65535) {
    char buf[256];
    snprintf(buf, sizeof buf, "this program runs on Strata's simulated GPU: strata cuda run %s -- ARGS",
             program_invocation_name);
    die(buf);
  }
  g_fd = (int)fd;
  struct strata_wire_req h = {STRATA_WIRE_HELLO, 0, sizeof(struct strata_wire_hello)};
  struct strata_wire_hello b = {STRATA_WIRE_VERSION};
  send_all(&h, sizeof h);
  send_all(&b, sizeof b);
  struct strata_wire_rep r;
  recv_all(&r, sizeof r);
  if (r.status != 0 || r.len != 0) die("strata speaks another wire version (rebuild the program)");
}

/* One call: header + fixed part + variable part out; the reply's fixed part
 * into `out` (`out_len` bytes expected) and, for READ, `bulk`. */
static cudaError_t call_locked(uint32_t op, const void* fixed, size_t fixed_len, const void* var, size_t var_len,
                               void* out, size_t out_len) {
  connect_once();
  struct strata_wire_req h = {op, 0, (uint64_t)(fixed_len + var_len)};
  send_all(&h, sizeof h);
  if (fixed_len) send_all(fixed, fixed_len);
  if (var_len) send_all(var, var_len);
  struct strata_wire_rep r;
  recv_all(&r, sizeof r);
  if (r.status != 0) {
    size_t n = r.len < sizeof g_msg - 1 ? (size_t)r.len : sizeof g_msg - 1;
    recv_all(g_msg, n);
    g_msg[n] = 0;
    for (uint64_t rest = r.len - n; rest;) { /* drop what does not fit */
      char sink[256];
      size_t k = rest < sizeof sink ? (size_t)rest : sizeof sink;
      recv_all(sink, k);
      rest -= k;
    }
    return (cudaError_t)r.status;
  }
  if (r.len != out_len) die("strata replied with an unexpected length (wire out of step)");
  if (out_len) recv_all(out, out_len);
  return cudaSuccess;
}

static cudaError_t call(uint32_t op, const void* fixed, size_t fixed_len, const void* var, size_t var_len,
                        void* out, size_t out_len) {
  pthread_mutex_lock(&g_wire);
  cudaError_t e = call_locked(op, fixed, fixed_len, var, var_len, out, out_len);
  pthread_mutex_unlock(&g_wire);
  return e;
}

static cudaError_t record(cudaError_t e) {
  if (e != cudaSuccess) g_last = e;
  return e;
}

static void* grow(void* p, size_t* cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap * 2 : 16;
  while (c < need) c *= 2;
  void* q = realloc(p, c * elem);
  if (!q) die("out of host memory");
  *cap = c;
  return q;
}

static const struct kernel_ref* find_kernel(const void* stub) {
  for (size_t i = 0; i < g_nkernels; ++i)
    if (g_kernels[i].stub == stub) return &g_kernels[i];
  return NULL;
}

static const struct symbol_ref* find_symbol(const void* shadow) {
  for (size_t i = 0; i < g_nsymbols; ++i)
    if (g_symbols[i].shadow == shadow) return &g_symbols[i];
  return NULL;
}

static int is_device(const void* p) {
  uint64_t a = (uint64_t)(uintptr_t)p;
  for (size_t i = 0; i < g_nallocs; ++i)
    if (a >= g_allocs[i].addr && a - g_allocs[i].addr < g_allocs[i].bytes) return 1;
  for (size_t i = 0; i < g_nsymbols; ++i)
    if (a >= g_symbols[i].dev && a - g_symbols[i].dev < g_symbols[i].bytes) return 1;
  return 0;
}

/* ---------------------------------------------------------------- registration (clang's module constructor) */

/* The wrapper clang emits around the embedded GPU binary (here: PTX text). */
struct fatbin_wrapper {
  int magic;
  int version;
  const char* data;
  void* unused;
};
#define FATBIN_MAGIC 0x466243b1

void** __cudaRegisterFatBinary(void* wrapper) {
  const struct fatbin_wrapper* w = (const struct fatbin_wrapper*)wrapper;
  if (!w || w->magic != FATBIN_MAGIC || !w->data) die("a module without PTX (build the program with strata cuda build)");
  uint32_t* handle = (uint32_t*)malloc(sizeof(uint32_t));
  if (!handle) die("out of host memory");
  *handle = g_modules++;
  struct strata_wire_module m = {*handle};
  if (call(STRATA_WIRE_MODULE, &m, sizeof m, w->data, strlen(w->data) + 1, NULL, 0) != cudaSuccess) die(g_msg);
  return (void**)handle;
}

void __cudaRegisterFatBinaryEnd(void** handle) { (void)handle; }

void __cudaUnregisterFatBinary(void** handle) { free(handle); }

void __cudaRegisterFunction(void** handle, const char* stub, char* device_fun, const char* device_name,
                            int thread_limit, void* tid, void* bid, void* bdim, void* gdim, int* wsize) {
  (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)bdim, (void)gdim, (void)wsize;
  size_t n = strlen(device_name) + 1;
  if (n > STRATA_WIRE_MAX_NAME) die("a kernel name longer than 1023 characters");
  g_kernels = (struct kernel_ref*)grow(g_kernels, &g_capkernels, g_nkernels + 1, sizeof *g_kernels);
  struct kernel_ref* k = &g_kernels[g_nkernels];
  struct strata_wire_module m = {*(uint32_t*)handle};
  if (call(STRATA_WIRE_FUNCTION, &m, sizeof m, device_name, n, &k->params, sizeof k->params) != cudaSuccess)
    die(g_msg);
  k->stub = stub;
  k->kernel = k->params.kernel;
  ++g_nkernels;
}

void __cudaRegisterVar(void** handle, char* shadow, char* device_address, const char* device_name, int ext,
                       size_t size, int constant, int global) {
  (void)device_address, (void)ext, (void)global;
  size_t n = strlen(device_name) + 1;
  if (n > STRATA_WIRE_MAX_NAME) die("a variable name longer than 1023 characters");
  struct strata_wire_var v = {*(uint32_t*)handle, (uint32_t)constant, (uint64_t)size};
  struct strata_wire_addr a;
  if (call(STRATA_WIRE_VAR, &v, sizeof v, device_name, n, &a, sizeof a) != cudaSuccess) die(g_msg);
  g_symbols = (struct symbol_ref*)grow(g_symbols, &g_capsymbols, g_nsymbols + 1, sizeof *g_symbols);
  g_symbols[g_nsymbols++] = (struct symbol_ref){shadow, a.addr, (uint64_t)size};
}

/* ---------------------------------------------------------------- errors */

cudaError_t cudaGetLastError(void) {
  cudaError_t e = g_last;
  g_last = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return g_last; }

static const struct {
  cudaError_t e;
  const char* name;
  const char* text;
} kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture reference"},
    {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const char* cudaGetErrorString(cudaError_t error) {
  for (size_t i = 0; i < sizeof kErrors / sizeof kErrors[0]; ++i)
    if (kErrors[i].e == error) return kErrors[i].text;
  return "unrecognized error code";
}

const char* cudaGetErrorName(cudaError_t error) {
  for (size_t i = 0; i < sizeof kErrors / sizeof kErrors[0]; ++i)
    if (kErrors[i].e == error) return kErrors[i].name;
  return "cudaErrorUnknown";
}

/* ---------------------------------------------------------------- devices */

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return record(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return record(device == 0 ? cudaSuccess : cudaErrorInvalidDevice); }

cudaError_t cudaGetDevice(int* device) {
  if (!device) return record(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  (void)flags;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (!prop) return record(cudaErrorInvalidValue);
  if (device != 0) return record(cudaErrorInvalidDevice);
  cudaError_t e = call(STRATA_WIRE_PROPS, NULL, 0, NULL, 0, prop, sizeof *prop);
  if (e != cudaSuccess) return record(e);
  /* what the runtime itself provides (strata's reply leaves these zero) */
  prop->canMapHostMemory = 1; /* mapped host memory by mirroring (struct mapped_ref) */
  prop->sharedMemPerBlockOptin = prop->sharedMemPerBlock;
  prop->maxBlocksPerMultiProcessor = 32; /* Volta's limit (CUDA C++ Programming Guide, Table 15) */
  prop->globalL1CacheSupported = 1;
  prop->localL1CacheSupported = 1;
  prop->computeMode = cudaComputeModeDefault;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (!value) return record(cudaErrorInvalidValue);
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) return e;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrMaxPitch: *value = p.memPitch > INT32_MAX ? INT32_MAX : (int)p.memPitch; break;
    case cudaDevAttrTextureAlignment: *value = (int)p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: *value = p.deviceOverlap; break;
    case cudaDevAttrKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = p.computeMode; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrPciDomainId: *value = p.pciDomainID; break;
    case cudaDevAttrTccDriver: *value = p.tccDriver; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = p.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrCooperativeMultiDeviceLaunch: *value = p.cooperativeMultiDeviceLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)p.reservedSharedMemPerBlock; break;
    default: return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

/* Every call is synchronous: nothing is ever outstanding. */
cudaError_t cudaDeviceSynchronize(void) { return g_last == cudaErrorLaunchFailure ? g_last : cudaSuccess; }
cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
cudaError_t cudaDeviceReset(void) { return cudaSuccess; }
cudaError_t cudaThreadExit(void) { return cudaSuccess; }

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config) {
  (void)config;
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  (void)limit, (void)value;
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (!free_bytes || !total_bytes) return record(cudaErrorInvalidValue);
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) return e;
  size_t used = 0;
  for (size_t i = 0; i < g_nallocs; ++i) used += g_allocs[i].bytes;
  *total_bytes = p.totalGlobalMem;
  *free_bytes = used < p.totalGlobalMem ? p.totalGlobalMem - used : 0;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return record(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) { return cudaDriverGetVersion(version); }

/* ---------------------------------------------------------------- memory */

static cudaError_t dev_malloc_locked(void** ptr, size_t size) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = NULL;
  if (size == 0) return cudaSuccess;
  struct strata_wire_addr in = {(uint64_t)size}, out;
  cudaError_t e = call(STRATA_WIRE_MALLOC, &in, sizeof in, NULL, 0, &out, sizeof out);
  if (e != cudaSuccess) return record(e);
  g_allocs = (struct alloc_ref*)grow(g_allocs, &g_capallocs, g_nallocs + 1, sizeof *g_allocs);
  g_allocs[g_nallocs++] = (struct alloc_ref){out.addr, (uint64_t)size};
  *ptr = (void*)(uintptr_t)out.addr;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** ptr, size_t size) {
  pthread_mutex_lock(&g_wire);
  cudaError_t e = dev_malloc_locked(ptr, size);
  pthread_mutex_unlock(&g_wire);
  return e;
}

/* Managed memory is device memory until Unified Memory lands (docs/cuda.md). */
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned int flags) {
  (void)flags;
  return cudaMalloc(ptr, size);
}

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return record(cudaErrorInvalidValue);
  *pitch = (width + 127) & ~(size_t)127;
  return cudaMalloc(ptr, *pitch * height);
}

static cudaError_t dev_free_locked(void* ptr) {
  if (!ptr) return cudaSuccess;
  uint64_t a = (uint64_t)(uintptr_t)ptr;
  for (size_t i = 0; i < g_nallocs; ++i)
    if (g_allocs[i].addr == a) {
      struct strata_wire_addr in = {a};
      cudaError_t e = call(STRATA_WIRE_FREE, &in, sizeof in, NULL, 0, NULL, 0);
      g_allocs[i] = g_allocs[--g_nallocs];
      return record(e);
    }
  return record(cudaErrorInvalidDevicePointer);
}

cudaError_t cudaFree(void* ptr) {
  pthread_mutex_lock(&g_wire);
  cudaError_t e = dev_free_locked(ptr);
  pthread_mutex_unlock(&g_wire);
  return e;
}

/* Host memory: pinning means nothing to a simulator; mapping makes a device mirror. */
cudaError_t cudaMallocHost(void** ptr, size_t size) {
  if (!ptr) return record(cudaErrorInvalidValue);
  *ptr = malloc(size ? size : 1);
  return *ptr ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

static struct mapped_ref* find_mapped(const void* host) {
  const char* h = (const char*)host;
  for (size_t i = 0; i < g_nmapped; ++i)
    if (h >= g_mapped[i].host && (uint64_t)(h - g_mapped[i].host) < g_mapped[i].bytes) return &g_mapped[i];
  return NULL;
}

static cudaError_t map_host_locked(void* host, size_t size, unsigned flags, int owned) {
  if (size == 0) return cudaSuccess;
  if (find_mapped(host) || find_mapped((char*)host + size - 1)) return record(cudaErrorHostMemoryAlreadyRegistered);
  void* dev = NULL;
  cudaError_t e = cudaMalloc(&dev, size);
  if (e != cudaSuccess) return e;
  g_mapped = (struct mapped_ref*)grow(g_mapped, &g_capmapped, g_nmapped + 1, sizeof *g_mapped);
  g_mapped[g_nmapped++] = (struct mapped_ref){(char*)host, (uint64_t)(uintptr_t)dev, (uint64_t)size, flags, owned};
  return cudaSuccess;
}

static cudaError_t map_host(void* host, size_t size, unsigned flags, int owned) {
  pthread_mutex_lock(&g_wire);
  cudaError_t e = map_host_locked(host, size, flags, owned);
  pthread_mutex_unlock(&g_wire);
  return e;
}

static cudaError_t unmap_host_locked(void* host) {
  for (size_t i = 0; i < g_nmapped; ++i)
    if (g_mapped[i].host == (char*)host) {
      cudaError_t e = cudaFree((void*)(uintptr_t)g_mapped[i].dev);
      g_mapped[i] = g_mapped[--g_nmapped];
      return e;
    }
  return cudaErrorInvalidValue;
}

static cudaError_t unmap_host(void* host) {
  pthread_mutex_lock(&g_wire);
  cudaError_t e = unmap_host_locked(host);
  pthread_mutex_unlock(&g_wire);
  return e;
}

static cudaError_t write_dev(uint64_t dst, const void* src, size_t n);
static cudaError_t read_dev(void* dst, uint64_t src, size_t n);

/* Mapped host memory to its device mirrors (before device work) and back (after it). */
static cudaError_t push_mapped(void) {
  for (size_t i = 0; i < g_nmapped; ++i) {
    cudaError_t e = write_dev(g_mapped[i].dev, g_mapped[i].host, g_mapped[i].bytes);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/* Mirrors back to host memory: all (written = NULL, after a launch) or those overlapping the device range
 * a copy or memset wrote (a copy into mapped host memory itself must not be undone). */
static cudaError_t pull_mapped(const void* written, size_t n) {
  uint64_t a = (uint64_t)(uintptr_t)written;
  for (size_t i = 0; i < g_nmapped; ++i) {
    if (written && !(a < g_mapped[i].dev + g_mapped[i].bytes && g_mapped[i].dev < a + n)) continue;
    cudaError_t e = read_dev(g_mapped[i].host, g_mapped[i].dev, g_mapped[i].bytes);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int flags) {
  cudaError_t e = cudaMallocHost(ptr, size);
  if (e != cudaSuccess || !(flags & cudaHostAllocMapped)) return e;
  e = map_host(*ptr, size, flags, 1);
  if (e != cudaSuccess) {
    free(*ptr);
    *ptr = NULL;
  }
  return e;
}

cudaError_t cudaFreeHost(void* ptr) {
  struct mapped_ref* m = ptr ? find_mapped(ptr) : NULL;
  if (m && m->host == (char*)ptr && m->owned) unmap_host(ptr);
  free(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (!ptr || size == 0) return record(cudaErrorInvalidValue);
  return flags & cudaHostRegisterMapped ? map_host(ptr, size, flags, 0) : cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
  if (!ptr) return record(cudaErrorInvalidValue);
  struct mapped_ref* m = find_mapped(ptr);
  if (m && !m->owned) return record(unmap_host(ptr));
  return cudaSuccess; /* registrations without a mapping are not kept: nothing to undo */
}

cudaError_t cudaHostGetDevicePointer(void** dev_ptr, void* host_ptr, unsigned int flags) {
  if (!dev_ptr || flags != 0) return record(cudaErrorInvalidValue);
  const struct mapped_ref* m = find_mapped(host_ptr);
  if (!m) return record(cudaErrorInvalidValue); /* not mapped: CUDA's answer as well */
  *dev_ptr = (void*)(uintptr_t)(m->dev + (uint64_t)((char*)host_ptr - m->host));
  return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host_ptr) {
  if (!flags) return record(cudaErrorInvalidValue);
  const struct mapped_ref* m = find_mapped(host_ptr);
  *flags = m ? m->flags : cudaHostAllocDefault;
  return cudaSuccess;
}

/* Whether the device range [a, a + n) overlaps a mirror (a copy or memset through the device pointer
 * of mapped host memory). */
static int touches_mirror(const void* p, size_t n) {
  uint64_t a = (uint64_t)(uintptr_t)p;
  for (size_t i = 0; i < g_nmapped; ++i)
    if (a < g_mapped[i].dev + g_mapped[i].bytes && g_mapped[i].dev < a + n) return 1;
  return 0;
}

/* Device work bracketed by the mapped-memory synchronisation (nothing to do without mappings). */
#define WITH_MAPPED(cond, written, n, expr)                                            \
  do {                                                                     \
    if (!g_nmapped || g_syncing || !(cond)) return (expr);                 \
    g_syncing = 1;                                                         \
    cudaError_t e_ = push_mapped();                                        \
    cudaError_t r_ = e_ == cudaSuccess ? (expr) : e_;                      \
    e_ = pull_mapped(written, n);                                          \
    g_syncing = 0;                                                         \
    return r_ != cudaSuccess ? r_ : record(e_);                            \
  } while (0)

/* Copies travel in pieces of at most 64 MiB (the wire's buffers stay small). */
#define PIECE (64u << 20)

static cudaError_t write_dev(uint64_t dst, const void* src, size_t n) {
  const char* s = (const char*)src;
  while (n) {
    size_t k = n < PIECE ? n : PIECE;
    struct strata_wire_addr a = {dst};
    cudaError_t e = call(STRATA_WIRE_WRITE, &a, sizeof a, s, k, NULL, 0);
    if (e != cudaSuccess) return e;
    dst += k, s += k, n -= k;
  }
  return cudaSuccess;
}

static cudaError_t read_dev(void* dst, uint64_t src, size_t n) {
  char* d = (char*)dst;
  while (n) {
    size_t k = n < PIECE ? n : PIECE;
    struct strata_wire_range r = {src, (uint64_t)k};
    cudaError_t e = call(STRATA_WIRE_READ, &r, sizeof r, NULL, 0, d, k);
    if (e != cudaSuccess) return e;
    src += k, d += k, n -= k;
  }
  return cudaSuccess;
}

static cudaError_t memcpy_now(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  if (!dst || !src) return record(cudaErrorInvalidValue);
  if (kind == cudaMemcpyDefault)
    kind = is_device(dst) ? (is_device(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                          : (is_device(src) ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  switch (kind) {
    case cudaMemcpyHostToHost: memmove(dst, src, count); return cudaSuccess;
    case cudaMemcpyHostToDevice: return record(write_dev((uint64_t)(uintptr_t)dst, src, count));
    case cudaMemcpyDeviceToHost: return record(read_dev(dst, (uint64_t)(uintptr_t)src, count));
    case cudaMemcpyDeviceToDevice: {
      struct strata_wire_copy c = {(uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)src, (uint64_t)count};
      return record(call(STRATA_WIRE_COPY, &c, sizeof c, NULL, 0, NULL, 0));
    }
    default: return record(cudaErrorInvalidMemcpyDirection);
  }
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return record(cudaErrorInvalidValue);
  WITH_MAPPED(touches_mirror(dst, count) || touches_mirror(src, count), dst, count, memcpy_now(dst, src, count, kind));
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream) {
  (void)stream;
  return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; ++r) {
    cudaError_t e = cudaMemcpy((char*)dst + r * dpitch, (const char*)src + r * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

static cudaError_t memset_now(void* ptr, int value, size_t count) {
  struct strata_wire_set s = {(uint64_t)(uintptr_t)ptr, (uint64_t)count, (uint32_t)(value & 0xff), 0};
  return record(call(STRATA_WIRE_SET, &s, sizeof s, NULL, 0, NULL, 0));
}

cudaError_t cudaMemset(void* ptr, int value, size_t count) {
  if (count == 0) return cudaSuccess;
  if (!ptr) return record(cudaErrorInvalidValue);
  WITH_MAPPED(touches_mirror(ptr, count), ptr, count, memset_now(ptr, value, count));
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream) {
  (void)stream;
  return cudaMemset(ptr, value, count);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  const struct symbol_ref* s = find_symbol(symbol);
  if (!s) return record(cudaErrorInvalidSymbol);
  if (offset > s->bytes || count > s->bytes - offset) return record(cudaErrorInvalidValue);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return record(cudaErrorInvalidMemcpyDirection);
  return cudaMemcpy((void*)(uintptr_t)(s->dev + offset), src, count,
                    kind == cudaMemcpyDefault ? cudaMemcpyHostToDevice : kind);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  const struct symbol_ref* s = find_symbol(symbol);
  if (!s) return record(cudaErrorInvalidSymbol);
  if (offset > s->bytes || count > s->bytes - offset) return record(cudaErrorInvalidValue);
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return record(cudaErrorInvalidMemcpyDirection);
  return cudaMemcpy(dst, (const void*)(uintptr_t)(s->dev + offset), count,
                    kind == cudaMemcpyDefault ? cudaMemcpyDeviceToHost : kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  (void)stream;
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  const struct symbol_ref* s = find_symbol(symbol);
  if (!dev_ptr) return record(cudaErrorInvalidValue);
  if (!s) return record(cudaErrorInvalidSymbol);
  *dev_ptr = (void*)(uintptr_t)s->dev;
  return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, int device, cudaStream_t stream) {
  (void)ptr, (void)count, (void)device, (void)stream;
  return cudaSuccess;
}

/* ---------------------------------------------------------------- streams and events */

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  (void)flags;
  if (!stream) return record(cudaErrorInvalidValue);
  *stream = (cudaStream_t)calloc(1, sizeof(struct CUstream_st));
  return *stream ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

/* The default stream under its three names: 0, cudaStreamLegacy, cudaStreamPerThread. */
static int is_default_stream(cudaStream_t stream) {
  return stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
  (void)priority; /* one priority: cudaDeviceGetStreamPriorityRange gives [0, 0] */
  return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (is_default_stream(stream)) return record(cudaErrorInvalidResourceHandle);
  free(stream);
  return cudaSuccess;
}

/* A host function in a stream runs when the work issued before it has finished: every call is
 * synchronous, so that is now. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                  unsigned int flags) {
  if (!callback || flags != 0) return record(cudaErrorInvalidValue);
  callback(stream, cudaSuccess, user_data);
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  (void)stream;
  if (!fn) return record(cudaErrorInvalidValue);
  fn(user_data);
  return cudaSuccess;
}

cudaError_t cudaStreamSetAttribute(cudaStream_t stream, enum cudaStreamAttrID attr,
                                   const union cudaStreamAttrValue* value) {
  struct CUstream_st* st = is_default_stream(stream) ? &g_default_stream : stream;
  if (!value) return record(cudaErrorInvalidValue);
  switch (attr) {
    case cudaStreamAttributeAccessPolicyWindow: st->policy.accessPolicyWindow = value->accessPolicyWindow; break;
    case cudaStreamAttributeSynchronizationPolicy: st->policy.syncPolicy = value->syncPolicy; break;
    default: return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, enum cudaStreamAttrID attr, union cudaStreamAttrValue* value) {
  const struct CUstream_st* st = is_default_stream(stream) ? &g_default_stream : stream;
  if (!value) return record(cudaErrorInvalidValue);
  switch (attr) {
    case cudaStreamAttributeAccessPolicyWindow: value->accessPolicyWindow = st->policy.accessPolicyWindow; break;
    case cudaStreamAttributeSynchronizationPolicy: value->syncPolicy = st->policy.syncPolicy; break;
    default: return record(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  (void)stream;
  return cudaDeviceSynchronize();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  (void)stream;
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  (void)stream, (void)event, (void)flags;
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  (void)flags;
  if (!event) return record(cudaErrorInvalidValue);
  *event = (cudaEvent_t)calloc(1, sizeof(struct CUevent_st));
  return *event ? cudaSuccess : record(cudaErrorMemoryAllocation);
}

/* An event's time stamp is the simulated time when it is recorded (all
 * earlier work has finished: every call is synchronous). */
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  (void)stream;
  if (!event) return record(cudaErrorInvalidResourceHandle);
  struct strata_wire_time t;
  cudaError_t e = call(STRATA_WIRE_TIME, NULL, 0, NULL, 0, &t, sizeof t);
  if (e != cudaSuccess) return record(e);
  event->ps = t.ps;
  event->recorded = 1;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : record(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return record(cudaErrorInvalidValue);
  if (!start || !end) return record(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return record(cudaErrorInvalidResourceHandle);
  *ms = (float)(((double)end->ps - (double)start->ps) * 1e-9);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  free(event);
  return cudaSuccess;
}

/* ---------------------------------------------------------------- kernels */

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared_bytes, void* stream) {
  if (g_ncfg == sizeof g_cfg / sizeof g_cfg[0]) die("kernel launch configurations nested too deep");
  g_cfg[g_ncfg++] = (struct launch_cfg){grid, block, shared_bytes, stream};
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_bytes, void** stream) {
  if (g_ncfg == 0) return record(cudaErrorInvalidConfiguration);
  const struct launch_cfg* c = &g_cfg[--g_ncfg];
  *grid = c->grid;
  *block = c->block;
  *shared_bytes = c->shared;
  *stream = c->stream;
  return cudaSuccess;
}

cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream) {
  __cudaPushCallConfiguration(grid, block, shared_bytes, stream);
  return cudaSuccess;
}

static cudaError_t launch_now(const void* func, dim3 grid, dim3 block, void** args, size_t shared_bytes) {
  const struct kernel_ref* k = find_kernel(func);
  if (!k) return record(cudaErrorInvalidDeviceFunction);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
    return record(cudaErrorInvalidConfiguration);
  /* the parameter buffer as the PTX entry lays it out (CUDA 12.1 allows 32764 bytes of parameters) */
  static unsigned char buf[32768]; /* filled and sent under g_wire: one launch at a time */
  if (k->params.total > sizeof buf) return record(cudaErrorInvalidValue);
  pthread_mutex_lock(&g_wire);
  memset(buf, 0, k->params.total);
  for (uint32_t i = 0; i < k->params.count; ++i) memcpy(buf + k->params.offset[i], args[i], k->params.size[i]);
  struct strata_wire_launch l = {k->kernel, {grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                                 k->params.total, (uint64_t)shared_bytes};
  /* kernel printf text follows the program's own output (strata writes it when the launch ends) */
  fflush(stdout);
  cudaError_t e = call(STRATA_WIRE_LAUNCH, &l, sizeof l, buf, k->params.total, NULL, 0);
  pthread_mutex_unlock(&g_wire);
  return record(e);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared_bytes,
                             cudaStream_t stream) {
  (void)stream;
  WITH_MAPPED(1, NULL, 0, launch_now(func, grid, block, args, shared_bytes));
}

cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache config) {
  (void)config;
  return find_kernel(func) ? cudaSuccess : record(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  if (!attr) return record(cudaErrorInvalidValue);
  if (!find_kernel(func)) return record(cudaErrorInvalidDeviceFunction);
  memset(attr, 0, sizeof *attr);
  attr->maxThreadsPerBlock = 1024;
  attr->ptxVersion = 64;
  attr->binaryVersion = 70;
  return cudaSuccess;
}

/* Occupancy from the simulated GPU's per-SM limits (threads, dynamic shared memory, 32 CTAs). The
 * executor does not allocate registers and the runtime does not know a kernel's static shared
 * memory, so neither limits the answer. */
static cudaError_t occupancy(const void* func, int block_size, size_t dynamic_shared, int* blocks) {
  if (!find_kernel(func)) return record(cudaErrorInvalidDeviceFunction);
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) return e;
  if (block_size <= 0 || block_size > p.maxThreadsPerBlock || dynamic_shared > p.sharedMemPerBlock)
    return record(cudaErrorInvalidValue);
  int warps = (block_size + p.warpSize - 1) / p.warpSize;
  int n = p.maxThreadsPerMultiProcessor / (warps * p.warpSize);
  if (n > p.maxBlocksPerMultiProcessor) n = p.maxBlocksPerMultiProcessor;
  if (dynamic_shared && (size_t)n * dynamic_shared > p.sharedMemPerMultiprocessor)
    n = (int)(p.sharedMemPerMultiprocessor / dynamic_shared);
  *blocks = n;
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func, int block_size,
                                                          size_t dynamic_shared_bytes) {
  if (!blocks) return record(cudaErrorInvalidValue);
  return occupancy(func, block_size, dynamic_shared_bytes, blocks);
}

/* The block size (a multiple of the warp size, at most block_size_limit) with the most resident threads
 * per SM, the largest such on a tie; the grid that fills every SM with it. */
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, const void* func,
                                               size_t dynamic_shared_bytes, int block_size_limit) {
  if (!min_grid_size || !block_size || block_size_limit < 0) return record(cudaErrorInvalidValue);
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) return e;
  int limit = block_size_limit && block_size_limit < p.maxThreadsPerBlock ? block_size_limit : p.maxThreadsPerBlock;
  int best = 0, best_blocks = 0;
  for (int b = limit < p.warpSize ? limit : p.warpSize; b <= limit; b += p.warpSize) {
    int n;
    if (dynamic_shared_bytes > p.sharedMemPerBlock) break;
    e = occupancy(func, b, dynamic_shared_bytes, &n);
    if (e != cudaSuccess) return e;
    if (n > 0 && n * b >= best_blocks * best) best = b, best_blocks = n;
  }
  if (!best) return record(cudaErrorInvalidValue);
  *block_size = best;
  *min_grid_size = best_blocks * p.multiProcessorCount;
  return cudaSuccess;
}

/* ---------------------------------------------------------------- textures */

/* Textures on linear device memory, read with tex1Dfetch (docs/cuda.md "Textures"). A texture is a
 * descriptor in device memory (struct strata_wire_texture) that the PTX executor reads at each
 * fetch: a texture object is the address of one the runtime allocates, a texture reference's is
 * its .texref variable, which cudaBindTexture writes. What CUDA rejects returns CUDA's error; what
 * CUDA supports but Strata does not (arrays, 2D pitched memory, half floats, 3 channels) stops the
 * program with one line (exit 2), so it is never silently wrong. */

static const char* resource_name(enum cudaResourceType t) {
  switch (t) {
    case cudaResourceTypeArray: return "cudaResourceTypeArray";
    case cudaResourceTypeMipmappedArray: return "cudaResourceTypeMipmappedArray";
    case cudaResourceTypePitch2D: return "cudaResourceTypePitch2D";
    default: return "an unknown resource type";
  }
}

/* The descriptor of `bytes` at dev_ptr read as `desc` in `mode`; cudaSuccess or CUDA's error. */
static cudaError_t tex_describe(const char* who, const void* dev_ptr, size_t bytes, const struct cudaChannelFormatDesc* d,
                                int mode, struct strata_wire_texture* t) {
  memset(t, 0, sizeof *t);
  if (!d || d->x <= 0 || (d->y && d->y != d->x) || (d->z && d->z != d->x) || (d->w && d->w != d->x) ||
      (d->z && !d->y) || (d->w && !d->z) || d->f > cudaChannelFormatKindFloat)
    return cudaErrorInvalidChannelDescriptor;
  unsigned ch = 1u + (d->y != 0) + (d->z != 0) + (d->w != 0);
  char msg[256];
  if (ch == 3 || (d->x != 8 && d->x != 16 && d->x != 32) || (d->f == cudaChannelFormatKindFloat && d->x != 32)) {
    snprintf(msg, sizeof msg,
             "%s: a texture of %u channels of %d bits (format %d); Strata implements 1, 2 or 4 channels of 8, 16 or 32 "
             "bits, floats of 32 bits",
             who, ch, d->x, (int)d->f);
    unsupported(msg);
  }
  if (mode == cudaReadModeNormalizedFloat && (d->f == cudaChannelFormatKindFloat || d->x == 32))
    return cudaErrorInvalidValue; /* CUDA: normalized reads need 8- or 16-bit integer channels */
  if (mode != cudaReadModeElementType && mode != cudaReadModeNormalizedFloat) return cudaErrorInvalidValue;
  uint64_t a = (uint64_t)(uintptr_t)dev_ptr;
  unsigned esz = ch * (unsigned)d->x / 8u;
  if (!dev_ptr || !is_device(dev_ptr) || a % esz) return cudaErrorInvalidValue;
  /* the bound bytes end at the allocation's end */
  uint64_t left = 0;
  for (size_t i = 0; i < g_nallocs; ++i)
    if (a >= g_allocs[i].addr && a - g_allocs[i].addr < g_allocs[i].bytes) left = g_allocs[i].bytes - (a - g_allocs[i].addr);
  for (size_t i = 0; i < g_nsymbols; ++i)
    if (a >= g_symbols[i].dev && a - g_symbols[i].dev < g_symbols[i].bytes) left = g_symbols[i].bytes - (a - g_symbols[i].dev);
  t->magic = STRATA_WIRE_TEX_MAGIC;
  t->kind = STRATA_WIRE_TEX_LINEAR;
  t->channels = (uint8_t)ch;
  t->bits = (uint8_t)d->x;
  t->format = (uint8_t)d->f;
  t->base = a;
  t->bytes = bytes < left ? (uint64_t)bytes : left;
  t->read_mode = (uint32_t)mode;
  return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* tex, const struct cudaResourceDesc* res,
                                    const struct cudaTextureDesc* desc, const struct cudaResourceViewDesc* view) {
  if (!tex || !res || !desc) return record(cudaErrorInvalidValue);
  char msg[256];
  if (res->resType != cudaResourceTypeLinear) {
    snprintf(msg, sizeof msg,
             "cudaCreateTextureObject: a texture on %s; Strata implements textures on linear memory "
             "(cudaResourceTypeLinear, read with tex1Dfetch)",
             resource_name(res->resType));
    unsupported(msg);
  }
  if (view) unsupported("cudaCreateTextureObject: a resource view; Strata implements textures on linear memory without views");
  struct strata_wire_texture t;
  cudaError_t e = tex_describe("cudaCreateTextureObject", res->res.linear.devPtr, res->res.linear.sizeInBytes,
                               &res->res.linear.desc, (int)desc->readMode, &t);
  if (e != cudaSuccess) return record(e);
  void* at = NULL;
  e = cudaMalloc(&at, sizeof t);
  if (e != cudaSuccess) return e;
  e = write_dev((uint64_t)(uintptr_t)at, &t, sizeof t);
  if (e != cudaSuccess) return record(e);
  *tex = (cudaTextureObject_t)(uintptr_t)at;
  return cudaSuccess;
}

/* 1 with the descriptor of texture object `tex` in *t, 0 if it is none */
static int tex_read(cudaTextureObject_t tex, struct strata_wire_texture* t) {
  if (!tex || !is_device((const void*)(uintptr_t)tex)) return 0;
  return read_dev(t, (uint64_t)tex, sizeof *t) == cudaSuccess && t->magic == STRATA_WIRE_TEX_MAGIC;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  struct strata_wire_texture t;
  if (!tex) return cudaSuccess;
  if (!tex_read(tex, &t)) return record(cudaErrorInvalidValue);
  memset(&t, 0, sizeof t); /* a fetch through a destroyed object is an error, not stale data */
  write_dev((uint64_t)tex, &t, sizeof t);
  return cudaFree((void*)(uintptr_t)tex);
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* res, cudaTextureObject_t tex) {
  struct strata_wire_texture t;
  if (!res || !tex_read(tex, &t)) return record(cudaErrorInvalidValue);
  memset(res, 0, sizeof *res);
  res->resType = cudaResourceTypeLinear;
  res->res.linear.devPtr = (void*)(uintptr_t)t.base;
  res->res.linear.sizeInBytes = (size_t)t.bytes;
  int b = t.bits;
  res->res.linear.desc = cudaCreateChannelDesc(b, t.channels > 1 ? b : 0, t.channels > 2 ? b : 0, t.channels > 2 ? b : 0,
                                               (enum cudaChannelFormatKind)t.format);
  return cudaSuccess;
}

/* clang's module constructor: a texture<> variable, whose .texref holds its descriptor */
void __cudaRegisterTexture(void** handle, const struct textureReference* host_var, const void** device_address,
                           const char* device_name, int dim, int norm, int ext) {
  (void)device_address, (void)norm;
  if (dim != 1) {
    char msg[256];
    snprintf(msg, sizeof msg, "texture reference %s has %d dimensions; Strata implements 1D textures on linear memory",
             device_name, dim);
    unsupported(msg);
  }
  __cudaRegisterVar(handle, (char*)host_var, NULL, device_name, ext, sizeof(struct strata_wire_texture), 0, 0);
}

cudaError_t cudaBindTexture(size_t* offset, const struct textureReference* tex, const void* dev_ptr,
                            const struct cudaChannelFormatDesc* desc, size_t size) {
  const struct symbol_ref* s = tex ? find_symbol(tex) : NULL;
  if (!s) return record(cudaErrorInvalidTexture);
  struct strata_wire_texture t;
  cudaError_t e = tex_describe("cudaBindTexture", dev_ptr, size, desc ? desc : &tex->channelDesc, tex->strata_read_mode, &t);
  if (e != cudaSuccess) return record(e);
  if (offset) *offset = 0;
  return record(write_dev(s->dev, &t, sizeof t));
}

cudaError_t cudaUnbindTexture(const struct textureReference* tex) {
  const struct symbol_ref* s = tex ? find_symbol(tex) : NULL;
  if (!s) return record(cudaErrorInvalidTexture);
  struct strata_wire_texture t;
  memset(&t, 0, sizeof t);
  return record(write_dev(s->dev, &t, sizeof t));
}

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
  struct cudaChannelFormatDesc d = {x, y, z, w, f};
  return d;
}
