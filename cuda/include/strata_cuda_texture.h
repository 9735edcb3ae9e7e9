/* Strata's CUDA headers: textures on linear device memory read with tex1Dfetch, through texture
 * objects (cudaCreateTextureObject with a cudaResourceTypeLinear resource) and through texture
 * references (the legacy `texture<T, 1, mode>` with cudaBindTexture). Written for Strata from the
 * CUDA Runtime API and the CUDA C++ Programming Guide ("Texture Fetching", "tex1Dfetch()").
 *
 * A fetch is one PTX instruction, tex.1d.v4.{s32,u32,f32}.s32, that the PTX executor performs
 * (docs/ptx.md "Textures"): the handle is the device address of a descriptor the runtime writes
 * (cuda/runtime/strata_cuda_wire.h), for a texture reference the address of its .texref variable.
 * Element types: char, signed/unsigned char, short, unsigned short, int, unsigned int, float and
 * their 1-, 2- and 4-vectors; with cudaReadModeNormalizedFloat the 8- and 16-bit integer types
 * read as float (float2, float4). */
#ifndef STRATA_CUDA_TEXTURE_H
#define STRATA_CUDA_TEXTURE_H

#include "driver_types.h"
#include "texture_types.h"
#include "vector_types.h"

#ifdef __cplusplus
extern "C" {
#endif
cudaError_t cudaCreateTextureObject(cudaTextureObject_t* tex, const struct cudaResourceDesc* res,
                                    const struct cudaTextureDesc* desc, const struct cudaResourceViewDesc* view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* res, cudaTextureObject_t tex);
cudaError_t cudaBindTexture(size_t* offset, const struct textureReference* tex, const void* dev_ptr,
                            const struct cudaChannelFormatDesc* desc, size_t size);
cudaError_t cudaUnbindTexture(const struct textureReference* tex);
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f);
#ifdef __cplusplus
}

/* ---------------------------------------------------------------- channel descriptions */

template <class T>
static inline struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
  return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define STRATA_CHANNEL(T, BITS, N, KIND)                                                            \
  template <>                                                                                     \
  inline struct cudaChannelFormatDesc cudaCreateChannelDesc<T>(void) {                             \
    return cudaCreateChannelDesc(BITS, N > 1 ? BITS : 0, N > 2 ? BITS : 0, N > 2 ? BITS : 0, KIND); \
  }
