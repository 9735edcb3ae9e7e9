// Global atomics under contention (docs/cuda.md "Atomics"): every thread of the grid updates the
// same few words with each atomic operation and type, takes tickets, exchanges values and runs a
// compare-and-swap loop; a later launch reads what the atomics left with plain loads. The host
// checks every final value exactly and the values the atomics returned (tickets are a permutation;
// exchanged values form one chain). Usage: atomics [BLOCKS] (128 threads each).
#include <stdio.h>
#include <stdlib.h>

#define THREADS 128

struct Words {
  unsigned ticket;
  int iadd, isub, imin, imax;
  unsigned umin, uand, uor, uxor, uinc, udec, ucas, uxch;
  unsigned long long u64add, u64max;
  float fadd;
  double dadd;
  unsigned hot[16];
};

__global__ void contend(Words* w, unsigned* tickets, unsigned* exchanged, unsigned* spread, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  tickets[t] = atomicAdd(&w->ticket, 1u);
  atomicAdd(&w->iadd, t);
  atomicSub(&w->isub, 3);
  atomicMin(&w->imin, (t * 7919) % n - n / 2);
  atomicMax(&w->imax, (t * 7919) % n - n / 2);
  atomicMin(&w->umin, (unsigned)(n - t) * 5u);
  atomicAnd(&w->uand, ~(1u << (t % 32)));
  atomicOr(&w->uor, 1u << (t % 31));
  atomicXor(&w->uxor, (unsigned)t * 2654435761u);
  atomicInc(&w->uinc, 100u);
  atomicDec(&w->udec, 100u);
  atomicAdd(&w->u64add, (1ull << 33) + 1);
  atomicMax(&w->u64max, (unsigned long long)t << 20);
  atomicAdd(&w->fadd, 1.0f);
  atomicAdd(&w->dadd, 0.5);
  atomicAdd(&w->hot[t % 16], 1u);
  atomicAdd(&spread[t], (unsigned)t);  // every lane its own word: no contention
  exchanged[t] = atomicExch(&w->uxch, (unsigned)t + 1);
  unsigned old = atomicAdd(&w->ucas, 0u), prev;
  while ((prev = atomicCAS(&w->ucas, old, old + 3)) != old) old = prev;
}

// A later launch reads the atomics' results with plain loads.
__global__ void readback(const unsigned* spread, const Words* w, unsigned* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) out[t] = spread[t] * 2u + w->hot[t % 16];
}

