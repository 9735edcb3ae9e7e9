// bps_level: discretise a score into NLevels fixed-interval levels between 0 and a maximum
// (HMS Sec. III-C3, "discretized to Nlevels levels between 0 and the maximum value observed").
// level = 0 if max == 0, else the number of k in 1..NLevels-1 with val * NLevels >= k * max,
// i.e. min(NLevels-1, floor(val * NLevels / max)) without a divider (models/ref/blocks/bps.c
// bps_level). Purely combinational.
//   W        width of val_i and max_i (>= 1)
//   NLevels  number of levels (>= 2)
//   LvlW     width of level_o (>= $clog2(NLevels))
module bps_level #(
  parameter int unsigned W       = 20,
  parameter int unsigned NLevels = 4,
  parameter int unsigned LvlW    = 2
) (
  input  logic [W-1:0]    val_i,
  input  logic [W-1:0]    max_i,
  output logic [LvlW-1:0] level_o
);
  localparam int unsigned CmpW = W + $clog2(NLevels) + 1;

  logic [CmpW-1:0] scaled_val;

  always_comb begin
    scaled_val = CmpW'(val_i) * CmpW'(NLevels);
    level_o    = '0;
    if (max_i != '0) begin
      for (int unsigned k = 1; k < NLevels; k++) begin
        if (scaled_val >= CmpW'(max_i) * CmpW'(k)) begin
          level_o = level_o + 1'b1;
        end
      end
    end
  end
endmodule
