/* Unit tests of the link timing reference (models/ref/mem/link.c): packets and header/flit overhead,
 * serialisation time = wire bytes / bandwidth (rounded up to the picosecond), back-to-back transfers
 * queue on the wire, latency, the busy monitor over its sliding window, traffic and idle energy,
 * lanes x Gb/s, rejected parameters, and the presets. Every expected number is worked out by hand
 * in the comment beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mem/hostmem.h"
#include "mem/link.h"

/* 10 GB/s = 0.1 ns per byte, 20 ns latency, 16 B header, 16 B flits, 64 B packets, 2 pJ/bit on the
 * wire, 1.5 pJ/bit idle, 1.6 us window (16 slots of 100 ns). */
static link_cfg cfg10(void) {
  link_cfg c;
  memset(&c, 0, sizeof c);
  c.bytes_per_s = 10000000000ull;
  c.latency_ps = 20000;
  c.header_bytes = 16;
  c.flit_bytes = 16;
  c.max_payload_bytes = 64;
  c.traffic_pj_per_bit = 2.0;
  c.idle_pj_per_bit = 1.5;
  c.window_ps = 1600000;
  return c;
}

static void close_to(double got, double want, double tol) {
  if (!(got > want - tol && got < want + tol)) fail_msg("got %.12g, want %.12g (+-%g)", got, want, tol);
}

static void packets_and_overhead(void **state) {
  (void)state;
  link_chan l;
  link_cfg c = cfg10();
  assert_int_equal(link_init(&l, &c, NULL, 0), 0);
  /* no data: one header-only packet, 16 B */
  assert_int_equal(link_packets(&l, 0), 1);
  assert_int_equal(link_wire_bytes(&l, 0), 16);
  /* 8 B: 16 + 8 = 24 -> 2 flits = 32 B */
  assert_int_equal(link_packets(&l, 8), 1);
  assert_int_equal(link_wire_bytes(&l, 8), 32);
  /* 64 B: one packet, 80 B (5 flits) */
  assert_int_equal(link_packets(&l, 64), 1);
  assert_int_equal(link_wire_bytes(&l, 64), 80);
  /* 128 B: two full packets, 2 x 80 */
  assert_int_equal(link_packets(&l, 128), 2);
  assert_int_equal(link_wire_bytes(&l, 128), 160);
  /* 100 B: 64 + 36 -> 80 + (16 + 36 = 52 -> 64) = 144 */
  assert_int_equal(link_packets(&l, 100), 2);
  assert_int_equal(link_wire_bytes(&l, 100), 144);
  /* 4 KiB: 64 packets of 80 B */
  assert_int_equal(link_wire_bytes(&l, 4096), 64 * 80);
  /* byte granularity and no packet limit */
  c.flit_bytes = 0;
  c.max_payload_bytes = 0;
  assert_int_equal(link_init(&l, &c, NULL, 0), 0);
  assert_int_equal(link_packets(&l, 4096), 1);
  assert_int_equal(link_wire_bytes(&l, 4096), 4112);
  assert_int_equal(link_wire_bytes(&l, 8), 24);
  /* no header either: wire bytes = data bytes */
  c.header_bytes = 0;
  assert_int_equal(link_init(&l, &c, NULL, 0), 0);
  assert_int_equal(link_wire_bytes(&l, 128), 128);
}