#define STRATA_CHANNELS(S, V, BITS, KIND) \
  STRATA_CHANNEL(S, BITS, 1, KIND)        \
  STRATA_CHANNEL(V##1, BITS, 1, KIND)     \
  STRATA_CHANNEL(V##2, BITS, 2, KIND)     \
  STRATA_CHANNEL(V##4, BITS, 4, KIND)
STRATA_CHANNEL(char, 8, 1, cudaChannelFormatKindSigned)
STRATA_CHANNELS(signed char, char, 8, cudaChannelFormatKindSigned)
STRATA_CHANNELS(unsigned char, uchar, 8, cudaChannelFormatKindUnsigned)
STRATA_CHANNELS(short, short, 16, cudaChannelFormatKindSigned)
STRATA_CHANNELS(unsigned short, ushort, 16, cudaChannelFormatKindUnsigned)
STRATA_CHANNELS(int, int, 32, cudaChannelFormatKindSigned)
STRATA_CHANNELS(unsigned int, uint, 32, cudaChannelFormatKindUnsigned)
STRATA_CHANNELS(float, float, 32, cudaChannelFormatKindFloat)
#undef STRATA_CHANNELS
#undef STRATA_CHANNEL

/* ---------------------------------------------------------------- texture references */

#ifdef __CUDA__
#define STRATA_TEXTURE_TYPE __attribute__((device_builtin_texture_type))
#else
#define STRATA_TEXTURE_TYPE
#endif

template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct STRATA_TEXTURE_TYPE texture : public textureReference {
  __host__ texture(int norm = 0, enum cudaTextureFilterMode filter = cudaFilterModePoint,
                   enum cudaTextureAddressMode address = cudaAddressModeClamp) {
    init(norm, filter, address, cudaCreateChannelDesc<T>());
  }
  __host__ texture(int norm, enum cudaTextureFilterMode filter, enum cudaTextureAddressMode address,
                   struct cudaChannelFormatDesc desc) {
    init(norm, filter, address, desc);
  }

 private:
  __host__ void init(int norm, enum cudaTextureFilterMode filter, enum cudaTextureAddressMode address,
                     struct cudaChannelFormatDesc desc) {
    normalized = norm;
    filterMode = filter;
    addressMode[0] = addressMode[1] = addressMode[2] = address;
    channelDesc = desc;
    sRGB = 0;
    maxAnisotropy = 0;
    mipmapFilterMode = cudaFilterModePoint;
    mipmapLevelBias = minMipmapLevelClamp = maxMipmapLevelClamp = 0.0f;
    strata_read_mode = mode;
  }
};

template <class T, int dim, enum cudaTextureReadMode mode>
static inline cudaError_t cudaBindTexture(size_t* offset, const struct texture<T, dim, mode>& tex, const void* dev_ptr,
                                          const struct cudaChannelFormatDesc& desc, size_t size = ~(size_t)0) {
  return cudaBindTexture(offset, static_cast<const struct textureReference*>(&tex), dev_ptr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static inline cudaError_t cudaBindTexture(size_t* offset, const struct texture<T, dim, mode>& tex, const void* dev_ptr,
                                          size_t size = ~(size_t)0) {
  return cudaBindTexture(offset, static_cast<const struct textureReference*>(&tex), dev_ptr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static inline cudaError_t cudaUnbindTexture(const struct texture<T, dim, mode>& tex) {
  return cudaUnbindTexture(static_cast<const struct textureReference*>(&tex));
}

/* ---------------------------------------------------------------- tex1Dfetch (CUDA sources only) */
#ifdef __CUDA__

#define STRATA_TEX_FETCH(NAME, V, DT, C)                                                         \
  __device__ static inline V NAME(cudaTextureObject_t t, int x) {                                 \
    V r;                                                                                        \
    asm("tex.1d.v4." DT ".s32 {%0, %1, %2, %3}, [%4, {%5}];"                                     \
        : "=" C(r.x), "=" C(r.y), "=" C(r.z), "=" C(r.w)                                        \
        : "l"(t), "r"(x));                                                                       \
    return r;                                                                                   \
  }
STRATA_TEX_FETCH(__strata_tex_s32, int4, "s32", "r")
STRATA_TEX_FETCH(__strata_tex_u32, uint4, "u32", "r")
STRATA_TEX_FETCH(__strata_tex_f32, float4, "f32", "f")
#undef STRATA_TEX_FETCH

/* Per element type: the fetch in element mode (elem, returning T) and in normalized-float mode
 * (norm, returning float / float2 / float4; 8- and 16-bit integer types only). */
template <class T>
struct __strata_tex;
#define STRATA_TEX_SCALAR(T, F)                                                          \
  template <>                                                                            \
  struct __strata_tex<T> {                                                               \
    __device__ static T elem(cudaTextureObject_t t, int x) { return (T)F(t, x).x; }      \
    __device__ static float norm(cudaTextureObject_t t, int x) { return __strata_tex_f32(t, x).x; } \
  };
#define STRATA_TEX_VEC(V, E, F, NV)                                                                      \
  template <>                                                                                          \
  struct __strata_tex<V##1> {                                                                          \
    __device__ static V##1 elem(cudaTextureObject_t t, int x) {                                        \
      V##1 v;                                                                                          \
      v.x = (E)F(t, x).x;                                                                              \
      return v;                                                                                        \
    }                                                                                                  \
    __device__ static NV##1 norm(cudaTextureObject_t t, int x) {                                       \
      NV##1 v;                                                                                         \
      v.x = __strata_tex_f32(t, x).x;                                                                  \
      return v;                                                                                        \
    }                                                                                                  \
  };                                                                                                   \
  template <>                                                                                          \
  struct __strata_tex<V##2> {                                                                          \
    __device__ static V##2 elem(cudaTextureObject_t t, int x) {                                        \
      auto r = F(t, x);                                                                                \
      V##2 v;                                                                                          \
      v.x = (E)r.x, v.y = (E)r.y;                                                                      \
      return v;                                                                                        \
    }                                                                                                  \
    __device__ static NV##2 norm(cudaTextureObject_t t, int x) {                                       \
      float4 r = __strata_tex_f32(t, x);                                                               \
      NV##2 v;                                                                                         \
      v.x = r.x, v.y = r.y;                                                                            \
      return v;                                                                                        \
    }                                                                                                  \
  };                                                                                                   \
  template <>                                                                                          \
  struct __strata_tex<V##4> {                                                                          \
    __device__ static V##4 elem(cudaTextureObject_t t, int x) {                                        \
      auto r = F(t, x);                                                                                \
      V##4 v;                                                                                          \
      v.x = (E)r.x, v.y = (E)r.y, v.z = (E)r.z, v.w = (E)r.w;                                          \
      return v;                                                                                        \
    }                                                                                                  \
    __device__ static NV##4 norm(cudaTextureObject_t t, int x) {                                       \
      float4 r = __strata_tex_f32(t, x);                                                               \
      NV##4 v;                                                                                         \
      v.x = r.x, v.y = r.y, v.z = r.z, v.w = r.w;                                                      \
      return v;                                                                                        \
    }                                                                                                  \
  };
