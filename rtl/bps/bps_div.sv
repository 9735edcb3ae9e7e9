// bps_div: sequential restoring divider (unsigned, truncating) for the SCM penalty score of
// the bypass scorer (HMS Eq. 1: pen = floor((num << PEN_FRAC) / ncols), see models/ref/blocks/bps.h).
//
// Parameters
//   DividendW      dividend / quotient width (>= 2)
//   DivisorW       divisor width (>= 1); the divisor must be non-zero (asserted)
//   StepsPerCycle  radix-2 steps per clock, 1..DividendW (area/latency trade-off)
// Protocol: start_i loads a new division (ignored while busy_o). busy_o stays high for
//   ceil(DividendW / StepsPerCycle) cycles; once it falls, quotient_o/remainder_o hold the
//   exact result until the next start. Throughput: one division per that many cycles.
module bps_div #(
  parameter int unsigned DividendW     = 20,
  parameter int unsigned DivisorW      = 7,
  parameter int unsigned StepsPerCycle = 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 start_i,
  input  logic [DividendW-1:0] dividend_i,
  input  logic [DivisorW-1:0]  divisor_i,
  output logic                 busy_o,
  output logic [DividendW-1:0] quotient_o,
  output logic [DivisorW-1:0]  remainder_o
);
  localparam int unsigned CntW = $clog2(DividendW + 1);

  // quo_q shifts the dividend out at the MSB while quotient bits enter at the LSB.
  logic [DividendW-1:0] quo_q, quo_d;
  logic [DivisorW-1:0]  rem_q, rem_d;   // remainder < divisor always fits DivisorW bits
  logic [DivisorW-1:0]  dsr_q, dsr_d;
  logic [CntW-1:0]      cnt_q, cnt_d;   // radix-2 steps still to do
  logic [DivisorW:0]    rem_sh;         // 2 * rem + next dividend bit < 2 * divisor

  always_comb begin
    quo_d  = quo_q;
    rem_d  = rem_q;
    dsr_d  = dsr_q;
    cnt_d  = cnt_q;
    rem_sh = '0;
    if (cnt_q == '0) begin
      if (start_i) begin
        quo_d = dividend_i;
        rem_d = '0;
        dsr_d = divisor_i;
        cnt_d = CntW'(DividendW);
      end
    end else begin
      for (int unsigned i = 0; i < StepsPerCycle; i++) begin
        if (cnt_d != '0) begin
          rem_sh = {rem_d, quo_d[DividendW-1]};
          quo_d  = {quo_d[DividendW-2:0], 1'b0};
          if (rem_sh >= {1'b0, dsr_q}) begin
            rem_sh   = rem_sh - {1'b0, dsr_q};
            quo_d[0] = 1'b1;
          end
          rem_d = rem_sh[DivisorW-1:0];
          cnt_d = cnt_d - 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      quo_q <= '0;
      rem_q <= '0;
      dsr_q <= '0;
      cnt_q <= '0;
    end else begin
      quo_q <= quo_d;
      rem_q <= rem_d;
      dsr_q <= dsr_d;
      cnt_q <= cnt_d;
    end
  end

  assign busy_o      = (cnt_q != '0);
  assign quotient_o  = quo_q;
  assign remainder_o = rem_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && start_i && !busy_o) begin
      assert (divisor_i != '0) else $error("bps_div: division by zero");
    end
    if (rst_ni && busy_o) begin
      assert (rem_q < dsr_q || dsr_q == '0) else $error("bps_div: remainder not below divisor");
    end
  end
  initial begin
    assert (StepsPerCycle >= 1 && StepsPerCycle <= DividendW && DividendW >= 2)
      else $error("bps_div: bad parameters");
  end
`endif
endmodule
