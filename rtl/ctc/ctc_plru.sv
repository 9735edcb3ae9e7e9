// ctc_plru: tree pseudo-LRU of one tag-cache set (combinational).
//
// HMS paper Sec. III-D asks for pseudo-LRU replacement in the CTC. The tree has
// MaxWays leaves and MaxWays-1 node bits in heap order (node n has children 2n+1
// and 2n+2; bit 0 = the victim is on the left). Only the ways [0, n_en_i) are
// enabled (the tag-cache ways of the carved L2 ways, Fig. 10): the walk never
// enters a subtree without an enabled way. Bit-exact with plru_walk/plru_touch
// in models/ref/blocks/ctc.c.
//
// Parameters: MaxWays  leaves, a power of two >= 2 (ctc_pkg::MAX_WAYS)
// Purely combinational (no clock, no latency).
module ctc_plru #(
  parameter int unsigned MaxWays = 16,
  localparam int unsigned WayW = $clog2(MaxWays)
) (
  input  logic [MaxWays-2:0] bits_i,     // current node bits
  input  logic [WayW:0]      n_en_i,     // enabled ways, 1..MaxWays (0: victim_o = 0)
  input  logic [WayW-1:0]    touch_way_i,
  output logic [WayW-1:0]    victim_o,   // tree victim among the enabled ways
  output logic [MaxWays-2:0] touched_o   // bits_i with touch_way_i made most recent
);
  // Walk: at depth d the subtree of the current node spans 2^(WayW-d) ways
  // starting at lo; its right half holds an enabled way iff lo + half < n_en.
  always_comb begin : p_walk
    logic [WayW:0] lo;
    logic [WayW:0] half;
    int unsigned   node;
    lo   = '0;
    node = 0;
    for (int unsigned d = 0; d < WayW; d++) begin
      half = (WayW+1)'(MaxWays >> (d + 1));
      if ((lo + half < n_en_i) && bits_i[node]) begin
        node = 2 * node + 2;
        lo   = lo + half;
      end else begin
        node = 2 * node + 1;
      end
    end
    victim_o = lo[WayW-1:0];
  end

  // Touch: every node on the path of touch_way_i points away from it.
  always_comb begin : p_touch
    int unsigned node;
    touched_o = bits_i;
    node      = 0;
    for (int unsigned d = 0; d < WayW; d++) begin
      if (touch_way_i[WayW-1-d]) begin
        touched_o[node] = 1'b0;
        node = 2 * node + 2;
      end else begin
        touched_o[node] = 1'b1;
        node = 2 * node + 1;
      end
    end
  end
endmodule