static void serialisation_and_latency(void **state) {
  (void)state;
  link_chan l;
  link_cfg c = cfg10();
  assert_int_equal(link_init(&l, &c, NULL, 0), 0);
  /* 80 B at 10 GB/s = 8 ns */
  assert_int_equal(link_ser_ps(&l, 80), 8000);
  /* 1 B = 100 ps exactly; 3 B at 7 GB/s = 428.57 ps -> 429 */
  assert_int_equal(link_ser_ps(&l, 1), 100);
  link_chan s;
  link_cfg c7 = c;
  c7.bytes_per_s = 7000000000ull;
  assert_int_equal(link_init(&s, &c7, NULL, 0), 0);
  assert_int_equal(link_ser_ps(&s, 3), 429);
  /* first transfer at 1 us: 64 B -> 80 B on the wire, 8 ns; arrives 1000 + 8 + 20 ns */
  uint64_t start = 0;
  assert_int_equal(link_send(&l, 1000000, 64, &start), 1028000);
  assert_int_equal(start, 1000000);
  /* second at the same time: waits for the wire, starts at 1008 ns, arrives 1036 ns */
  assert_int_equal(link_send(&l, 1000000, 64, &start), 1036000);
  assert_int_equal(start, 1008000);
  /* N back-to-back transfers take N x wire time: 8 more at 1 us -> the last ends at 1016 + 8 x 8 ns */
  uint64_t at = 0;
  for (int i = 0; i < 8; ++i) at = link_send(&l, 1000000, 64, &start);
  assert_int_equal(start, 1000000 + 9 * 8000);
  assert_int_equal(at, 1000000 + 10 * 8000 + 20000);
  /* later, with the wire idle again: no queueing */
  assert_int_equal(link_send(&l, 2000000, 0, &start), 2000000 + 1600 + 20000); /* 16 B header = 1.6 ns */
  assert_int_equal(start, 2000000);
  assert_int_equal(l.st.transfers, 11);
  assert_int_equal(l.st.packets, 11);
  assert_int_equal(l.st.data_bytes, 10 * 64);
  assert_int_equal(l.st.wire_bytes, 10 * 80 + 16);
  assert_int_equal(l.st.busy_ps, 10 * 8000 + 1600);
  /* back in time or too large: refused, nothing changes */
  assert_true(link_send(&l, 1999999, 64, NULL) == LINK_ERR);
  assert_true(link_send(&l, 2000000, LINK_MAX_TRANSFER_BYTES + 1, NULL) == LINK_ERR);
  assert_int_equal(l.st.transfers, 11);
}

static void busy_monitor(void **state) {
  (void)state;
  link_chan l;
  link_cfg c = cfg10(); /* window 1.6 us, slots of 100 ns */
  c.header_bytes = 0;
  c.flit_bytes = 0;
  c.max_payload_bytes = 0;
  assert_int_equal(link_init(&l, &c, NULL, 0), 0);
  assert_true(link_busy_fraction(&l, 0) == 0.0);
  /* 1000 B = 100 ns of wire at t = 0: at 50 ns half of it has passed, busy throughout */
  link_send(&l, 0, 1000, NULL);
  assert_int_equal(link_busy_ps(&l, 50000), 50000);
  close_to(link_busy_fraction(&l, 50000), 1.0, 1e-12);
  /* at 400 ns: 100 ns busy of 400 */
  close_to(link_busy_fraction(&l, 400000), 0.25, 1e-12);
  /* at 1.6 us: the window is [0, 1.6 us]: 100 / 1600 */
  close_to(link_busy_fraction(&l, 1600000), 100.0 / 1600.0, 1e-12);
  /* at 2 us: window from the boundary at 400 ns: nothing busy since */
  close_to(link_busy_fraction(&l, 2000000), 0.0, 1e-12);
  /* 4000 B (400 ns) at 2 us and 2000 B (200 ns) at 2.3 us (queued behind: 2.4 .. 2.6 us) */
  link_send(&l, 2000000, 4000, NULL);
  link_send(&l, 2300000, 2000, NULL);
  assert_int_equal(link_busy_ps(&l, 2500000), 100000 + 400000 + 100000);
  /* at 3 us: window [1.4, 3.0] us: 600 ns busy of 1600 */
  close_to(link_busy_fraction(&l, 3000000), 600.0 / 1600.0, 1e-12);
  /* at 3.65 us: the oldest boundary inside the window is 2.1 us: busy 2.1 .. 2.6 = 500 ns of 1550 */
  close_to(link_busy_fraction(&l, 3650000), 500.0 / 1550.0, 1e-12);
  /* a send long after (many windows) overwrites the history; the query still reads the window */
  link_send(&l, 50000000, 10000, NULL); /* 1 us of wire from 50 us */
  close_to(link_busy_fraction(&l, 50500000), 500.0 / 1600.0, 1e-12); /* window [48.9, 50.5] */
  close_to(link_busy_fraction(&l, 51000000), 1000.0 / 1600.0, 1e-12);
  close_to(link_busy_fraction(&l, 60000000), 0.0, 1e-12);
  /* the same from slot boundaries recorded by sends inside the window */
  link_send(&l, 60000000, 1000, NULL);   /* 60.0 .. 60.1 us */
  link_send(&l, 60450000, 1000, NULL);   /* 60.45 .. 60.55 us */
  link_send(&l, 60920000, 1000, NULL);   /* 60.92 .. 61.02 us */
  /* at 61.7 us: window from 60.1 us: 100 + 100 ns busy of 1600 */
  close_to(link_busy_fraction(&l, 61700000), 200.0 / 1600.0, 1e-12);
  /* at 61.65 us: from 60.1 us (the boundary after 60.05): 200 ns of 1550 */
  close_to(link_busy_fraction(&l, 61650000), 200.0 / 1550.0, 1e-12);
}

