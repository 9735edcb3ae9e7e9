// ctc_small_top: the tag cache at Sets = ctc_pkg::TB_SMALL_SETS for tb_ctc_small
// (testbenches/ctc). Only sets differ from the paper configuration: every set
// sees constant conflicts, and the Sets parameterisation is verified against the
// C model configured alike.
module ctc_small_top #(
  localparam int unsigned Sets = ctc_pkg::TB_SMALL_SETS,
  localparam int unsigned NwbW = $clog2(Sets * ctc_pkg::MAX_WAYS * ctc_pkg::SECTORS + 1)
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,
  input  logic                              req_valid_i,
  output logic                              req_ready_o,
  input  logic [ctc_pkg::OP_BITS-1:0]       req_op_i,
  input  logic [ctc_pkg::ROW_BITS-1:0]      req_row_i,
  input  logic [ctc_pkg::SECTOR_BITS-1:0]   req_data_i,
  input  logic                              req_dirty_i,
  input  logic [ctc_pkg::L2W_BITS-1:0]      req_l2_ways_i,
  output logic                              wb_valid_o,
  input  logic                              wb_ready_i,
  output logic [ctc_pkg::ROW_BITS-1:0]      wb_row_o,
  output logic [ctc_pkg::SECTOR_BITS-1:0]   wb_data_o,
  output logic                              rsp_valid_o,
  input  logic                              rsp_ready_i,
  output logic                              rsp_hit_o,
  output logic                              rsp_line_hit_o,
  output logic                              rsp_stored_o,
  output logic                              rsp_evicted_o,
  output logic                              rsp_err_o,
  output logic [ctc_pkg::WAY_BITS-1:0]      rsp_way_o,
  output logic [ctc_pkg::SECTOR_BITS-1:0]   rsp_data_o,
  output logic [NwbW-1:0]                   rsp_nwb_o,
  output logic [ctc_pkg::L2W_BITS-1:0]      l2_ways_o
);
  ctc #(.Sets(Sets)) u_ctc (.*);
endmodule
