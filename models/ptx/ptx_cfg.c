/* Control flow of the PTX front end (docs/ptx.md "Reconvergence"): basic blocks, the immediate
 * post-dominator of every branch (the reconvergence point of the SIMT stack, as in Fung et al.,
 * "Dynamic Warp Formation", MICRO 2007, Sec. 3, and GPGPU-Sim's PDOM stack), and the per-kernel
 * layout of registers, shared memory and call frames.
 *
 * Post-dominators: the dominator algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
 * Dominance Algorithm", 2001) run on the reversed CFG from a virtual exit node that every ret /
 * exit block reaches. A guarded ret / exit is not an edge to the exit: its lanes leave the warp,
 * so the lanes that go on reconverge where they would without it. Blocks that cannot reach an
 * exit (endless loops) get no reconvergence point: their lanes reconverge only when the others
 * exit. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_impl.h"

static bool ends_block(const ptx_inst *in) { return in->kind == K_BRA || in->kind == K_RET || in->kind == K_EXIT; }

int ptx_cfg_reconv(ptx_module *m, uint32_t fi) {
  ptx_func *f = &m->funcs[fi];
  uint32_t n = f->npc, b0 = f->first_pc;
  if (n == 0) return 0;
  const ptx_inst *code = m->code + b0;
  int rc = -1;
  /* 1. leaders -> block ids */
  uint32_t *blk = calloc(n + 1, sizeof *blk);
  uint8_t *lead = calloc(n + 1, 1);
  uint32_t *start = NULL, *succ = NULL, *npred = NULL, *preds = NULL, *po = NULL, *ponum = NULL, *idom = NULL, *stk = NULL;
  if (!blk || !lead) goto out;
  lead[0] = 1;
  for (uint32_t i = 0; i < n; ++i) {
    if (code[i].kind == K_BRA) lead[code[i].target - b0] = 1;
    if (ends_block(&code[i]) && i + 1 < n) lead[i + 1] = 1;
  }
  uint32_t nb = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (lead[i]) nb++;
    blk[i] = nb - 1;
  }
  uint32_t X = nb; /* virtual exit */
  start = malloc((nb + 1) * sizeof *start);
  succ = malloc((size_t)(nb + 1) * 2 * sizeof *succ);
  npred = calloc(nb + 2, sizeof *npred);
  if (!start || !succ || !npred) goto out;
  for (uint32_t i = 0; i < n; ++i)
    if (lead[i]) start[blk[i]] = i;
  /* 2. successors: at most two per block */
  for (uint32_t b = 0; b < nb; ++b) {
    uint32_t last = (b + 1 < nb ? start[b + 1] : n) - 1;
    const ptx_inst *in = &code[last];
    uint32_t s0 = PTX_PC_NONE, s1 = PTX_PC_NONE;
    bool guarded = in->guard != PTX_R_NONE;
    if (in->kind == K_BRA) {
      s0 = blk[in->target - b0];
      if (guarded) s1 = last + 1 < n ? blk[last + 1] : X;
    } else if (in->kind == K_RET || in->kind == K_EXIT) {
      /* a guarded ret/exit leaves the warp for its lanes (they leave every stack entry), so
       * for reconvergence only the lanes that go on matter: its one successor is the next block */
      s0 = guarded && last + 1 < n ? blk[last + 1] : X;
    } else {
      s0 = last + 1 < n ? blk[last + 1] : X;
    }
    succ[2 * b] = s0;
    succ[2 * b + 1] = s1;
  }
  /* 3. predecessor lists (CSR) = successors in the reversed graph */
  for (uint32_t b = 0; b < nb; ++b)
    for (int k = 0; k < 2; ++k)
      if (succ[2 * b + k] != PTX_PC_NONE) npred[succ[2 * b + k] + 1]++;
  for (uint32_t b = 1; b <= nb + 1; ++b) npred[b] += npred[b - 1];
  preds = malloc((npred[nb + 1] + 1) * sizeof *preds);
  uint32_t *fill = calloc(nb + 1, sizeof *fill);
  if (!preds || !fill) {
    free(fill);
    goto out;
  }
  for (uint32_t b = 0; b < nb; ++b)
    for (int k = 0; k < 2; ++k) {
      uint32_t s = succ[2 * b + k];
      if (s != PTX_PC_NONE) preds[npred[s] + fill[s]++] = b;
    }
  free(fill);
  /* 4. postorder of the reversed graph from X (iterative DFS) */
  po = malloc((nb + 1) * sizeof *po);
  ponum = malloc((nb + 1) * sizeof *ponum);
  idom = malloc((nb + 1) * sizeof *idom);
  stk = malloc((size_t)(nb + 1) * 2 * sizeof *stk);
  if (!po || !ponum || !idom || !stk) goto out;
  for (uint32_t b = 0; b <= nb; ++b) ponum[b] = PTX_PC_NONE, idom[b] = PTX_PC_NONE;
  uint32_t npo = 0, sp = 0;
  uint8_t *seen = lead; /* reuse: clear */
  memset(seen, 0, n + 1);
  uint8_t *vis = calloc(nb + 1, 1);
  if (!vis) goto out;
  stk[sp++] = X;
  stk[sp++] = 0;
  vis[X] = 1;
  while (sp) {
    uint32_t v = stk[sp - 2], i = stk[sp - 1];
    if (npred[v] + i < npred[v + 1]) {
      stk[sp - 1]++;
      uint32_t w = preds[npred[v] + i];
      if (!vis[w]) {
        vis[w] = 1;
        stk[sp++] = w;
        stk[sp++] = 0;
      }
    } else {
      ponum[v] = npo;
      po[npo++] = v;
      sp -= 2;
    }
  }
  free(vis);
  /* 5. Cooper-Harvey-Kennedy on the reversed graph: idom = immediate post-dominator */
  idom[X] = X;
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t k = npo; k-- > 0;) {
      uint32_t b = po[k];
      if (b == X) continue;
      uint32_t nd = PTX_PC_NONE;
      for (int j = 0; j < 2; ++j) {
        uint32_t s = succ[2 * b + j];
        if (s == PTX_PC_NONE || idom[s] == PTX_PC_NONE) continue;
        if (nd == PTX_PC_NONE) {
          nd = s;
          continue;
        }
        uint32_t a = s, c = nd;
        while (a != c) {
          while (ponum[a] < ponum[c]) a = idom[a];
          while (ponum[c] < ponum[a]) c = idom[c];
        }
        nd = a;
      }
      if (nd != idom[b]) {
        idom[b] = nd;
        changed = true;
      }
    }
  }
  /* 6. every branch reconverges at the first instruction of its block's ipdom */
  for (uint32_t b = 0; b < nb; ++b) {
    uint32_t last = (b + 1 < nb ? start[b + 1] : n) - 1;
    ptx_inst *in = &m->code[b0 + last];
    if (in->kind != K_BRA) continue;
    uint32_t d = idom[b];
    in->reconv = (d == PTX_PC_NONE || d == X) ? PTX_PC_NONE : b0 + start[d];
  }
  rc = 0;
