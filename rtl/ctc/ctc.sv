// ctc: Configurable Tag Cache (HMS paper, Sec. III-D, Fig. 10) -- a set-associative
// cache of DRAM-cache tags carved out of up to ctc_pkg::MAX_L2_WAYS L2 ways.
//
// Each carved 128 B L2 way holds TCW_PER_L2W 32 B tag-cache ways; a tag-cache line
// has one tag and SECTORS 4 B sectors (one DRAM-cache row's AMIL metadata each)
// with per-sector valid and dirty bits. Tree pseudo-LRU per set (ctc_plru.sv).
// Behaviour, row mapping and every decision where the paper is silent are those
// of the C reference models/ref/blocks/ctc.h, which this block matches field for field
// (testbenches/ctc). Constants come from ctc_pkg (generated from rtl/params/ctc.toml).
//
// Parameters
//   Sets        sets, a power of two >= 2 (ctc_pkg::SETS = 256 per L2 bank)
//   RowBits     width of a row index, > $clog2(Sets) + SECTOR_IDX_BITS
//   ResetL2Ways L2 ways carved out after reset, 0..MAX_L2_WAYS
//
// Interface (valid/ready; a transfer happens when both are high at a clock edge)
//   req  : op, row, data, dirty, l2_ways (ctc_pkg::OP_* opcodes). One request at a
//          time: req_ready_o is high only when the block is idle.
//   wb   : one beat per dirty sector written back (row, data), in the order of the
//          C model; all write-backs of a request precede its response.
//   rsp  : hit, line_hit, stored, evicted, err, way, data, nwb (see ctc_result in
//          ctc.h; err = configure with l2_ways > MAX_L2_WAYS, nothing changed).
//
// Storage: a metadata SRAM of Sets words {per way: tag, dirty[8], valid[8]; plru}
// and a data SRAM of Sets*MAX_WAYS*SECTORS 32-bit sectors (ctc_sram.sv, 1-cycle
// read). After reset an init walk clears the metadata (Sets cycles, req_ready_o low).
//
// Latency: cycles from the request handshake edge to the first cycle with
// rsp_valid_o, without back-pressure (checked by the directed testbench):
//   lookup miss 2; lookup hit 3; fill/update to a present line 3; fill of a valid
//   sector 3; fill/update into an invalid or clean victim 3; into a victim with
//   n dirty sectors 4 + n (one write-back beat per cycle); invalidate 3, or 4 + n
//   with n dirty sectors; configure that does not shrink, undefined opcode 1;
//   configure that shrinks / flush: 1 + 3 * Sets + sum over written-back lines
//   of (2 + dirty sectors).
// Throughput: one request in flight; the next request is accepted the cycle
// after the response handshake. Write-back beats: one per cycle when ready.
module ctc #(
  parameter int unsigned Sets        = ctc_pkg::SETS,
  parameter int unsigned RowBits     = ctc_pkg::ROW_BITS,
  parameter int unsigned ResetL2Ways = ctc_pkg::RESET_L2_WAYS,
  localparam int unsigned OpW   = ctc_pkg::OP_BITS,
  localparam int unsigned L2wW  = ctc_pkg::L2W_BITS,
  localparam int unsigned WayW  = ctc_pkg::WAY_BITS,
  localparam int unsigned DataW = ctc_pkg::SECTOR_BITS,
  localparam int unsigned NwbW  = $clog2(Sets * ctc_pkg::MAX_WAYS * ctc_pkg::SECTORS + 1)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // request
  input  logic               req_valid_i,
  output logic               req_ready_o,
  input  logic [OpW-1:0]     req_op_i,
  input  logic [RowBits-1:0] req_row_i,
  input  logic [DataW-1:0]   req_data_i,
  input  logic               req_dirty_i,
  input  logic [L2wW-1:0]    req_l2_ways_i,
  // write-back toward the DRAM cache's AMIL column
  output logic               wb_valid_o,
  input  logic               wb_ready_i,
  output logic [RowBits-1:0] wb_row_o,
  output logic [DataW-1:0]   wb_data_o,
  // response
  output logic               rsp_valid_o,
  input  logic               rsp_ready_i,
  output logic               rsp_hit_o,
  output logic               rsp_line_hit_o,
  output logic               rsp_stored_o,
  output logic               rsp_evicted_o,
  output logic               rsp_err_o,
  output logic [WayW-1:0]    rsp_way_o,
  output logic [DataW-1:0]   rsp_data_o,
  output logic [NwbW-1:0]    rsp_nwb_o,
  // status
  output logic [L2wW-1:0]    l2_ways_o
);
  localparam int unsigned MaxWays = ctc_pkg::MAX_WAYS;
  localparam int unsigned Sectors = ctc_pkg::SECTORS;
  localparam int unsigned SecW    = ctc_pkg::SECTOR_IDX_BITS;
  localparam int unsigned PlruW   = ctc_pkg::PLRU_BITS;
  localparam int unsigned SetW    = $clog2(Sets);
  localparam int unsigned TagW    = RowBits - SetW - SecW;
  localparam int unsigned LineW   = TagW + 2 * Sectors;        // {tag, dirty, valid}
  localparam int unsigned MetaW   = PlruW + MaxWays * LineW;   // {lines, plru}
  localparam int unsigned DAddrW  = SetW + WayW + SecW;

  localparam logic [OpW-1:0] OpLookup = OpW'(ctc_pkg::OP_LOOKUP);
  localparam logic [OpW-1:0] OpFill   = OpW'(ctc_pkg::OP_FILL);
  localparam logic [OpW-1:0] OpUpdate = OpW'(ctc_pkg::OP_UPDATE);
  localparam logic [OpW-1:0] OpInval  = OpW'(ctc_pkg::OP_INVAL);
  localparam logic [OpW-1:0] OpConfig = OpW'(ctc_pkg::OP_CONFIG);
  localparam logic [OpW-1:0] OpFlush  = OpW'(ctc_pkg::OP_FLUSH);

  typedef enum logic [3:0] {
    S_INIT,   // clear the metadata SRAM after reset
    S_IDLE,   // wait for a request
    S_META,   // metadata of the request's set available: hit / victim decision
    S_EVRD,   // read the first dirty sector of the line being written back
    S_EVWB,   // present a write-back beat; read the next dirty sector
    S_WRITE,  // write metadata (+ data sector) of fill / update / invalidate
    S_LDATA,  // data sector available (lookup hit, fill of a valid sector)
    S_WREAD,  // walk (configure / flush): read the set's metadata
    S_WMETA,  // walk: capture the metadata
    S_WSCAN,  // walk: next dirty way in range, or clear the range and write back
    S_RSP     // present the response
  } state_e;

  // ---------------------------------------------------------------- registers
  state_e             state_q, state_d;
  logic [OpW-1:0]     op_q, op_d;
  logic [RowBits-1:0] row_q, row_d;
  logic [DataW-1:0]   data_q, data_d;
  logic               dirty_q, dirty_d;
  logic [L2wW-1:0]    l2w_q, l2w_d;
  logic [MetaW-1:0]   meta_q, meta_d;
  logic [WayW-1:0]    way_q, way_d;
  logic [TagW-1:0]    wb_tag_q, wb_tag_d;
  logic [Sectors-1:0] wb_mask_q, wb_mask_d;
  logic [SecW-1:0]    wb_sec_q, wb_sec_d;
  logic [SetW-1:0]    wset_q, wset_d;       // init / walk set counter
  logic [WayW:0]      wfrom_q, wfrom_d;     // walk: ways [wfrom, wto)
  logic [WayW:0]      wto_q, wto_d;
  logic               r_hit_q, r_hit_d, r_lhit_q, r_lhit_d, r_stored_q, r_stored_d;
  logic               r_evict_q, r_evict_d, r_err_q, r_err_d;
  logic [WayW-1:0]    r_way_q, r_way_d;
  logic [DataW-1:0]   r_data_q, r_data_d;
  logic [NwbW-1:0]    r_nwb_q, r_nwb_d;

  // ---------------------------------------------------------------- SRAMs
  logic               mreq, mwe;
  logic [SetW-1:0]    maddr;
  logic [MetaW-1:0]   mwdata, mrdata;
  logic               dreq, dwe;
  logic [DAddrW-1:0]  daddr;
  logic [DataW-1:0]   drdata;

  ctc_sram #(.Width(MetaW), .Depth(Sets)) u_meta (
    .clk_i, .req_i(mreq), .we_i(mwe), .addr_i(maddr), .wdata_i(mwdata), .rdata_o(mrdata)
  );
  ctc_sram #(.Width(DataW), .Depth(Sets * MaxWays * Sectors)) u_data (
    .clk_i, .req_i(dreq), .we_i(dwe), .addr_i(daddr), .wdata_i(data_q), .rdata_o(drdata)
  );

  // ---------------------------------------------------------------- decode
  logic              walk_op;
  logic [SetW-1:0]   row_set, req_set, cur_set;
  logic [TagW-1:0]   row_tag;
  logic [SecW-1:0]   row_sec;
  logic [WayW:0]     n_en;
  assign walk_op = (op_q == OpConfig) || (op_q == OpFlush);
  assign row_set = row_q[SecW +: SetW];
  assign row_tag = row_q[SecW + SetW +: TagW];
  assign row_sec = row_q[SecW-1:0];
  assign req_set = req_row_i[SecW +: SetW];
  assign cur_set = walk_op ? wset_q : row_set;
  assign n_en    = (WayW+1)'(l2w_q) * (WayW+1)'(ctc_pkg::TCW_PER_L2W);

  // Per-way fields of the SRAM output (decision in S_META) and of meta_q (walk).
  logic [MaxWays-1:0] hit_vec, inv_vec, dscan_vec;
  always_comb begin : p_ways
    for (int unsigned w = 0; w < MaxWays; w++) begin
      logic [Sectors-1:0] rv, qd;
      logic [TagW-1:0]    rt;
      logic               en, in_rng;
      rv = mrdata[PlruW + w * LineW +: Sectors];
      rt = mrdata[PlruW + w * LineW + 2 * Sectors +: TagW];
      qd = meta_q[PlruW + w * LineW + Sectors +: Sectors];
      en = (WayW+1)'(w) < n_en;
      in_rng = ((WayW+1)'(w) >= wfrom_q) && ((WayW+1)'(w) < wto_q);
      hit_vec[w]   = en && (rv != '0) && (rt == row_tag);
      inv_vec[w]   = en && (rv == '0);
      dscan_vec[w] = in_rng && (qd != '0);
    end
  end

  // Lowest set bit of a way vector / sector mask.
  logic [WayW-1:0] hit_way, inv_way, dscan_way;
  logic [SecW-1:0] first_sec;
  always_comb begin : p_prio
    hit_way = '0;
    inv_way = '0;
    dscan_way = '0;
    first_sec = '0;
    for (int w = MaxWays - 1; w >= 0; w--) begin
      if (hit_vec[w])   hit_way   = WayW'(w);
      if (inv_vec[w])   inv_way   = WayW'(w);
      if (dscan_vec[w]) dscan_way = WayW'(w);
    end
    for (int s = Sectors - 1; s >= 0; s--) begin
      if (wb_mask_q[s]) first_sec = SecW'(s);
    end
  end

  logic [LineW-1:0] hit_line_r, cur_line_q;
  logic [TagW-1:0]    dscan_tag_q;
  logic [Sectors-1:0] dscan_dirty_q, hit_valid_r;
  logic             line_hit, sec_hit;
  logic [LineW-1:0] victim_line_r;
  logic [LineW-1:Sectors] dscan_line_q;  // {tag, dirty}
  logic [WayW-1:0]  victim;
  // Way selection as AND-OR multiplexers over the ways (cheaper than a shifter).
  always_comb begin : p_sel
    hit_line_r = '0;
    cur_line_q = '0;
    victim_line_r = '0;
    dscan_line_q = '0;
    for (int unsigned w = 0; w < MaxWays; w++) begin
      if (hit_vec[w]) hit_line_r = hit_line_r | mrdata[PlruW + w * LineW +: LineW];
      if (WayW'(w) == way_q) cur_line_q = meta_q[PlruW + w * LineW +: LineW];
      if (WayW'(w) == victim) victim_line_r = mrdata[PlruW + w * LineW +: LineW];
      if (WayW'(w) == dscan_way) dscan_line_q = meta_q[PlruW + w * LineW + Sectors +: LineW - Sectors];
    end
  end
  assign dscan_tag_q   = dscan_line_q[2 * Sectors +: TagW];
  assign dscan_dirty_q = dscan_line_q[Sectors +: Sectors];
  assign hit_valid_r  = hit_line_r[Sectors-1:0];
  assign line_hit     = |hit_vec;
  assign sec_hit      = hit_valid_r[row_sec];

  // Victim: the lowest enabled invalid way, else the tree walk.
  logic [WayW-1:0]  plru_victim;
  logic [PlruW-1:0] plru_touched, unused_touched;
  logic [WayW-1:0]  unused_victim;
  ctc_plru #(.MaxWays(MaxWays)) u_plru_victim (
    .bits_i(mrdata[PlruW-1:0]), .n_en_i(n_en), .touch_way_i('0),
    .victim_o(plru_victim), .touched_o(unused_touched)
  );
  ctc_plru #(.MaxWays(MaxWays)) u_plru_touch (
    .bits_i(meta_q[PlruW-1:0]), .n_en_i(n_en), .touch_way_i(way_q),
    .victim_o(unused_victim), .touched_o(plru_touched)
  );
  assign victim        = (|inv_vec) ? inv_way : plru_victim;

  // Metadata word written by S_WRITE (fill/update/invalidate) and S_LDATA (touch).
  logic [MetaW-1:0]   meta_wr;
  logic [Sectors-1:0] sec_bit;
  assign sec_bit = Sectors'(1) << row_sec;
  always_comb begin : p_meta_wr
    logic [LineW-1:0] l;
    logic [Sectors-1:0] v, d;
    meta_wr = meta_q;
    l = cur_line_q;
    v = l[Sectors-1:0];
    d = l[Sectors +: Sectors];
    if (state_q == S_WRITE && op_q == OpInval) begin
      v = '0;
      d = '0;
    end else if (state_q == S_WRITE) begin
      if (!r_lhit_q) begin  // install over the victim
        v = '0;
        d = '0;
      end
      v = v | sec_bit;
      if (op_q == OpUpdate && dirty_q) d = d | sec_bit;
    end
    for (int unsigned w = 0; w < MaxWays; w++) begin
      if (WayW'(w) == way_q) begin
        meta_wr[PlruW + w * LineW +: LineW] = {(r_lhit_q ? l[2*Sectors +: TagW] : row_tag), d, v};
      end
    end
    if (op_q != OpInval) meta_wr[PlruW-1:0] = plru_touched;
  end

  // Walk: the metadata with every line of ways [wfrom, wto) cleared.
  logic [MetaW-1:0] meta_cleared;
  always_comb begin : p_meta_clr
    meta_cleared = meta_q;
    for (int unsigned w = 0; w < MaxWays; w++) begin
      if (((WayW+1)'(w) >= wfrom_q) && ((WayW+1)'(w) < wto_q)) begin
        meta_cleared[PlruW + w * LineW +: 2 * Sectors] = '0;
      end
    end
  end

  // ---------------------------------------------------------------- FSM
  logic req_fire, wb_fire, rsp_fire;
  assign req_ready_o = (state_q == S_IDLE);
  assign req_fire    = req_valid_i && req_ready_o;
  assign wb_valid_o  = (state_q == S_EVWB);
  assign wb_fire     = wb_valid_o && wb_ready_i;
  assign rsp_valid_o = (state_q == S_RSP);
  assign rsp_fire    = rsp_valid_o && rsp_ready_i;
  assign wb_row_o    = {wb_tag_q, cur_set, wb_sec_q};
  assign wb_data_o   = drdata;

  always_comb begin : p_fsm
    state_d = state_q;
    op_d = op_q;
    row_d = row_q;
    data_d = data_q;
    dirty_d = dirty_q;
    l2w_d = l2w_q;
    meta_d = meta_q;
    way_d = way_q;
    wb_tag_d = wb_tag_q;
    wb_mask_d = wb_mask_q;
    wb_sec_d = wb_sec_q;
    wset_d = wset_q;
    wfrom_d = wfrom_q;
    wto_d = wto_q;
    r_hit_d = r_hit_q;
    r_lhit_d = r_lhit_q;
    r_stored_d = r_stored_q;
    r_evict_d = r_evict_q;
    r_err_d = r_err_q;
    r_way_d = r_way_q;
    r_data_d = r_data_q;
    r_nwb_d = r_nwb_q;
    mreq = 1'b0;
    mwe = 1'b0;
    maddr = cur_set;
    mwdata = meta_wr;
    dreq = 1'b0;
    dwe = 1'b0;
    daddr = {cur_set, way_q, first_sec};

    unique case (state_q)
      S_INIT: begin
        mreq = 1'b1;
        mwe = 1'b1;
        maddr = wset_q;
        mwdata = '0;
        wset_d = wset_q + 1'b1;
        if (wset_q == SetW'(Sets - 1)) state_d = S_IDLE;
      end

      S_IDLE: begin
        if (req_fire) begin
          op_d = req_op_i;
          row_d = req_row_i;
          data_d = req_data_i;
          dirty_d = req_dirty_i;
          r_hit_d = 1'b0;
          r_lhit_d = 1'b0;
          r_stored_d = 1'b0;
          r_evict_d = 1'b0;
          r_err_d = 1'b0;
          r_way_d = '0;
          r_data_d = '0;
          r_nwb_d = '0;
          wset_d = '0;
          unique case (req_op_i)
            OpConfig: begin
              if (32'(req_l2_ways_i) > ctc_pkg::MAX_L2_WAYS) begin
                r_err_d = 1'b1;
                state_d = S_RSP;
              end else if (req_l2_ways_i < l2w_q) begin
                wfrom_d = (WayW+1)'(req_l2_ways_i) * (WayW+1)'(ctc_pkg::TCW_PER_L2W);
                wto_d = n_en;
                l2w_d = req_l2_ways_i;
                state_d = S_WREAD;
              end else begin
                l2w_d = req_l2_ways_i;
                state_d = S_RSP;
              end
            end
            OpFlush: begin
              wfrom_d = '0;
              wto_d = n_en;
              state_d = (l2w_q == '0) ? S_RSP : S_WREAD;
            end
            OpLookup, OpFill, OpUpdate, OpInval: begin
              mreq = 1'b1;
              maddr = req_set;
              state_d = S_META;
            end
            default: begin  // undefined opcode: error response, no change
              r_err_d = 1'b1;
              state_d = S_RSP;
            end
          endcase
        end
      end

      S_META: begin
        meta_d = mrdata;
        if (line_hit) begin
          r_lhit_d = 1'b1;
          r_hit_d = sec_hit;
          r_way_d = hit_way;
          way_d = hit_way;
        end
        unique case (op_q)
          OpLookup: begin
            if (line_hit && sec_hit) begin
              dreq = 1'b1;
              daddr = {row_set, hit_way, row_sec};
              state_d = S_LDATA;
            end else begin
              state_d = S_RSP;
            end
          end
          OpInval: begin
            if (line_hit) begin
              wb_tag_d = hit_line_r[2*Sectors +: TagW];
              wb_mask_d = hit_line_r[Sectors +: Sectors];
              state_d = (hit_line_r[Sectors +: Sectors] != '0) ? S_EVRD : S_WRITE;
            end else begin
              state_d = S_RSP;
            end
          end
          default: begin  // OpFill, OpUpdate
            if (line_hit) begin
              if (sec_hit && op_q == OpFill) begin  // keep the cached copy
                r_stored_d = 1'b1;
                dreq = 1'b1;
                daddr = {row_set, hit_way, row_sec};
                state_d = S_LDATA;
              end else begin
                state_d = S_WRITE;
              end
            end else if (n_en == '0) begin
              state_d = S_RSP;  // no tag-cache ways: nothing stored
            end else begin
              way_d = victim;
              r_evict_d = victim_line_r[Sectors-1:0] != '0;
              wb_tag_d = victim_line_r[2*Sectors +: TagW];
              wb_mask_d = victim_line_r[Sectors +: Sectors];
              state_d = (victim_line_r[Sectors +: Sectors] != '0) ? S_EVRD : S_WRITE;
            end
          end
        endcase
      end

      S_EVRD: begin
        dreq = 1'b1;
        daddr = {cur_set, way_q, first_sec};
        wb_sec_d = first_sec;
        wb_mask_d = wb_mask_q & ~(Sectors'(1) << first_sec);
        state_d = S_EVWB;
      end

      S_EVWB: begin
        if (wb_fire) begin
          r_nwb_d = r_nwb_q + 1'b1;
          if (wb_mask_q != '0) begin
            dreq = 1'b1;
            daddr = {cur_set, way_q, first_sec};
            wb_sec_d = first_sec;
            wb_mask_d = wb_mask_q & ~(Sectors'(1) << first_sec);
          end else begin
            state_d = walk_op ? S_WSCAN : S_WRITE;
          end
        end
      end

      S_WRITE: begin
        mreq = 1'b1;
        mwe = 1'b1;
        maddr = row_set;
        mwdata = meta_wr;
        if (op_q != OpInval) begin
          dreq = 1'b1;
          dwe = 1'b1;
          daddr = {row_set, way_q, row_sec};
          r_stored_d = 1'b1;
          r_way_d = way_q;
          r_data_d = data_q;
        end
        state_d = S_RSP;
      end

      S_LDATA: begin
        mreq = 1'b1;
        mwe = 1'b1;
        maddr = row_set;
        mwdata = meta_wr;  // PLRU touch of way_q
        r_data_d = drdata;
        state_d = S_RSP;
      end

      S_WREAD: begin
        mreq = 1'b1;
        maddr = wset_q;
        state_d = S_WMETA;
      end

      S_WMETA: begin
        meta_d = mrdata;
        state_d = S_WSCAN;
      end

      S_WSCAN: begin
        if (dscan_vec != '0) begin
          way_d = dscan_way;
          wb_tag_d = dscan_tag_q;
          wb_mask_d = dscan_dirty_q;
          for (int unsigned w = 0; w < MaxWays; w++) begin
            if (WayW'(w) == dscan_way) meta_d[PlruW + w * LineW + Sectors +: Sectors] = '0;  // scanned
          end
          state_d = S_EVRD;
        end else begin
          mreq = 1'b1;
          mwe = 1'b1;
          maddr = wset_q;
          mwdata = meta_cleared;
          wset_d = wset_q + 1'b1;
          state_d = (wset_q == SetW'(Sets - 1)) ? S_RSP : S_WREAD;
        end
      end

      S_RSP: begin
        if (rsp_fire) state_d = S_IDLE;
      end

      default: state_d = S_IDLE;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= S_INIT;
      op_q       <= '0;
      row_q      <= '0;
      data_q     <= '0;
      dirty_q    <= 1'b0;
      l2w_q      <= L2wW'(ResetL2Ways);
      meta_q     <= '0;
      way_q      <= '0;
      wb_tag_q   <= '0;
      wb_mask_q  <= '0;
      wb_sec_q   <= '0;
      wset_q     <= '0;
      wfrom_q    <= '0;
      wto_q      <= '0;
      r_hit_q    <= 1'b0;
      r_lhit_q   <= 1'b0;
      r_stored_q <= 1'b0;
      r_evict_q  <= 1'b0;
      r_err_q    <= 1'b0;
      r_way_q    <= '0;
      r_data_q   <= '0;
      r_nwb_q    <= '0;
    end else begin
      state_q    <= state_d;
      op_q       <= op_d;
      row_q      <= row_d;
      data_q     <= data_d;
      dirty_q    <= dirty_d;
      l2w_q      <= l2w_d;
      meta_q     <= meta_d;
      way_q      <= way_d;
      wb_tag_q   <= wb_tag_d;
      wb_mask_q  <= wb_mask_d;
      wb_sec_q   <= wb_sec_d;
      wset_q     <= wset_d;
      wfrom_q    <= wfrom_d;
      wto_q      <= wto_d;
      r_hit_q    <= r_hit_d;
      r_lhit_q   <= r_lhit_d;
      r_stored_q <= r_stored_d;
      r_evict_q  <= r_evict_d;
      r_err_q    <= r_err_d;
      r_way_q    <= r_way_d;
      r_data_q   <= r_data_d;
      r_nwb_q    <= r_nwb_d;
    end
  end

  assign rsp_hit_o      = r_hit_q;
  assign rsp_line_hit_o = r_lhit_q;
  assign rsp_stored_o   = r_stored_q;
  assign rsp_evicted_o  = r_evict_q;
  assign rsp_err_o      = r_err_q;
  assign rsp_way_o      = r_way_q;
  assign rsp_data_o     = r_data_q;
  assign rsp_nwb_o      = r_nwb_q;
  assign l2_ways_o      = l2w_q;

`ifndef SYNTHESIS
  // Invariants (run with verilator --assert).
  // The paper configuration of ctc.toml must give the derived widths it lists.
  initial begin
    if (Sets == ctc_pkg::SETS && RowBits == ctc_pkg::ROW_BITS) begin
      assert (SetW == ctc_pkg::SET_BITS && TagW == ctc_pkg::TAG_BITS)
        else $fatal(1, "ctc: widths disagree with ctc_pkg");
    end
  end

  always @(posedge clk_i) begin
    if (state_q != S_INIT) begin
      assert (32'(l2w_q) <= ctc_pkg::MAX_L2_WAYS) else $error("ctc: l2_ways %0d out of range", l2w_q);
      if (state_q == S_META) begin
        assert ($onehot0(hit_vec)) else $error("ctc: tag present in two ways of set %0d", row_set);
      end
      if (state_q == S_WRITE || state_q == S_LDATA || state_q == S_EVRD) begin
        assert ((WayW+1)'(way_q) < n_en || walk_op) else $error("ctc: way %0d not enabled", way_q);
      end
      if (state_q == S_WRITE) begin : a_dirty_subset
        logic [2*Sectors-1:0] nl;  // {dirty, valid}
        nl = {cur_line_q[Sectors +: Sectors], cur_line_q[Sectors-1:0]};
        if (op_q != OpInval) nl = nl | {(op_q == OpUpdate && dirty_q) ? sec_bit : '0, sec_bit};
        assert ((nl[Sectors +: Sectors] & ~nl[Sectors-1:0]) == '0)
          else $error("ctc: dirty sector not valid");
      end
      if (state_q == S_EVRD) begin
        assert (wb_mask_q != '0) else $error("ctc: write-back without dirty sector");
      end
    end
  end
`endif
endmodule
