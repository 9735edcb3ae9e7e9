/* Strata's CUDA headers: texture types of the runtime API (CUDA Runtime API, "Texture Object
 * Management" and "Texture Reference Management"; CUDA C++ Programming Guide, "Texture and Surface
 * Memory"). Strata implements textures on linear device memory read with tex1Dfetch (docs/cuda.md
 * "Textures"); the other resource kinds are declared so sources compile, and the runtime stops a
 * program that creates one with one line (exit 2). */
#ifndef STRATA_CUDA_TEXTURE_TYPES_H
#define STRATA_CUDA_TEXTURE_TYPES_H

#include <stddef.h>

#include "driver_types.h"

typedef unsigned long long cudaTextureObject_t;

enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};

enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };

enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3
};

typedef struct cudaArray* cudaArray_t;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;

/* What a texture object reads. Strata implements res.linear (cudaResourceTypeLinear). */
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      struct cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      struct cudaChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
  } res;
};

/* How a texture object is read. For tex1Dfetch on linear memory only readMode matters (addressing,
 * filtering and normalized coordinates apply to the fetches from CUDA arrays). */
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
};

struct cudaResourceViewDesc;

/* A texture reference (the legacy API): `texture<T, dim, mode>` derives from it. The runtime
 * binds it to linear memory by writing the descriptor of its .texref variable in device memory. */
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int strata_read_mode; /* the template's cudaTextureReadMode (texture<T, dim, mode> sets it) */
};

#endif