out:
  free(blk);
  free(lead);
  free(start);
  free(succ);
  free(npred);
  free(preds);
  free(po);
  free(ponum);
  free(idom);
  free(stk);
  return rc;
}

static uint32_t align_up32(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

/* Reachable functions from the entry (DFS on the call graph), recursion check, and the layout. */
int ptx_kernel_layout(ptx_module *m, ptx_kernel *k, char *err, size_t errlen) {
  uint32_t nf = m->nfuncs;
  uint8_t *state = calloc(nf, 1); /* 0 new, 1 on stack, 2 done */
  uint32_t *stk = malloc((size_t)nf * 2 * sizeof *stk);
  uint32_t *need = calloc(nf, sizeof *need); /* local bytes of the deepest chain from f */
  k->reg_base = calloc(nf, sizeof *k->reg_base);
  k->pred_base = calloc(nf, sizeof *k->pred_base);
  k->shared_base = calloc(nf, sizeof *k->shared_base);
  k->reach = malloc(nf * sizeof *k->reach);
  const ptx_func *entry = &m->funcs[k->fn];
  int rc = -1;
  if (!state || !stk || !need || !k->reg_base || !k->pred_base || !k->shared_base || !k->reach) {
    ptx_errf(err, errlen, m->name, entry->line, "out of memory");
    goto out;
  }
  char msg[512] = "";
  uint32_t sp = 0;
  stk[sp++] = k->fn;
  stk[sp++] = 0;
  state[k->fn] = 1;
  k->reach[k->nreach++] = k->fn;
  while (sp && !msg[0]) {
    uint32_t f = stk[sp - 2], i = stk[sp - 1];
    const ptx_func *F = &m->funcs[f];
    if (i < F->ncallees) {
      stk[sp - 1]++;
      uint32_t g = F->callees[i];
      if (state[g] == 1) {
        ptx_errf(msg, sizeof msg, m->name, F->line, "kernel %s: recursive call of '%s' is not supported", entry->name, m->funcs[g].name);
      } else if (state[g] == 0) {
        state[g] = 1;
        k->reach[k->nreach++] = g;
        stk[sp++] = g;
        stk[sp++] = 0;
      }
    } else {
      uint64_t deepest = 0;
      for (unsigned j = 0; j < F->ncallees; ++j)
        if (need[F->callees[j]] > deepest) deepest = need[F->callees[j]];
      uint64_t v = align_up32(F->frame_bytes, 16) + deepest;
      need[f] = v > (1u << 24) ? (1u << 24) + 1 : (uint32_t)v;
      state[f] = 2;
      sp -= 2;
    }
  }
  /* why it cannot run: the first problem among the reachable functions, in reach order */
  for (uint32_t r = 0; r < k->nreach && !msg[0]; ++r) {
    const ptx_func *F = &m->funcs[k->reach[r]];
    if (!F->has_body)
      ptx_errf(msg, sizeof msg, m->name, entry->line, "kernel %s: calls '%s', which has no body (external functions other than vprintf and the math functions, such as malloc, are not supported)",
               entry->name, F->name);
    else if (F->unsupported)
      ptx_errf(msg, sizeof msg, m->name, F->unsupported_line, "kernel %s: unsupported instruction '%s'%s%s", entry->name, F->unsupported,
               F == entry ? "" : " in function ", F == entry ? "" : F->name);
    else if (F->is_entry && F != entry)
      ptx_errf(msg, sizeof msg, m->name, entry->line, "kernel %s: calls the kernel '%s'", entry->name, F->name);
  }
  if (!msg[0] && need[k->fn] > (1u << 24))
    ptx_errf(msg, sizeof msg, m->name, entry->line, "kernel %s: local memory per thread exceeds 16 MiB", entry->name);
  uint64_t regs = 0, preds = 0, sh = m->shared_mod_bytes;
  for (uint32_t r = 0; r < k->nreach; ++r) {
    const ptx_func *F = &m->funcs[k->reach[r]];
    k->reg_base[k->reach[r]] = (uint32_t)regs;
    k->pred_base[k->reach[r]] = (uint32_t)preds;
    regs += F->nregs;
    preds += F->npreds;
    sh = align_up32((uint32_t)sh, F->shared_align ? F->shared_align : 1);
    k->shared_base[k->reach[r]] = (uint32_t)sh;
    sh += F->shared_bytes;
    if (sh > (1u << 30)) sh = (1u << 30) + 1;
  }
  if (!msg[0] && (regs > 0xfffffu || preds > 0xfffffu))
    ptx_errf(msg, sizeof msg, m->name, entry->line, "kernel %s: more than 2^20 registers per thread", entry->name);
  if (!msg[0] && sh > (1u << 30)) ptx_errf(msg, sizeof msg, m->name, entry->line, "kernel %s: static shared memory exceeds 1 GiB", entry->name);
  k->nregs = (uint32_t)regs;
  k->npreds = (uint32_t)preds;
  k->shared_static = (uint32_t)sh;
  k->dyn_base = align_up32((uint32_t)sh, 16);
  k->local_bytes = need[k->fn];
  if (msg[0]) {
    size_t l = strlen(msg);
    k->error = malloc(l + 1);
    if (!k->error) {
      ptx_errf(err, errlen, m->name, entry->line, "out of memory");
      goto out;
    }
    memcpy(k->error, msg, l + 1);
  }
  rc = 0;
out:
  free(state);
  free(stk);
  free(need);
  return rc;
}