static void energy(void **state) {
  (void)state;
  link_chan l;
  link_cfg c = cfg10();
  assert_int_equal(link_init(&l, &c, NULL, 0), 0);
  /* idle for 1 us: 1e-6 s x 80 Gb/s = 80 000 bit times x 1.5 pJ = 120 nJ */
  close_to(link_energy_j(&l, 1000000), 120e-9, 1e-15);
  /* one 64 B transfer at 1 us: 80 B = 640 bits x 2 pJ = 1.28 nJ of traffic; its 8 ns are not idle */
  link_send(&l, 1000000, 64, NULL);
  close_to(link_traffic_energy_j(&l), 1.28e-9, 1e-18);
  /* at 2 us: idle 2000 - 8 = 1992 ns = 159 360 bit times x 1.5 pJ */
  close_to(link_idle_energy_j(&l, 2000000), 1992e-9 * 80e9 * 1.5e-12, 1e-15);
  close_to(link_energy_j(&l, 2000000), 1.28e-9 + 1992e-9 * 80e9 * 1.5e-12, 1e-15);
}

static void lanes_and_bad_parameters(void **state) {
  (void)state;
  /* PCIe 4.0 x16 at 16 Gb/s per lane: 256 Gb/s = 32 GB/s */
  assert_true(link_lanes_bytes_per_s(16, 16.0) == 32000000000ull);
  /* TOM Table 1: 64 TSVs x 1.25 Gb/s = 10 GB/s per vault */
  assert_true(link_lanes_bytes_per_s(64, 1.25) == 10000000000ull);
  assert_true(link_lanes_bytes_per_s(0, 16.0) == 0);
  assert_true(link_lanes_bytes_per_s(4, -1.0) == 0);
  link_chan l;
  char err[160];
  link_cfg c = cfg10();
  c.bytes_per_s = 999999;
  assert_int_equal(link_init(&l, &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "bandwidth"));
  c = cfg10();
  c.bytes_per_s = LINK_MAX_BYTES_PER_S + 1;
  assert_int_equal(link_init(&l, &c, err, sizeof err), -1);
  c = cfg10();
  c.window_ps = 1000; /* not a multiple of 16 ps */
  assert_int_equal(link_init(&l, &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "window"));
  c.window_ps = 0;
  assert_int_equal(link_init(&l, &c, err, sizeof err), -1);
  c = cfg10();
  c.idle_pj_per_bit = -1;
  assert_int_equal(link_init(&l, &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "energy"));
  c = cfg10();
  c.header_bytes = 5000;
  assert_int_equal(link_init(&l, &c, err, sizeof err), -1);
  /* the largest transfer at the slowest and the fastest links: no overflow in the wire time */
  c = cfg10();
  c.bytes_per_s = LINK_MIN_BYTES_PER_S;
  assert_int_equal(link_init(&l, &c, err, sizeof err), 0);
  assert_true(link_ser_ps(&l, 1ull << 40) == (1ull << 40) * 1000000ull);
  c.bytes_per_s = LINK_MAX_BYTES_PER_S;
  assert_int_equal(link_init(&l, &c, err, sizeof err), 0);
  assert_true(link_ser_ps(&l, (1ull << 40) + 3) == ((1ull << 40) + 3) / 10 + 1);
}

