// bps_scorer: SCM-aware DRAM-cache bypass scorer of one channel controller (HMS paper
// Sec. III-C, Fig. 9; Sec. III-F hit-path average update). Bit-exact RTL of the C reference
// models/ref/blocks/bps.{h,c}; the formats, rounding and decision rules are specified in bps.h.
//
// Per request (valid/ready):
//   OP_MISS  : SCM penalty pen = floor((num << PEN_FRAC) / ncols) (Eq. 1, num = cfg_num_wr_i
//              if a write is present else cfg_num_rd_i), affinity aff = pen * act; update the
//              maxima; levels; Fig. 9 decision: BYPASS_L1 / FILL_INVALID / FILL_WIN /
//              BYPASS_L2 (+ probabilistic victim decrement from the LFSR, p = act / max_act);
//              moving average updated if cfg_avg_on_miss_i.
//   OP_HIT   : penalty, maxima and the moving average (weight ~1%) updated; levels reported.
//   OP_CLEAR : maxima and average cleared, LFSR loaded with req_seed_i (0 -> LFSR_SEED).
//   Opcode 3 is illegal (assertion); with assertions off it behaves as OP_HIT.
// Configuration inputs cfg_* are sampled when a request is accepted (they may change between
// requests, e.g. SCM throttling doubling tRCD/tWR, Sec. III-E).
//
// Parameters (defaults from bps_pkg, generated from rtl/params/bps.toml; the C reference is
// compiled with the same defaults, so only DivStepsPerCycle may be overridden freely):
//   DivStepsPerCycle  radix-2 divider steps per cycle, 1..bps_pkg::PEN_W (area vs latency)
//
// Latency / throughput (D = ceil(PEN_W / DivStepsPerCycle), 20 with the defaults):
//   HIT/MISS: resp_valid_o is high D + 2 cycles after the cycle of the request handshake;
//   CLEAR: 1 cycle after.
//   req_ready_o is high only when idle (no request pending, no response held), so with
//   resp_ready_i high the block accepts one HIT/MISS every D + 3 cycles.
//   The response is held stable until resp_ready_i.
module bps_scorer #(
  parameter int unsigned DivStepsPerCycle = 1
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // configuration (sampled at request acceptance)
  input  logic [bps_pkg::NUM_W-1:0]    cfg_num_rd_i,
  input  logic [bps_pkg::NUM_W-1:0]    cfg_num_wr_i,
  input  logic                         cfg_avg_on_miss_i,
  // request
  input  logic                         req_valid_i,
  output logic                         req_ready_o,
  input  logic [bps_pkg::OP_W-1:0]     req_op_i,
  input  logic [bps_pkg::NCOL_W-1:0]   req_ncols_i,
  input  logic                         req_write_i,
  input  logic [bps_pkg::ACT_W-1:0]    req_act_i,
  input  logic                         req_victim_valid_i,
  input  logic [bps_pkg::LVL_W-1:0]    req_victim_level_i,
  input  logic [bps_pkg::LFSR_W-1:0]   req_seed_i,
  // response
  output logic                         resp_valid_o,
  input  logic                         resp_ready_i,
  output logic [bps_pkg::PATH_W-1:0]   resp_path_o,
  output logic                         resp_fill_o,
  output logic [bps_pkg::LVL_W-1:0]    resp_store_level_o,
  output logic                         resp_dec_victim_o,
  output logic [bps_pkg::LVL_W-1:0]    resp_victim_level_o,
  output logic [bps_pkg::PEN_W-1:0]    resp_pen_o,
  output logic [bps_pkg::LVL_W-1:0]    resp_pen_level_o,
  output logic [bps_pkg::LVL_W-1:0]    resp_avg_level_o,
  output logic [bps_pkg::LVL_W-1:0]    resp_aff_level_o,
  // state observation (scoreboard, waveforms, platform stats)
  output logic [bps_pkg::PEN_W-1:0]    st_max_pen_o,
  output logic [bps_pkg::AFF_W-1:0]    st_max_aff_o,
  output logic [bps_pkg::ACT_W-1:0]    st_max_act_o,
  output logic [bps_pkg::AVG_W-1:0]    st_avg_o,
  output logic [bps_pkg::LFSR_W-1:0]   st_lfsr_o
);
  localparam int unsigned OpW    = bps_pkg::OP_W;
  localparam int unsigned NumW   = bps_pkg::NUM_W;
  localparam int unsigned NcolW  = bps_pkg::NCOL_W;
  localparam int unsigned ActW   = bps_pkg::ACT_W;
  localparam int unsigned LvlW   = bps_pkg::LVL_W;
  localparam int unsigned PenW   = bps_pkg::PEN_W;
  localparam int unsigned AffW   = bps_pkg::AFF_W;
  localparam int unsigned AvgW   = bps_pkg::AVG_W;
  localparam int unsigned XFrac  = bps_pkg::AVG_XFRAC;
  localparam int unsigned LfsrW  = bps_pkg::LFSR_W;
  localparam int unsigned PathW  = bps_pkg::PATH_W;
  localparam int unsigned WShift = bps_pkg::AVG_WSHIFT;
  // (P - avg) * AVG_WNUM needs AvgW + width(AVG_WNUM) bits
  localparam int unsigned ProdW  = AvgW + $clog2(bps_pkg::AVG_WNUM + 1);
  localparam int unsigned DrawW  = 2 * ActW;

  localparam logic [LfsrW-1:0] LfsrTaps = LfsrW'(bps_pkg::LFSR_TAPS);
  localparam logic [LfsrW-1:0] LfsrSeed = LfsrW'(bps_pkg::LFSR_SEED);

  localparam logic [PathW-1:0] PathBypassL1   = PathW'(bps_pkg::ENC_BYPASS_L1);
  localparam logic [PathW-1:0] PathFillInvalid = PathW'(bps_pkg::ENC_FILL_INVALID);
  localparam logic [PathW-1:0] PathFillWin    = PathW'(bps_pkg::ENC_FILL_WIN);
  localparam logic [PathW-1:0] PathBypassL2   = PathW'(bps_pkg::ENC_BYPASS_L2);
  localparam logic [PathW-1:0] PathHit        = PathW'(bps_pkg::ENC_HIT);
  localparam logic [PathW-1:0] PathClear      = PathW'(bps_pkg::ENC_CLEAR);

  // LFSR_STEPS Galois right shifts (one random draw).
  function automatic logic [LfsrW-1:0] lfsr_advance(input logic [LfsrW-1:0] s);
    logic [LfsrW-1:0] x;
    x = s;
    for (int unsigned i = 0; i < bps_pkg::LFSR_STEPS; i++) begin
      x = x[0] ? ((x >> 1) ^ LfsrTaps) : (x >> 1);
    end
    lfsr_advance = x;
  endfunction

  typedef enum logic [1:0] {StIdle, StDiv, StResp} state_e;

  // ---------------------------------------------------------------------------------------
  // Registers
  state_e              state_q, state_d;
  // captured request
  logic                miss_q, miss_d;         // 1: MISS, 0: HIT (CLEAR never waits)
  logic [ActW-1:0]     act_q, act_d;
  logic                vvalid_q, vvalid_d;
  logic [LvlW-1:0]     vlevel_q, vlevel_d;
  logic                avg_on_miss_q, avg_on_miss_d;
  // scorer state (Sec. III-C3: maximum and average registers)
  logic [PenW-1:0]     max_pen_q, max_pen_d;
  logic [AffW-1:0]     max_aff_q, max_aff_d;
  logic [ActW-1:0]     max_act_q, max_act_d;
  logic [AvgW-1:0]     avg_q, avg_d;
  logic [LfsrW-1:0]    lfsr_q, lfsr_d;
  // response
  logic [PathW-1:0]    r_path_q, r_path_d;
  logic                r_fill_q, r_fill_d;
  logic [LvlW-1:0]     r_store_q, r_store_d;
  logic                r_dec_q, r_dec_d;
  logic [LvlW-1:0]     r_vlevel_q, r_vlevel_d;
  logic [PenW-1:0]     r_pen_q, r_pen_d;
  logic [LvlW-1:0]     r_pen_lvl_q, r_pen_lvl_d;
  logic [LvlW-1:0]     r_avg_lvl_q, r_avg_lvl_d;
  logic [LvlW-1:0]     r_aff_lvl_q, r_aff_lvl_d;

  // ---------------------------------------------------------------------------------------
  // Divider: pen = floor((num << PEN_FRAC) / max(ncols, 1))
  logic              accept;
  logic              div_start, div_busy;
  logic [PenW-1:0]   div_dividend, pen;
  logic [NcolW-1:0]  div_divisor, div_rem;
  logic [NumW-1:0]   num_sel;

  assign req_ready_o  = (state_q == StIdle);
  assign accept       = req_valid_i && req_ready_o;
  assign num_sel      = req_write_i ? cfg_num_wr_i : cfg_num_rd_i;
  assign div_dividend = {num_sel, {bps_pkg::PEN_FRAC{1'b0}}};
  assign div_divisor  = (req_ncols_i == '0) ? NcolW'(1) : req_ncols_i;
  assign div_start    = accept && (req_op_i != OpW'(bps_pkg::OP_CLEAR));

  bps_div #(
    .DividendW    (PenW),
    .DivisorW     (NcolW),
    .StepsPerCycle(DivStepsPerCycle)
  ) u_div (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .start_i    (div_start),
    .dividend_i (div_dividend),
    .divisor_i  (div_divisor),
    .busy_o     (div_busy),
    .quotient_o (pen),
    .remainder_o(div_rem)
  );

  // ---------------------------------------------------------------------------------------
  // Score datapath (valid in StDiv once the divider is done)
  logic [AffW-1:0]   aff;
  logic [PenW-1:0]   new_max_pen;
  logic [AffW-1:0]   new_max_aff;
  logic [ActW-1:0]   new_max_act;
  logic [AvgW-1:0]   avg_max;
  logic [LvlW-1:0]   pen_lvl, aff_lvl, avg_lvl;
  logic [AvgW-1:0]   avg_target, avg_next;
  logic [ProdW-1:0]  avg_prod;
  logic [ActW-1:0]   draw;
  logic              draw_hit;

  assign aff         = AffW'(pen) * AffW'(act_q);
  assign new_max_pen = (pen > max_pen_q) ? pen : max_pen_q;
  assign new_max_aff = (aff > max_aff_q) ? aff : max_aff_q;
  assign new_max_act = (act_q > max_act_q) ? act_q : max_act_q;
  assign avg_max     = {new_max_pen, {XFrac{1'b0}}};

  bps_level #(.W(PenW), .NLevels(bps_pkg::NLEVELS), .LvlW(LvlW)) u_pen_level (
    .val_i(pen), .max_i(new_max_pen), .level_o(pen_lvl));
  bps_level #(.W(AffW), .NLevels(bps_pkg::NLEVELS), .LvlW(LvlW)) u_aff_level (
    .val_i(aff), .max_i(new_max_aff), .level_o(aff_lvl));
  bps_level #(.W(AvgW), .NLevels(bps_pkg::NLEVELS), .LvlW(LvlW)) u_avg_level (
    .val_i(avg_q), .max_i(avg_max), .level_o(avg_lvl));

  // Moving average, new value weight AVG_WNUM / 2^AVG_WSHIFT: avg + floor((P - avg) * w).
  always_comb begin
    avg_target = {pen, {XFrac{1'b0}}};
    if (avg_target >= avg_q) begin
      avg_prod = (ProdW'(avg_target) - ProdW'(avg_q)) * ProdW'(bps_pkg::AVG_WNUM);
      avg_next = avg_q + AvgW'(avg_prod >> WShift);
    end else begin
      avg_prod = (ProdW'(avg_q) - ProdW'(avg_target)) * ProdW'(bps_pkg::AVG_WNUM)
               + ProdW'((1 << WShift) - 1);
      avg_next = avg_q - AvgW'(avg_prod >> WShift);
    end
  end

  // Victim decrement with p_dec = act / max_act: r * max_act < act << ACT_W.
  assign draw     = lfsr_q[ActW-1:0];
  assign draw_hit = (DrawW'(draw) * DrawW'(new_max_act)) < {act_q, {ActW{1'b0}}};

  // ---------------------------------------------------------------------------------------
  always_comb begin
    state_d       = state_q;
    miss_d        = miss_q;
    act_d         = act_q;
    vvalid_d      = vvalid_q;
    vlevel_d      = vlevel_q;
    avg_on_miss_d = avg_on_miss_q;
    max_pen_d     = max_pen_q;
    max_aff_d     = max_aff_q;
    max_act_d     = max_act_q;
    avg_d         = avg_q;
    lfsr_d        = lfsr_q;
    r_path_d      = r_path_q;
    r_fill_d      = r_fill_q;
    r_store_d     = r_store_q;
    r_dec_d       = r_dec_q;
    r_vlevel_d    = r_vlevel_q;
    r_pen_d       = r_pen_q;
    r_pen_lvl_d   = r_pen_lvl_q;
    r_avg_lvl_d   = r_avg_lvl_q;
    r_aff_lvl_d   = r_aff_lvl_q;

    unique case (state_q)
      StIdle: begin
        if (accept) begin
          miss_d        = (req_op_i == OpW'(bps_pkg::OP_MISS));
          act_d         = req_act_i;
          vvalid_d      = req_victim_valid_i;
          vlevel_d      = req_victim_level_i;
          avg_on_miss_d = cfg_avg_on_miss_i;
          if (req_op_i == OpW'(bps_pkg::OP_CLEAR)) begin
            max_pen_d   = '0;
            max_aff_d   = '0;
            max_act_d   = '0;
            avg_d       = '0;
            lfsr_d      = (req_seed_i == '0) ? LfsrSeed : req_seed_i;
            r_path_d    = PathClear;
            r_fill_d    = 1'b0;
            r_store_d   = '0;
            r_dec_d     = 1'b0;
            r_vlevel_d  = '0;
            r_pen_d     = '0;
            r_pen_lvl_d = '0;
            r_avg_lvl_d = '0;
            r_aff_lvl_d = '0;
            state_d     = StResp;
          end else begin
            state_d = StDiv;
          end
        end
      end
      StDiv: begin
        if (!div_busy) begin
          max_pen_d   = new_max_pen;
          max_aff_d   = new_max_aff;
          max_act_d   = new_max_act;
          r_pen_d     = pen;
          r_pen_lvl_d = pen_lvl;
          r_avg_lvl_d = avg_lvl;
          r_aff_lvl_d = aff_lvl;
          r_fill_d    = 1'b0;
          r_store_d   = '0;
          r_dec_d     = 1'b0;
          r_vlevel_d  = '0;
          if (!miss_q) begin
            r_path_d = PathHit;
            avg_d    = avg_next;
          end else begin
            if (avg_on_miss_q) avg_d = avg_next;
            if (pen_lvl <= avg_lvl) begin
              r_path_d = PathBypassL1;           // Fig. 9 step 2
            end else if (!vvalid_q) begin
              r_path_d  = PathFillInvalid;       // invalid victim: fill without step 3
              r_fill_d  = 1'b1;
              r_store_d = aff_lvl;
            end else if (aff_lvl > vlevel_q) begin
              r_path_d  = PathFillWin;           // steps 4 -> 5
              r_fill_d  = 1'b1;
              r_store_d = aff_lvl;
            end else begin
              r_path_d   = PathBypassL2;         // not replaced: decrement with p_dec
              lfsr_d     = lfsr_advance(lfsr_q);
              r_dec_d    = draw_hit && (vlevel_q != '0);
              r_vlevel_d = vlevel_q - LvlW'(r_dec_d);
            end
          end
          state_d = StResp;
        end
      end
      StResp: begin
        if (resp_ready_i) state_d = StIdle;
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= StIdle;
      miss_q        <= 1'b0;
      act_q         <= '0;
      vvalid_q      <= 1'b0;
      vlevel_q      <= '0;
      avg_on_miss_q <= 1'b0;
      max_pen_q     <= '0;
      max_aff_q     <= '0;
      max_act_q     <= '0;
      avg_q         <= '0;
      lfsr_q        <= LfsrSeed;
      r_path_q      <= '0;
      r_fill_q      <= 1'b0;
      r_store_q     <= '0;
      r_dec_q       <= 1'b0;
      r_vlevel_q    <= '0;
      r_pen_q       <= '0;
      r_pen_lvl_q   <= '0;
      r_avg_lvl_q   <= '0;
      r_aff_lvl_q   <= '0;
    end else begin
      state_q       <= state_d;
      miss_q        <= miss_d;
      act_q         <= act_d;
      vvalid_q      <= vvalid_d;
      vlevel_q      <= vlevel_d;
      avg_on_miss_q <= avg_on_miss_d;
      max_pen_q     <= max_pen_d;
      max_aff_q     <= max_aff_d;
      max_act_q     <= max_act_d;
      avg_q         <= avg_d;
      lfsr_q        <= lfsr_d;
      r_path_q      <= r_path_d;
      r_fill_q      <= r_fill_d;
      r_store_q     <= r_store_d;
      r_dec_q       <= r_dec_d;
      r_vlevel_q    <= r_vlevel_d;
      r_pen_q       <= r_pen_d;
      r_pen_lvl_q   <= r_pen_lvl_d;
      r_avg_lvl_q   <= r_avg_lvl_d;
      r_aff_lvl_q   <= r_aff_lvl_d;
    end
  end

  assign resp_valid_o        = (state_q == StResp);
  assign resp_path_o         = r_path_q;
  assign resp_fill_o         = r_fill_q;
  assign resp_store_level_o  = r_store_q;
  assign resp_dec_victim_o   = r_dec_q;
  assign resp_victim_level_o = r_vlevel_q;
  assign resp_pen_o          = r_pen_q;
  assign resp_pen_level_o    = r_pen_lvl_q;
  assign resp_avg_level_o    = r_avg_lvl_q;
  assign resp_aff_level_o    = r_aff_lvl_q;
  assign st_max_pen_o        = max_pen_q;
  assign st_max_aff_o        = max_aff_q;
  assign st_max_act_o        = max_act_q;
  assign st_avg_o            = avg_q;
  assign st_lfsr_o           = lfsr_q;

  // The remainder is not needed (truncating division).
  logic unused_rem;
  assign unused_rem = ^div_rem;

`ifndef SYNTHESIS
  // Invariants (run with verilator --assert).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      assert (lfsr_q != '0) else $error("bps_scorer: LFSR stuck at zero");
      assert (avg_q <= {max_pen_q, {XFrac{1'b0}}})
        else $error("bps_scorer: moving average above the maximum penalty");
      assert (32'(r_pen_lvl_q) < bps_pkg::NLEVELS && 32'(r_avg_lvl_q) < bps_pkg::NLEVELS &&
              32'(r_aff_lvl_q) < bps_pkg::NLEVELS && 32'(r_store_q) < bps_pkg::NLEVELS)
        else $error("bps_scorer: level out of range");
      assert (!(r_fill_q && r_dec_q)) else $error("bps_scorer: fill and decrement together");
      if (req_valid_i) begin
        assert (req_op_i == OpW'(bps_pkg::OP_HIT) || req_op_i == OpW'(bps_pkg::OP_MISS) ||
                req_op_i == OpW'(bps_pkg::OP_CLEAR))
          else $error("bps_scorer: illegal opcode %0d", req_op_i);
      end
      if (state_q == StDiv && !div_busy) begin
        assert (pen <= new_max_pen && aff <= new_max_aff && act_q <= new_max_act)
          else $error("bps_scorer: score above its maximum");
      end
    end
  end

  // Elaboration-time consistency of the parameter description (rtl/params/bps.toml).
  initial begin
    assert (bps_pkg::NUM_RD_DEFAULT == bps_pkg::T_RCD_SCM - bps_pkg::T_RCD_DRAM &&
            bps_pkg::NUM_WR_DEFAULT == bps_pkg::NUM_RD_DEFAULT + bps_pkg::T_WR_SCM -
                                       bps_pkg::T_WR_DRAM &&
            bps_pkg::NUM_WR_DEFAULT < (1 << NumW))
      else $error("bps_scorer: default numerators inconsistent with the timing parameters");
    assert (bps_pkg::ROW_COLS < (1 << NcolW)) else $error("bps_scorer: NCOL_W too small");
    assert ((1 << LvlW) >= bps_pkg::NLEVELS && bps_pkg::NLEVELS >= 2)
      else $error("bps_scorer: LVL_W too small");
    assert (bps_pkg::AVG_WNUM < (1 << WShift)) else $error("bps_scorer: average weight >= 1");
  end
`endif
endmodule