static int fails = 0;
#define EXPECT(c, ...)            \
  do {                            \
    if (!(c)) {                   \
      printf("atomics: " __VA_ARGS__); \
      printf("\n");               \
      ++fails;                    \
    }                             \
  } while (0)

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? atoi(argv[1]) : 16;
  const int n = blocks * THREADS;
  Words h = {};
  h.imin = 1 << 30;
  h.imax = -(1 << 30);
  h.umin = 0xffffffffu;
  h.uand = 0xffffffffu;
  h.udec = 50;
  unsigned* spread0 = (unsigned*)malloc(n * sizeof(unsigned));
  for (int i = 0; i < n; ++i) spread0[i] = 1000u * i;
  Words* dw;
  unsigned *dt, *dx, *ds, *dout;
  cudaMalloc(&dw, sizeof(Words));
  cudaMalloc(&dt, n * sizeof(unsigned));
  cudaMalloc(&dx, n * sizeof(unsigned));
  cudaMalloc(&ds, n * sizeof(unsigned));
  cudaMalloc(&dout, n * sizeof(unsigned));
  cudaMemcpy(dw, &h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, spread0, n * sizeof(unsigned), cudaMemcpyHostToDevice);
  contend<<<blocks, THREADS>>>(dw, dt, dx, ds, n);
  readback<<<blocks, THREADS>>>(ds, dw, dout, n);
  Words r;
  unsigned* tickets = (unsigned*)malloc(n * sizeof(unsigned));
  unsigned* exch = (unsigned*)malloc(n * sizeof(unsigned));
  unsigned* out = (unsigned*)malloc(n * sizeof(unsigned));
  cudaMemcpy(&r, dw, sizeof r, cudaMemcpyDeviceToHost);
  cudaMemcpy(tickets, dt, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(exch, dx, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(out, dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost);

  // CPU reference of the order-independent finals
  long long iadd = 0;
  int imin = 1 << 30, imax = -(1 << 30);
  unsigned umin = 0xffffffffu, uand = 0xffffffffu, uor = 0, uxor = 0;
  unsigned long long u64max = 0;
  for (int t = 0; t < n; ++t) {
    int v = (t * 7919) % n - n / 2;
    iadd += t;
    imin = v < imin ? v : imin;
    imax = v > imax ? v : imax;
    umin = (unsigned)(n - t) * 5u < umin ? (unsigned)(n - t) * 5u : umin;
    uand &= ~(1u << (t % 32));
    uor |= 1u << (t % 31);
    uxor ^= (unsigned)t * 2654435761u;
    u64max = ((unsigned long long)t << 20) > u64max ? (unsigned long long)t << 20 : u64max;
  }
  EXPECT(r.ticket == (unsigned)n, "ticket %u, expected %d", r.ticket, n);
  EXPECT(r.iadd == (int)iadd, "iadd %d, expected %lld", r.iadd, iadd);
  EXPECT(r.isub == -3 * n, "isub %d", r.isub);
  EXPECT(r.imin == imin && r.imax == imax, "imin %d imax %d, expected %d %d", r.imin, r.imax, imin, imax);
  EXPECT(r.umin == umin, "umin %u, expected %u", r.umin, umin);
  EXPECT(r.uand == uand && r.uor == uor && r.uxor == uxor, "and/or/xor %x %x %x", r.uand, r.uor, r.uxor);
  EXPECT(r.uinc == (unsigned)(n % 101), "inc %u, expected %d", r.uinc, n % 101);
  EXPECT(r.udec == (unsigned)(((50 - n) % 101 + 101) % 101), "dec %u", r.udec);
  EXPECT(r.u64add == (unsigned long long)n * ((1ull << 33) + 1), "u64add %llu", r.u64add);
  EXPECT(r.u64max == u64max, "u64max %llu", r.u64max);
  EXPECT(r.fadd == (float)n, "fadd %f", r.fadd);
  EXPECT(r.dadd == 0.5 * n, "dadd %f", r.dadd);
  EXPECT(r.ucas == 3u * n, "cas loop %u, expected %u", r.ucas, 3u * n);
  for (int k = 0; k < 16; ++k) EXPECT(r.hot[k] == (unsigned)(n / 16), "hot[%d] %u", k, r.hot[k]);
  // tickets: each of 0 .. n-1 exactly once
  char* seen = (char*)calloc(n + 2, 1);
  for (int t = 0; t < n; ++t) {
    EXPECT(tickets[t] < (unsigned)n && !seen[tickets[t]], "ticket %u of thread %d repeated or out of range", tickets[t], t);
    if (tickets[t] < (unsigned)n) seen[tickets[t]] = 1;
  }
  // exchanges: the returned values and the final one are 0 (the initial value) and 1 .. n, once each
  for (int i = 0; i <= n + 1; ++i) seen[i] = 0;
  for (int t = 0; t <= n; ++t) {
    unsigned v = t < n ? exch[t] : r.uxch;
    EXPECT(v <= (unsigned)n && !seen[v], "exchanged value %u repeated or out of range", v);
    if (v <= (unsigned)n) seen[v] = 1;
  }
  for (int t = 0; t < n; ++t) {
    unsigned want = (1000u * t + t) * 2u + (unsigned)(n / 16);
    EXPECT(out[t] == want, "readback[%d] %u, expected %u", t, out[t], want);
    if (fails > 20) break;
  }
  if (fails) return 1;
  printf("atomics ok (%d threads)\n", n);
  return 0;
}
