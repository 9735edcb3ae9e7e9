// flrb: FLRB segment-descriptor multi-queue (hybrid DRAM+PCM memory controller).
//
// Paper: hybrid-dram-pcm-flrb-placement.txt, Sec. IV ("Parallelism-Conscious
// Migration", "Space Overhead"). Golden model: models/ref/blocks/flrb.c, whose header
// lists the decisions D1..D9 this RTL implements identically (queue of a
// refcnt, demotion by halving, modulo-2^TIME_W expiry, round-robin tick,
// bucketed hash lookup, eviction choice, candidate and neighbour rules).
//
// Structure (all arrays are flrb_ram: 1 write port, registered read port):
//   d RAM   [Cap] descriptor {idx, clr, exptm, refcnt, rbmcnt} (64 bits)
//   nx/pv   [Cap] next/prev pointer (CapW+1 bits, MSB set = nil) of the M
//           doubly linked LRU queues; nx also links the free list
//   hash    Ways RAMs of [2^BktW] slots {valid, tag = idx >> BktW, ptr}
//   flops   head/tail/count per queue, free-list head, never-used counter
//           (no free-list initialisation needed), occupancy, tick pointer.
// After reset the block clears the hash valid bits (2^BktW cycles, ready low).
//
// Parameters (defaults from flrb_pkg, generated from rtl/params/flrb.toml):
//   CapW        log2 descriptor capacity, 1..16 (paper: 12 = 4K descriptors)
//   BktW        log2 hash buckets, 1..SEG_W-1
//   Ways        slots per bucket (bounded probe length), 1..8
//   Lifetime    exptm = now + Lifetime, < 2^(TIME_W-1) (paper: 150)
//   CandQueue   m, < NQ (paper: 3)
//   CandRbm     n, <= 2^RBM_W-1 (paper: 2)
//   PcmWrWeight refcnt increment of a PCM write, 1..2^REF_W-1 (paper: 3)
//
// Handshake: req_valid_i/req_ready_o, then rsp_valid_o/rsp_ready_i; one
// request in flight; the response registers hold until rsp_ready_i.
// Latency = clock edges from the accepting edge to rsp_valid_o (the testbench
// checks every transaction against these numbers):
//   ACCESS  hit 4; create 4 (never-used descriptor) or 5 (from the free list);
//           create with capacity eviction 6; with bucket conflict Ways + 5
//   TICK    0 (queue empty), 1 (head not expired), 3 (demote), 2 (leaves)
//   SETPOS, LOOKUP  2 (1 when absent)
//   NEIGH   2 + ROW_SEGS + (descriptors of the row besides seg) (1 when absent),
//           at most 1 + 2*ROW_SEGS = 65
// Throughput: one request per (latency + 2) cycles (acceptance and response
// edges). After reset, req_ready_o stays low for 2^BktW cycles (hash clear).
module flrb #(
  parameter int unsigned CapW        = flrb_pkg::CAP_W,
  parameter int unsigned BktW        = flrb_pkg::BKT_W,
  parameter int unsigned Ways        = flrb_pkg::WAYS,
  parameter int unsigned Lifetime    = flrb_pkg::LIFETIME,
  parameter int unsigned CandQueue   = flrb_pkg::CAND_QUEUE,
  parameter int unsigned CandRbm     = flrb_pkg::CAND_RBM,
  parameter int unsigned PcmWrWeight = flrb_pkg::PCM_WR_WEIGHT
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // request
  input  logic                         req_valid_i,
  output logic                         req_ready_o,
  input  logic [2:0]                   req_op_i,     // flrb_op (flrb.h)
  input  logic [flrb_pkg::SEG_W-1:0]   req_seg_i,
  input  logic                         req_write_i,
  input  logic                         req_pcm_i,
  input  logic                         req_rbm_i,
  input  logic                         req_clr_i,
  input  logic [flrb_pkg::TIME_W-1:0]  req_now_i,
  // response (fields as flrb_resp in flrb.h)
  output logic                         rsp_valid_o,
  input  logic                         rsp_ready_i,
  output logic [2:0]                   rsp_op_o,
  output logic                         rsp_found_o,
  output logic [flrb_pkg::SEG_W-1:0]   rsp_seg_o,
  output logic [flrb_pkg::NQ_W-1:0]    rsp_queue_o,
  output logic                         rsp_clr_o,
  output logic [flrb_pkg::TIME_W-1:0]  rsp_exptm_o,
  output logic [flrb_pkg::REF_W-1:0]   rsp_refcnt_o,
  output logic [flrb_pkg::RBM_W-1:0]   rsp_rbmcnt_o,
  output logic                         rsp_cand_o,
  output logic                         rsp_ev_valid_o,
  output logic                         rsp_ev_conf_o,
  output logic                         rsp_ev_copyback_o,
  output logic [flrb_pkg::SEG_W-1:0]   rsp_ev_seg_o,
  output logic                         rsp_demoted_o,
  output logic [flrb_pkg::NQ_W-1:0]    rsp_tick_q_o,
  output logic [flrb_pkg::ROW_SEGS-1:0] rsp_mask_o,
  output logic [CapW:0]                rsp_occ_o
);
  localparam int unsigned SegW  = flrb_pkg::SEG_W;
  localparam int unsigned TimeW = flrb_pkg::TIME_W;
  localparam int unsigned RefW  = flrb_pkg::REF_W;
  localparam int unsigned RbmW  = flrb_pkg::RBM_W;
  localparam int unsigned NQ    = flrb_pkg::NQ;
  localparam int unsigned NqW   = flrb_pkg::NQ_W;
  localparam int unsigned RowW  = flrb_pkg::ROW_SEGS_W;
  localparam int unsigned RowN  = flrb_pkg::ROW_SEGS;
  localparam int unsigned Cap   = 1 << CapW;
  localparam int unsigned NBkt  = 1 << BktW;
  localparam int unsigned TagW  = SegW - BktW;
  localparam int unsigned PtrW  = CapW + 1;             // MSB = nil
  localparam int unsigned CntW  = CapW + 1;
  localparam int unsigned SlotW = 1 + TagW + CapW;
  localparam int unsigned DescW = SegW + 1 + TimeW + RefW + RbmW;
  localparam int unsigned KW    = RowW + 1;             // scan counter (ways or row segments)
  localparam int unsigned NChunk = (SegW + BktW - 1) / BktW;
  localparam logic [PtrW-1:0] Nil = {1'b1, {CapW{1'b0}}};

  localparam logic [2:0] OpAccess = 3'd0;
  localparam logic [2:0] OpTick   = 3'd1;
  localparam logic [2:0] OpSetpos = 3'd2;
  localparam logic [2:0] OpLookup = 3'd3;
  localparam logic [2:0] OpNeigh  = 3'd4;

  typedef struct packed {
    logic [SegW-1:0]  seg;
    logic             clr;
    logic [TimeW-1:0] exptm;
    logic [RefW-1:0]  refcnt;
    logic [RbmW-1:0]  rbmcnt;
  } desc_t;

  typedef enum logic [4:0] {
    StInit, StIdle, StLook, StHit, StVscan, StEvRd, StCeRd, StCeHb, StPop, StNew,
    StApp1, StApp2, StTkRd, StTkHb, StSpRd, StNbSelf, StNbHb, StNbD, StResp
  } state_e;

  // ---------------------------------------------------------------- functions
  // Queue of a reference count (D1): 0 for 0, floor(log2 r) + 1, capped at NQ-1.
  function automatic logic [NqW-1:0] qof(input logic [RefW-1:0] r);
    qof = '0;
    for (int i = 0; i < RefW; i++) begin
      if (r[i]) qof = (i + 1 < NQ) ? NqW'(i + 1) : NqW'(NQ - 1);
    end
  endfunction

  // Bucket of a segment (D6): XOR of the BktW-bit chunks of idx.
  function automatic logic [BktW-1:0] bucket(input logic [SegW-1:0] s);
    bucket = '0;
    for (int i = 0; i < NChunk; i++) begin
      bucket = bucket ^ BktW'(s >> (i * BktW));
    end
  endfunction

  // ---------------------------------------------------------------- state
  state_e state_q, state_d;
  logic [BktW:0]      init_q, init_d;
  logic [2:0]         op_q, op_d;
  logic [SegW-1:0]    seg_q, seg_d;
  logic               wr_q, wr_d, pcm_q, pcm_d, rbm_q, rbm_d, clrin_q, clrin_d;
  logic [TimeW-1:0]   now_q, now_d;
  logic [CapW-1:0]    p_q, p_d;             // descriptor being worked on
  logic [Ways*SlotW-1:0] bkt_q, bkt_d;      // bucket read in StLook
  logic [KW-1:0]      k_q, k_d;             // way / row-segment scan index
  logic [KW-1:0]      way_q, way_d;         // slot the new entry takes
  logic [RefW-1:0]    minref_q, minref_d;   // bucket-conflict scan: smallest refcnt
  logic [KW-1:0]      kmin_q, kmin_d;
  logic [SegW-1:0]    vseg_q, vseg_d;       // victim idx (hash removal)
  logic               vclr_q, vclr_d;
  logic [NqW-1:0]     qv_q, qv_d;           // queue to unlink from
  logic [NqW-1:0]     qn_q, qn_d;           // queue to append to
  logic [NQ*PtrW-1:0] head_q, head_d, tail_q, tail_d;
  logic [NQ*CntW-1:0] cnt_q, cnt_d;
  logic [PtrW-1:0]    fhead_q, fhead_d;
  logic [CapW:0]      fresh_q, fresh_d;
  logic [CapW:0]      occ_q, occ_d;
  logic [NqW-1:0]     rr_q, rr_d;

  // response registers
  logic [2:0]         r_op_q, r_op_d;
  logic               r_found_q, r_found_d, r_clr_q, r_clr_d, r_cand_q, r_cand_d;
  logic [SegW-1:0]    r_seg_q, r_seg_d, r_evseg_q, r_evseg_d;
  logic [NqW-1:0]     r_queue_q, r_queue_d, r_tickq_q, r_tickq_d;
  logic [TimeW-1:0]   r_exptm_q, r_exptm_d;
  logic [RefW-1:0]    r_ref_q, r_ref_d;
  logic [RbmW-1:0]    r_rbm_q, r_rbm_d;
  logic               r_ev_q, r_ev_d, r_evconf_q, r_evconf_d, r_evcb_q, r_evcb_d;
  logic               r_dem_q, r_dem_d;
  logic [RowN-1:0]    r_mask_q, r_mask_d;
  logic [CapW:0]      r_occ_q, r_occ_d;

  // ---------------------------------------------------------------- RAMs
  logic             d_we;
  logic [CapW-1:0]  d_waddr, d_raddr;
  desc_t            d_wdata, d_rdata;
  logic             nx_we, pv_we;
  logic [CapW-1:0]  nx_waddr, nx_raddr, pv_waddr, pv_raddr;
  logic [PtrW-1:0]  nx_wdata, nx_rdata, pv_wdata, pv_rdata;
  logic [Ways-1:0]  hb_we;
  logic [BktW-1:0]  hb_waddr, hb_raddr;
  logic [Ways*SlotW-1:0] hb_wdata, hb_rdata;

  flrb_ram #(.Depth(Cap), .Width(DescW)) u_d_ram (
    .clk_i, .we_i(d_we), .waddr_i(d_waddr), .wdata_i(d_wdata), .raddr_i(d_raddr), .rdata_o(d_rdata)
  );
  flrb_ram #(.Depth(Cap), .Width(PtrW)) u_nx_ram (
    .clk_i, .we_i(nx_we), .waddr_i(nx_waddr), .wdata_i(nx_wdata), .raddr_i(nx_raddr), .rdata_o(nx_rdata)
  );
  flrb_ram #(.Depth(Cap), .Width(PtrW)) u_pv_ram (
    .clk_i, .we_i(pv_we), .waddr_i(pv_waddr), .wdata_i(pv_wdata), .raddr_i(pv_raddr), .rdata_o(pv_rdata)
  );
  for (genvar w = 0; w < Ways; w++) begin : gen_way
    flrb_ram #(.Depth(NBkt), .Width(SlotW)) u_hb_ram (
      .clk_i, .we_i(hb_we[w]), .waddr_i(hb_waddr), .wdata_i(hb_wdata[w*SlotW +: SlotW]),
      .raddr_i(hb_raddr), .rdata_o(hb_rdata[w*SlotW +: SlotW])
    );
  end

  // ---------------------------------------------------------------- bucket decode
  // Slot layout: {valid, tag, ptr}. Lookup key: the request idx, or the row
  // neighbour being examined in StNbHb.
  logic [SegW-1:0]  nseg;          // neighbour k_q of seg_q's row
  logic [TagW-1:0]  lk_tag;        // tag of the lookup key
  logic [Ways-1:0]  hb_v, hb_hit;
  logic [Ways*CapW-1:0] hb_ptr, bq_ptr;
  logic             hit, full;
  logic [KW-1:0]    free_w;
  logic [CapW-1:0]  hit_ptr;
  logic [$clog2(Ways+1)-1:0] nhits;

  assign nseg   = {seg_q[SegW-1:RowW], k_q[RowW-1:0]};
  assign lk_tag = (state_q == StNbHb) ? nseg[SegW-1:BktW] : seg_q[SegW-1:BktW];

  always_comb begin
    hit = 1'b0;
    free_w = '0;
    full = 1'b1;
    hit_ptr = '0;
    nhits = '0;
    for (int w = Ways - 1; w >= 0; w--) begin  // descending: lowest way wins
      hb_v[w] = hb_rdata[w*SlotW + SlotW - 1];
      hb_ptr[w*CapW +: CapW] = hb_rdata[w*SlotW +: CapW];
      bq_ptr[w*CapW +: CapW] = bkt_q[w*SlotW +: CapW];
      hb_hit[w] = hb_v[w] && (hb_rdata[w*SlotW + CapW +: TagW] == lk_tag);
      if (hb_hit[w]) begin
        hit = 1'b1;
        hit_ptr = hb_rdata[w*SlotW +: CapW];
        nhits = nhits + 1'b1;
      end
      if (!hb_v[w]) begin
        full = 1'b0;
        free_w = KW'(w);
      end
    end
  end

  // lowest non-empty queue (capacity eviction)
  logic [NqW-1:0] qlow;
  always_comb begin
    qlow = '0;
    for (int q = NQ - 1; q >= 0; q--) begin
      if (cnt_q[q*CntW +: CntW] != '0) qlow = NqW'(q);
    end
  end

  // ---------------------------------------------------------------- datapath helpers
  logic [RefW-1:0]  inc;
  logic [RefW:0]    ref_sum;
  logic [RefW-1:0]  ref_new, ref_half, ref_top;
  logic [RbmW-1:0]  rbm_new;
  logic [TimeW-1:0] exp_new, exp_diff;
  logic             expired;
  logic [NqW-1:0]   q_old, q_new;
  logic [CapW-1:0]  vptr;
  logic [RefW-1:0]  scan_ref;
  logic             scan_take;
  logic [KW-1:0]    kmin_n;
  logic [KW-1:0]    k_nx;
  logic             sl_found;      // StCeHb / StTkHb: slot of p_q found
  logic [KW-1:0]    sl_w;

  assign inc      = (wr_q && pcm_q) ? RefW'(PcmWrWeight) : RefW'(1);
  assign ref_sum  = {1'b0, d_rdata.refcnt} + {1'b0, inc};
  assign ref_new  = ref_sum[RefW] ? {RefW{1'b1}} : ref_sum[RefW-1:0];
  assign rbm_new  = (rbm_q && d_rdata.rbmcnt != {RbmW{1'b1}}) ? d_rdata.rbmcnt + 1'b1 : d_rdata.rbmcnt;
  assign exp_new  = now_q + TimeW'(Lifetime);
  assign exp_diff = d_rdata.exptm - now_q;
  assign expired  = exp_diff[TimeW-1];                   // D3: now strictly after exptm
  assign q_old    = qof(d_rdata.refcnt);
  assign q_new    = qof(ref_new);
  // D2: halve, clamp to the top of queue qv-1 = 2^(qv-2)..2^(qv-1)-1
  assign ref_half = d_rdata.refcnt >> 1;
  assign ref_top  = (qv_q == '0) ? '0 : RefW'((1 << (qv_q - 1'b1)) - 1);
  assign scan_ref = d_rdata.refcnt;
  assign scan_take = (k_q == '0) || (scan_ref < minref_q);
  assign kmin_n   = scan_take ? k_q : kmin_q;
  assign vptr     = bq_ptr[kmin_n*CapW +: CapW];
  assign k_nx     = k_q + 1'b1;

  always_comb begin
    sl_found = 1'b0;
    sl_w = '0;
    for (int w = Ways - 1; w >= 0; w--) begin
      if (hb_v[w] && hb_ptr[w*CapW +: CapW] == p_q) begin
        sl_found = 1'b1;
        sl_w = KW'(w);
      end
    end
  end

  // ---------------------------------------------------------------- control
  logic             ul_en;                 // unlink p_q-like descriptor from queue ul_q
  logic [NqW-1:0]   ul_q;
  logic [PtrW-1:0]  ul_pv, ul_nx;
  logic [PtrW-1:0]  tail_n;                // tail of qn_q
  logic             qn_empty;

  assign tail_n   = tail_q[qn_q*PtrW +: PtrW];
  assign qn_empty = (cnt_q[qn_q*CntW +: CntW] == '0);

  always_comb begin
    state_d = state_q;
    init_d = init_q;
    op_d = op_q; seg_d = seg_q; wr_d = wr_q; pcm_d = pcm_q; rbm_d = rbm_q; clrin_d = clrin_q;
    now_d = now_q;
    p_d = p_q; bkt_d = bkt_q; k_d = k_q; way_d = way_q; minref_d = minref_q; kmin_d = kmin_q;
    vseg_d = vseg_q; vclr_d = vclr_q; qv_d = qv_q; qn_d = qn_q;
    head_d = head_q; tail_d = tail_q; cnt_d = cnt_q;
    fhead_d = fhead_q; fresh_d = fresh_q; occ_d = occ_q; rr_d = rr_q;
    r_op_d = r_op_q; r_found_d = r_found_q; r_clr_d = r_clr_q; r_cand_d = r_cand_q;
    r_seg_d = r_seg_q; r_evseg_d = r_evseg_q; r_queue_d = r_queue_q; r_tickq_d = r_tickq_q;
    r_exptm_d = r_exptm_q; r_ref_d = r_ref_q; r_rbm_d = r_rbm_q; r_ev_d = r_ev_q;
    r_evconf_d = r_evconf_q; r_evcb_d = r_evcb_q; r_dem_d = r_dem_q; r_mask_d = r_mask_q;
    r_occ_d = r_occ_q;

    d_we = 1'b0; d_waddr = p_q; d_wdata = d_rdata; d_raddr = p_q;
    nx_we = 1'b0; nx_waddr = p_q; nx_wdata = Nil; nx_raddr = p_q;
    pv_we = 1'b0; pv_waddr = p_q; pv_wdata = Nil; pv_raddr = p_q;
    hb_we = '0; hb_waddr = bucket(seg_q); hb_wdata = '0; hb_raddr = bucket(seg_q);
    ul_en = 1'b0; ul_q = qv_q; ul_pv = Nil; ul_nx = Nil;
    req_ready_o = 1'b0;
    rsp_valid_o = 1'b0;

    unique case (state_q)
      StInit: begin                        // clear every hash slot
        hb_we = '1;
        hb_waddr = init_q[BktW-1:0];
        init_d = init_q + 1'b1;
        if (init_q[BktW-1:0] == {BktW{1'b1}}) state_d = StIdle;
      end

      StIdle: begin
        req_ready_o = 1'b1;
        hb_raddr = bucket(req_seg_i);
        d_raddr = head_q[rr_q*PtrW +: CapW];
        nx_raddr = head_q[rr_q*PtrW +: CapW];
        if (req_valid_i) begin
          op_d = req_op_i; seg_d = req_seg_i; wr_d = req_write_i; pcm_d = req_pcm_i;
          rbm_d = req_rbm_i; clrin_d = req_clr_i; now_d = req_now_i;
          r_op_d = req_op_i; r_found_d = 1'b0; r_clr_d = 1'b0; r_cand_d = 1'b0; r_seg_d = '0;
          r_evseg_d = '0; r_queue_d = '0; r_tickq_d = '0; r_exptm_d = '0; r_ref_d = '0;
          r_rbm_d = '0; r_ev_d = 1'b0; r_evconf_d = 1'b0; r_evcb_d = 1'b0; r_dem_d = 1'b0;
          r_mask_d = '0; r_occ_d = '0;
          unique case (req_op_i)
            OpTick: begin                  // D4: one queue per tick, round robin
              qv_d = rr_q;
              r_tickq_d = rr_q;
              rr_d = (rr_q == NqW'(NQ - 1)) ? '0 : rr_q + 1'b1;
              p_d = head_q[rr_q*PtrW +: CapW];
              if (cnt_q[rr_q*CntW +: CntW] == '0) begin
                r_occ_d = occ_q;
                state_d = StResp;
              end else begin
                state_d = StTkRd;
              end
            end
            OpAccess, OpSetpos, OpLookup, OpNeigh: state_d = StLook;
            default: state_d = StResp;     // unknown op: all-zero response
          endcase
        end
      end

      StLook: begin                        // bucket of seg_q on hb_rdata
        bkt_d = hb_rdata;
        if (op_q == OpAccess) begin
          if (hit) begin
            p_d = hit_ptr;
            d_raddr = hit_ptr; nx_raddr = hit_ptr; pv_raddr = hit_ptr;
            r_found_d = 1'b1;
            state_d = StHit;
          end else if (full) begin         // D7 bucket conflict: scan the ways' refcnt
            k_d = '0;
            d_raddr = hb_ptr[CapW-1:0];
            state_d = StVscan;
          end else begin
            way_d = free_w;
            if (!fhead_q[CapW]) begin      // pop the free list
              p_d = fhead_q[CapW-1:0];
              nx_raddr = fhead_q[CapW-1:0];
              state_d = StPop;
            end else if (!fresh_q[CapW]) begin
              p_d = fresh_q[CapW-1:0];
              fresh_d = fresh_q + 1'b1;
              state_d = StNew;
            end else begin                 // D7 capacity: LRU head of the lowest queue
              qv_d = qlow;
              p_d = head_q[qlow*PtrW +: CapW];
              d_raddr = head_q[qlow*PtrW +: CapW];
              nx_raddr = head_q[qlow*PtrW +: CapW];
              state_d = StCeRd;
            end
          end
        end else begin                     // SETPOS / LOOKUP / NEIGH
          r_seg_d = seg_q;
          r_occ_d = occ_q;
          if (hit) begin
            p_d = hit_ptr;
            d_raddr = hit_ptr;
            r_found_d = 1'b1;
            state_d = (op_q == OpNeigh) ? StNbSelf : StSpRd;
          end else begin
            state_d = StResp;
          end
        end
      end

      StHit: begin                         // count, refresh, unlink from the old queue
        d_we = 1'b1;
        d_wdata.refcnt = ref_new;
        d_wdata.rbmcnt = rbm_new;
        d_wdata.exptm = exp_new;
        ul_en = 1'b1; ul_q = q_old; ul_pv = pv_rdata; ul_nx = nx_rdata;
        qn_d = q_new;
        r_seg_d = seg_q; r_clr_d = d_rdata.clr; r_exptm_d = exp_new; r_ref_d = ref_new;
        r_rbm_d = rbm_new; r_queue_d = q_new;
        r_cand_d = (q_new >= NqW'(CandQueue)) && (rbm_new >= RbmW'(CandRbm)) && !d_rdata.clr;
        state_d = StApp1;
      end

      StVscan: begin                       // d_rdata = descriptor of way k_q
        minref_d = scan_take ? scan_ref : minref_q;
        kmin_d = kmin_n;
        vseg_d = scan_take ? d_rdata.seg : vseg_q;
        vclr_d = scan_take ? d_rdata.clr : vclr_q;
        if (k_q == KW'(Ways - 1)) begin
          p_d = vptr;
          way_d = kmin_n;
          qv_d = qof(scan_take ? scan_ref : minref_q);
          nx_raddr = vptr; pv_raddr = vptr;
          r_ev_d = 1'b1; r_evconf_d = 1'b1;
          r_evseg_d = scan_take ? d_rdata.seg : vseg_q;
          r_evcb_d = scan_take ? d_rdata.clr : vclr_q;
          state_d = StEvRd;
        end else begin
          k_d = k_nx;
          d_raddr = bq_ptr[k_nx*CapW +: CapW];
        end
      end

      StEvRd: begin                        // unlink the conflict victim, reuse it
        ul_en = 1'b1; ul_q = qv_q; ul_pv = pv_rdata; ul_nx = nx_rdata;
        state_d = StNew;
      end

      StCeRd: begin                        // capacity victim = head of qv_q
        ul_en = 1'b1; ul_q = qv_q; ul_pv = Nil; ul_nx = nx_rdata;
        vseg_d = d_rdata.seg;
        hb_raddr = bucket(d_rdata.seg);
        r_ev_d = 1'b1; r_evseg_d = d_rdata.seg; r_evcb_d = d_rdata.clr;
        state_d = StCeHb;
      end

      StCeHb: begin                        // clear the victim's hash slot
        hb_waddr = bucket(vseg_q);
        hb_we = Ways'(sl_found) << sl_w;
        state_d = StNew;
      end

      StPop: begin
        fhead_d = nx_rdata;
        state_d = StNew;
      end

      StNew: begin                         // create descriptor p_q, hash slot way_q
        d_we = 1'b1;
        d_wdata.seg = seg_q;
        d_wdata.clr = !pcm_q;
        d_wdata.exptm = exp_new;
        d_wdata.refcnt = inc;
        d_wdata.rbmcnt = rbm_q ? RbmW'(1) : '0;
        hb_we = Ways'(1) << way_q;
        for (int w = 0; w < Ways; w++) begin
          hb_wdata[w*SlotW +: SlotW] = {1'b1, seg_q[SegW-1:BktW], p_q};
        end
        qn_d = qof(inc);
        r_seg_d = seg_q; r_clr_d = !pcm_q; r_exptm_d = exp_new; r_ref_d = inc;
        r_rbm_d = rbm_q ? RbmW'(1) : '0; r_queue_d = qof(inc);
        r_cand_d = (qof(inc) >= NqW'(CandQueue)) && ((rbm_q ? RbmW'(1) : RbmW'(0)) >= RbmW'(CandRbm))
                   && pcm_q;
        state_d = StApp1;
      end

      StApp1: begin                        // append p_q to the tail of qn_q (links of p)
        pv_we = 1'b1; pv_waddr = p_q; pv_wdata = qn_empty ? Nil : tail_n;
        nx_we = 1'b1; nx_waddr = p_q; nx_wdata = Nil;
        state_d = StApp2;
      end

      StApp2: begin                        // link the old tail, update head/tail/count
        if (qn_empty) begin
          head_d[qn_q*PtrW +: PtrW] = {1'b0, p_q};
        end else begin
          nx_we = 1'b1; nx_waddr = tail_n[CapW-1:0]; nx_wdata = {1'b0, p_q};
        end
        tail_d[qn_q*PtrW +: PtrW] = {1'b0, p_q};
        cnt_d[qn_q*CntW +: CntW] = cnt_q[qn_q*CntW +: CntW] + 1'b1;
        occ_d = occ_q + 1'b1;
        r_occ_d = occ_q + 1'b1;
        state_d = StResp;
      end

      StTkRd: begin                        // head of qv_q on d_rdata / nx_rdata
        r_found_d = 1'b1;
        r_seg_d = d_rdata.seg; r_clr_d = d_rdata.clr; r_exptm_d = d_rdata.exptm;
        r_ref_d = d_rdata.refcnt; r_rbm_d = d_rdata.rbmcnt; r_queue_d = qv_q;
        if (!expired) begin
          r_occ_d = occ_q;
          state_d = StResp;
        end else if (qv_q != '0) begin     // D2 demote to qv_q - 1
          d_we = 1'b1;
          d_wdata.refcnt = (ref_half < ref_top) ? ref_half : ref_top;
          d_wdata.exptm = exp_new;
          ul_en = 1'b1; ul_q = qv_q; ul_pv = Nil; ul_nx = nx_rdata;
          qn_d = qv_q - 1'b1;
          r_dem_d = 1'b1; r_queue_d = qv_q - 1'b1; r_exptm_d = exp_new;
          r_ref_d = (ref_half < ref_top) ? ref_half : ref_top;
          state_d = StApp1;
        end else begin                     // leaves the structure from queue 0
          ul_en = 1'b1; ul_q = '0; ul_pv = Nil; ul_nx = nx_rdata;
          vseg_d = d_rdata.seg;
          hb_raddr = bucket(d_rdata.seg);
          r_ev_d = 1'b1; r_evseg_d = d_rdata.seg; r_evcb_d = d_rdata.clr;
          state_d = StTkHb;
        end
      end

      StTkHb: begin                        // clear hash slot, push p_q on the free list
        hb_waddr = bucket(vseg_q);
        hb_we = Ways'(sl_found) << sl_w;
        nx_we = 1'b1; nx_waddr = p_q; nx_wdata = fhead_q;
        fhead_d = {1'b0, p_q};
        r_occ_d = occ_q;
        state_d = StResp;
      end

      StSpRd: begin                        // SETPOS writes clr; LOOKUP only reads
        if (op_q == OpSetpos) begin
          d_we = 1'b1;
          d_wdata.clr = clrin_q;
        end
        r_clr_d = (op_q == OpSetpos) ? clrin_q : d_rdata.clr;
        r_exptm_d = d_rdata.exptm; r_ref_d = d_rdata.refcnt; r_rbm_d = d_rdata.rbmcnt;
        r_queue_d = q_old;
        state_d = StResp;
      end

      StNbSelf: begin                      // own descriptor; then scan the row
        r_clr_d = d_rdata.clr; r_exptm_d = d_rdata.exptm; r_ref_d = d_rdata.refcnt;
        r_rbm_d = d_rdata.rbmcnt; r_queue_d = q_old;
        k_d = '0;
        hb_raddr = bucket({seg_q[SegW-1:RowW], {RowW{1'b0}}});
        state_d = StNbHb;
      end

      StNbHb, StNbD: begin                 // D9: neighbour k_q
        if (state_q == StNbHb && hit && nseg != seg_q) begin
          d_raddr = hit_ptr;
          state_d = StNbD;
        end else begin
          if (state_q == StNbD && q_old == r_queue_q && !d_rdata.clr) begin
            r_mask_d[k_q[RowW-1:0]] = 1'b1;
          end
          if (k_q == KW'(RowN - 1)) begin
            state_d = StResp;
          end else begin
            k_d = k_nx;
            hb_raddr = bucket({seg_q[SegW-1:RowW], k_nx[RowW-1:0]});
            state_d = StNbHb;
          end
        end
      end

      StResp: begin
        rsp_valid_o = 1'b1;
        if (rsp_ready_i) state_d = StIdle;
      end

      default: state_d = StInit;
    endcase

    // unlink (shared by hit, conflict/capacity eviction, demotion, queue-0 exit)
    if (ul_en) begin
      if (!ul_pv[CapW]) begin
        nx_we = 1'b1; nx_waddr = ul_pv[CapW-1:0]; nx_wdata = ul_nx;
      end else begin
        head_d[ul_q*PtrW +: PtrW] = ul_nx;
      end
      if (!ul_nx[CapW]) begin
        pv_we = 1'b1; pv_waddr = ul_nx[CapW-1:0]; pv_wdata = ul_pv;
      end else begin
        tail_d[ul_q*PtrW +: PtrW] = ul_pv;
      end
      cnt_d[ul_q*CntW +: CntW] = cnt_q[ul_q*CntW +: CntW] - 1'b1;
      occ_d = occ_q - 1'b1;
    end
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StInit;
      init_q <= '0;
      head_q <= {NQ{Nil}};
      tail_q <= {NQ{Nil}};
      cnt_q <= '0;
      fhead_q <= Nil;
      fresh_q <= '0;
      occ_q <= '0;
      rr_q <= '0;
      op_q <= '0; seg_q <= '0; wr_q <= 1'b0; pcm_q <= 1'b0; rbm_q <= 1'b0; clrin_q <= 1'b0;
      now_q <= '0; p_q <= '0; bkt_q <= '0; k_q <= '0; way_q <= '0; minref_q <= '0;
      kmin_q <= '0; vseg_q <= '0; vclr_q <= 1'b0; qv_q <= '0; qn_q <= '0;
      r_op_q <= '0; r_found_q <= 1'b0; r_clr_q <= 1'b0; r_cand_q <= 1'b0; r_seg_q <= '0;
      r_evseg_q <= '0; r_queue_q <= '0; r_tickq_q <= '0; r_exptm_q <= '0; r_ref_q <= '0;
      r_rbm_q <= '0; r_ev_q <= 1'b0; r_evconf_q <= 1'b0; r_evcb_q <= 1'b0; r_dem_q <= 1'b0;
      r_mask_q <= '0; r_occ_q <= '0;
    end else begin
      state_q <= state_d;
      init_q <= init_d;
      head_q <= head_d;
      tail_q <= tail_d;
      cnt_q <= cnt_d;
      fhead_q <= fhead_d;
      fresh_q <= fresh_d;
      occ_q <= occ_d;
      rr_q <= rr_d;
      op_q <= op_d; seg_q <= seg_d; wr_q <= wr_d; pcm_q <= pcm_d; rbm_q <= rbm_d; clrin_q <= clrin_d;
      now_q <= now_d; p_q <= p_d; bkt_q <= bkt_d; k_q <= k_d; way_q <= way_d; minref_q <= minref_d;
      kmin_q <= kmin_d; vseg_q <= vseg_d; vclr_q <= vclr_d; qv_q <= qv_d; qn_q <= qn_d;
      r_op_q <= r_op_d; r_found_q <= r_found_d; r_clr_q <= r_clr_d; r_cand_q <= r_cand_d;
      r_seg_q <= r_seg_d; r_evseg_q <= r_evseg_d; r_queue_q <= r_queue_d; r_tickq_q <= r_tickq_d;
      r_exptm_q <= r_exptm_d; r_ref_q <= r_ref_d; r_rbm_q <= r_rbm_d; r_ev_q <= r_ev_d;
      r_evconf_q <= r_evconf_d; r_evcb_q <= r_evcb_d; r_dem_q <= r_dem_d; r_mask_q <= r_mask_d;
      r_occ_q <= r_occ_d;
    end
  end

  assign rsp_op_o = r_op_q;
  assign rsp_found_o = r_found_q;
  assign rsp_seg_o = r_seg_q;
  assign rsp_queue_o = r_queue_q;
  assign rsp_clr_o = r_clr_q;
  assign rsp_exptm_o = r_exptm_q;
  assign rsp_refcnt_o = r_ref_q;
  assign rsp_rbmcnt_o = r_rbm_q;
  assign rsp_cand_o = r_cand_q;
  assign rsp_ev_valid_o = r_ev_q;
  assign rsp_ev_conf_o = r_evconf_q;
  assign rsp_ev_copyback_o = r_evcb_q;
  assign rsp_ev_seg_o = r_evseg_q;
  assign rsp_demoted_o = r_dem_q;
  assign rsp_tick_q_o = r_tickq_q;
  assign rsp_mask_o = r_mask_q;
  assign rsp_occ_o = r_occ_q;

  // Per-queue lengths for waveform viewing (waveforms/flrb.gtkw); no logic.
  for (genvar q = 0; q < NQ; q++) begin : gen_qlen
    /* verilator lint_off UNUSEDSIGNAL */
    logic [CntW-1:0] len;
    /* verilator lint_on UNUSEDSIGNAL */
    assign len = cnt_q[q*CntW +: CntW];
  end

  // ---------------------------------------------------------------- invariants
`ifndef SYNTHESIS
  logic [CapW+3:0] cnt_sum;
  always_comb begin
    cnt_sum = '0;
    for (int q = 0; q < NQ; q++) cnt_sum = cnt_sum + (CapW+4)'(cnt_q[q*CntW +: CntW]);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      assert (occ_q <= (CapW+1)'(Cap)) else $error("flrb: occupancy %0d above capacity", occ_q);
      assert (fresh_q <= (CapW+1)'(Cap)) else $error("flrb: fresh counter above capacity");
      assert (cnt_sum == (CapW+4)'(occ_q)) else $error("flrb: queue counts do not sum to occupancy");
      if (state_q == StLook) begin
        assert (nhits <= 1) else $error("flrb: segment present in two hash slots");
      end
      if (state_q == StHit) begin
        assert (cnt_q[q_old*CntW +: CntW] != '0) else $error("flrb: hit descriptor in an empty queue");
      end
      if (state_q == StTkRd) begin
        assert (q_old == qv_q) else $error("flrb: queue head refcnt outside the queue range");
      end
      if (state_q == StCeHb || state_q == StTkHb) begin
        assert (sl_found) else $error("flrb: evicted descriptor has no hash slot");
      end
      if (state_q == StApp2) begin
        assert (occ_q < (CapW+1)'(Cap)) else $error("flrb: append beyond capacity");
      end
    end
  end
`endif

  // Parameter checks (elaboration time).
  if (CapW < 1 || CapW > 16) begin : gen_bad_capw
    $error("flrb: CapW out of range");
  end
  if (BktW < 1 || BktW >= SegW) begin : gen_bad_bktw
    $error("flrb: BktW out of range");
  end
  if (Ways < 1 || Ways > 8 || Ways > (1 << KW)) begin : gen_bad_ways
    $error("flrb: Ways out of range");
  end
  if (DescW != flrb_pkg::DESC_BITS || Cap > (1 << 16)) begin : gen_bad_desc
    $error("flrb: descriptor layout differs from flrb_pkg::DESC_BITS");
  end
  if (NQ - 2 >= RefW) begin : gen_bad_nq
    $error("flrb: NQ too large for REF_W");
  end
endmodule