STRATA_TEX_SCALAR(char, __strata_tex_s32)
STRATA_TEX_SCALAR(signed char, __strata_tex_s32)
STRATA_TEX_SCALAR(unsigned char, __strata_tex_u32)
STRATA_TEX_SCALAR(short, __strata_tex_s32)
STRATA_TEX_SCALAR(unsigned short, __strata_tex_u32)
STRATA_TEX_SCALAR(int, __strata_tex_s32)
STRATA_TEX_SCALAR(unsigned int, __strata_tex_u32)
STRATA_TEX_SCALAR(float, __strata_tex_f32)
STRATA_TEX_VEC(char, signed char, __strata_tex_s32, float)
STRATA_TEX_VEC(uchar, unsigned char, __strata_tex_u32, float)
STRATA_TEX_VEC(short, short, __strata_tex_s32, float)
STRATA_TEX_VEC(ushort, unsigned short, __strata_tex_u32, float)
STRATA_TEX_VEC(int, int, __strata_tex_s32, float)
STRATA_TEX_VEC(uint, unsigned int, __strata_tex_u32, float)
STRATA_TEX_VEC(float, float, __strata_tex_f32, float)
#undef STRATA_TEX_SCALAR
#undef STRATA_TEX_VEC

/* tex1Dfetch<T>(object, x): element x of a texture object (T as the object's data, or float types for
 * a normalized-float object of 8- or 16-bit integers). */
template <class T>
__device__ static inline T tex1Dfetch(cudaTextureObject_t t, int x) {
  return __strata_tex<T>::elem(t, x);
}

/* A texture reference's handle: clang turns a texture<> variable passed by value into its .texref
 * (the address of its descriptor here). */
template <class T, int dim, enum cudaTextureReadMode mode>
__device__ static inline cudaTextureObject_t __strata_tex_handle(texture<T, dim, mode> t) {
  cudaTextureObject_t h;
  asm("mov.b64 %0, %1;" : "=l"(h) : "l"(t));
  return h;
}

template <class T>
__device__ static inline T tex1Dfetch(texture<T, 1, cudaReadModeElementType> t, int x) {
  return __strata_tex<T>::elem(__strata_tex_handle(t), x);
}
template <class T>
__device__ static inline auto tex1Dfetch(texture<T, 1, cudaReadModeNormalizedFloat> t, int x)
    -> decltype(__strata_tex<T>::norm(0, 0)) {
  return __strata_tex<T>::norm(__strata_tex_handle(t), x);
}
#endif /* __CUDA__ */
#endif /* __cplusplus */

#endif
