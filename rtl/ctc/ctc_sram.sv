// ctc_sram: single-port synchronous SRAM model (one read or one write per cycle).
//
// Stands for the L2 data/tag array slices that the Configurable Tag Cache reuses
// (HMS paper, Sec. III-D). Behavioural: a read returns the word one cycle after
// req with we=0, and rdata_o then HOLDS that word until the next read (the
// output-latch behaviour of compiled SRAM macros). Contents are not reset; the
// user clears what must be clear (ctc.sv runs an init walk after reset).
// Synthesis flows replace this module with a macro (tools blackbox it).
//
// Parameters: Width  word width in bits (>= 1)
//             Depth  words (>= 2)
// Latency: 1 cycle read; write takes effect at the clock edge.
module ctc_sram #(
  parameter int unsigned Width = 32,
  parameter int unsigned Depth = 16,
  localparam int unsigned AddrW = $clog2(Depth)
) (
  input  logic             clk_i,
  input  logic             req_i,
  input  logic             we_i,
  input  logic [AddrW-1:0] addr_i,
  input  logic [Width-1:0] wdata_i,
  output logic [Width-1:0] rdata_o
);
  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rdata_q;

  always_ff @(posedge clk_i) begin
    if (req_i && we_i) mem_q[addr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (req_i && !we_i) rdata_q <= mem_q[addr_i];
  end

  assign rdata_o = rdata_q;

`ifndef SYNTHESIS
  always @(posedge clk_i) begin
    if (req_i) assert (32'(addr_i) < Depth) else $error("ctc_sram: address %0d out of range", addr_i);
  end
`endif
endmodule
