// flrb_ram: simple dual-port RAM (one write port, one synchronous read port)
// used for the descriptor, link and hash-way arrays of flrb.
//
// Parameters:
//   Depth  number of words, >= 2 (power of two in flrb)
//   Width  bits per word, >= 1
// Timing: rdata_o is the word at raddr_i of the previous clock edge
// (registered read, read-first: a write to the same address in the same cycle
// is not visible until the next read). Contents are not reset.
module flrb_ram #(
  parameter int unsigned Depth = 16,
  parameter int unsigned Width = 8
) (
  input  logic                     clk_i,
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  // verilator coverage_off
  logic [Width-1:0] mem [Depth];   // contents: no toggle coverage (RAM macro)
  // verilator coverage_on
  logic [Width-1:0] rdata_q;

  // RAM inference template (write port + registered read), as OpenTitan prim_ram.
  always_ff @(posedge clk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
    rdata_q <= mem[raddr_i];
  end

  assign rdata_o = rdata_q;
endmodule