static void presets(void **state) {
  (void)state;
  char err[160];
  assert_true(link_preset_count() >= 5);
  for (size_t i = 0; i < link_preset_count(); ++i) {
    const link_preset *p = link_preset_at(i);
    link_chan l;
    if (link_init(&l, &p->cfg, err, sizeof err) != 0) fail_msg("%s: %s", p->name, err);
    assert_ptr_equal(link_find(p->name), p);
    assert_non_null(strstr(link_preset_names(), p->name));
  }
  assert_null(link_preset_at(link_preset_count()));
  assert_null(link_find("nope"));
  /* HMS Table I / Sec. IV-A: PCIe 12.8 GB/s, NVLink 76.8 GB/s, 8 pJ/bit; TOM Table 1 / Sec. 5.1 */
  assert_true(link_find("pcie_hms")->cfg.bytes_per_s == 12800000000ull);
  assert_true(link_find("nvlink_hms")->cfg.bytes_per_s == 76800000000ull);
  assert_true(link_find("nvlink_hms")->cfg.traffic_pj_per_bit == 8.0);
  assert_true(link_find("tom_gpu_stack")->cfg.bytes_per_s == 2 * link_find("tom_stack_stack")->cfg.bytes_per_s);
  assert_true(link_find("tom_gpu_stack")->cfg.idle_pj_per_bit == 1.5);
  /* CXL 2.0 (link.c): 2 x pcie_hms at 1/5 scale, 68 B flits of 64 B data + 4 B, 40 ns each way */
  {
    const link_preset *c = link_find("cxl_hms");
    link_chan l;
    assert_non_null(c);
    assert_int_equal(link_init(&l, &c->cfg, err, sizeof err), 0);
    assert_true(c->cfg.bytes_per_s == 2 * link_find("pcie_hms")->cfg.bytes_per_s);
    assert_true(link_find("cxl_64")->cfg.bytes_per_s == 5 * c->cfg.bytes_per_s / 2);
    assert_true(c->cfg.latency_ps == 40000 && c->cfg.traffic_pj_per_bit == 8.0);
    assert_true(link_wire_bytes(&l, 0) == 68);   /* a read request: one flit */
    assert_true(link_wire_bytes(&l, 32) == 68);  /* a sector: a whole flit */
    assert_true(link_wire_bytes(&l, 64) == 68);  /* a line: one all-data flit */
    assert_true(link_wire_bytes(&l, 128) == 136);
    assert_true(link_packets(&l, 128) == 2);
    /* 128 B: 136 B at 25.6 GB/s = 5.3125 ns of wire, then 40 ns */
    assert_true(link_send(&l, 0, 128, NULL) == 5313 + 40000);
  }
  /* host memory: HMS Table I CPU memory 46.6 GB/s, 0.135 us */
  const hostmem_preset *h = hostmem_find("hms_cpu");
  assert_non_null(h);
  assert_true(h->bytes_per_s == 46600000000ull);
  assert_true(h->latency_ps == 135000);
  assert_ptr_equal(hostmem_at(0), hostmem_find(hostmem_at(0)->name));
  assert_null(hostmem_at(hostmem_count()));
  assert_null(hostmem_find("nope"));
  assert_non_null(strstr(hostmem_names(), "hms_cpu"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(packets_and_overhead), cmocka_unit_test(serialisation_and_latency),
      cmocka_unit_test(busy_monitor),         cmocka_unit_test(energy),
      cmocka_unit_test(lanes_and_bad_parameters), cmocka_unit_test(presets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
