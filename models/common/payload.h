// Strata transaction payloads: the tlm_generic_payload everyone uses, the GPU
// metadata extension every payload carries, and the pool that recycles them.
//
// Conventions (all modules):
//  * Address = line-aligned physical address (128 B lines). `sector_mask` says
//    which 32 B sectors the request is about; `byte_mask` which bytes of the line
//    a write carries (partial sector writes are possible for stores).
//  * Data pointer = the payload's own buffer, indexed by offset from the
//    address: 128 B (one line) by default; transfers of 256 B .. 64 KiB (DRAM-
//    cache lines, migration segments, pages, migration chunks) take a larger
//    size class (PayloadPool::alloc(d, bytes)); byte_mask and sector_mask
//    describe the first 128 B only (larger transfers move whole buffers).
//    Below the memory side, a request whose data length is not 128 B or whose
//    address is not 128 B-aligned is a span of whole bursts (MemCtrl).
//  * Payloads come from PayloadPool (tlm_mm_interface); no `new` per request.
//    acquire()/release() reference counting as in TLM-2.0 base protocol.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>
#include <tlm>

#include "common/gpu_ext.h"

namespace strata {

constexpr unsigned kLineBytes = 128;
constexpr unsigned kSectorBytes = 32;
constexpr unsigned kSectorsPerLine = kLineBytes / kSectorBytes;
constexpr unsigned kMaxTransferBytes = 65536;  // largest payload (a bulk transfer: 64 KiB)

enum class ReqClass : uint8_t {
  Demand = 0,     // SM load/store (through L1 / L2)
  Writeback = 1,  // dirty eviction toward memory
  Fill = 2,       // cache fill read issued by a cache on a miss
  Migration = 3,  // data movement between memories (hybrid manager)
  Probe = 4,      // tag/metadata access (DRAM cache AMIL, CTC)
  Offload = 5,    // NDP offload packet
  PageIn = 6,     // host memory -> device page move (Unified Memory)
  PageOut = 7,    // device -> host memory page move
};
// Numbering shared with the C memory-side policies (models/ref/memside/memside.h
// enum memside_class).

// Memory technology that serves a line: the memory side tells (it sets
// GpuExt::mem_type on every response; the L2 passes its line's kind up).
// Numbering is shared with the C side (models/ref/base/addrmap.h AMAP_MEM_*).
enum class MemType : uint8_t { DRAM = 0, NVM = 1, SCM = 2, Host = 3 };

// GPU metadata carried by every payload (DRAMSys-style extension).
struct GpuExt : tlm::tlm_extension<GpuExt> {
  uint32_t sm_id = 0;        // issuing SM (or ~0u for non-SM initiators)
  uint32_t warp_id = 0;      // warp slot within the SM
  uint32_t tag = 0;          // initiator-private id (MSHR index, queue slot...)
  uint8_t ea_count = 0;      // effective addresses (active threads) that formed this request, 1..32
  uint8_t sector_mask = 0;   // bit i = sector i of the line
  ReqClass cls = ReqClass::Demand;
  MemType mem_type = MemType::DRAM;
  uint32_t l2_bank = 0;      // global L2 bank index (static map: the GPU side's routing)
  // Device feedback on the response (set by the device controller, MemCtrl):
  // service time from the request's arrival at the controller to its
  // completion, ps (saturates at UINT32_MAX), and the row-buffer outcome of
  // its column accesses (mc_row of models/ref/mem/mc.h: 0 hit, 1 miss, 2 conflict;
  // the worst of them).
  uint32_t dev_latency_ps = 0;
  // Below the memory side the payload's address is a device address
  // (models/ref/base/devaddr.h); the memory side keeps the physical line address
  // here and puts it back on the response.
  uint64_t phys_addr = 0;
  // Response route: each hop that fans in several initiators pushes the
  // port a request came in on and pops it for the response (instead of
  // overwriting sm_id, the issuing SM's id, which stays as metadata). `who`
  // names the hop (its module's name()) for the error: a push onto a full
  // stack (kMaxHops), a port above 65535 or a pop of an empty stack is a
  // model bug and ends the run with SC_REPORT_FATAL, never a wrap.
  // 8 ports: the deepest route Strata builds is an SM's request through the
  // crossbar (1), a GPU-to-stack link (2), the stack's memory side (3), a
  // stack-to-stack link (4), that stack's memory side (5) and a link to host
  // memory (6) (TOM's NDP offload over stacks, tom-ndp-offload-and-mapping.txt
  // Sec. 3.1, plus the HMS host path); a fill from an L2 starts its own route
  // (link, memory side, link: 3). 8 leaves two spare and keeps the route in
  // 16 bytes.
  static constexpr unsigned kMaxHops = 8;
  uint16_t hop[kMaxHops] = {};
  uint8_t nhops = 0;
  uint8_t row = 0;           // device feedback: mc_row (see dev_latency_ps)
  // A memory-side policy's own transfer (set by the memory side): the device
  // controllers count it by its class; the L2's accesses count as demand
  // (reads) and write-back (writes) whatever the L2 called them.
  bool own = false;
  void push_hop(unsigned port, const char* who) {
    if (__builtin_expect(nhops >= kMaxHops || port > 0xffffu, 0)) hop_fatal(who, port, true);
    hop[nhops++] = static_cast<uint16_t>(port);
  }
  unsigned pop_hop(const char* who) {
    if (__builtin_expect(nhops == 0, 0)) hop_fatal(who, 0, false);
    return hop[--nhops];
  }
  [[noreturn]] __attribute__((cold, noinline)) void hop_fatal(const char* who, unsigned port, bool push) const {
    std::string m;
    if (!push)
      m = "response route: pop of an empty hop stack (a response that no hop routed; SM " + std::to_string(sm_id) + ")";
    else if (port > 0xffffu)
      m = "response route: port " + std::to_string(port) + " does not fit a hop entry (at most 65535)";
    else {
      m = "response route: hop stack full (" + std::to_string(kMaxHops) + " hops:";
      for (unsigned i = 0; i < kMaxHops; ++i) m += (i ? ", " : " ") + std::to_string(hop[i]);
      m += "), push of port " + std::to_string(port) + " (SM " + std::to_string(sm_id) +
           "; a topology deeper than GpuExt::kMaxHops)";
    }
    SC_REPORT_FATAL(who, m.c_str());
    std::abort();
  }
  uint64_t byte_mask[2] = {0, 0};  // written bytes of the line (writes only)
  uint64_t issue_ps = 0;     // time the request entered the memory system (ps), for latency stats
  // An atomic request (common/gpu_ext.h): the lanes, operation and operands
  // the L2 bank performs on the line; nullptr for every other request.
  AtomicReq* atomic = nullptr;

  tlm::tlm_extension_base* clone() const override { return new GpuExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const GpuExt&>(o); }

  // The payload's GpuExt (every pooled payload carries one: PayloadPool
  // attaches it); defined after PayloadPool.
  static GpuExt& get(tlm::tlm_generic_payload& gp);
  // The same, or nullptr for a payload without one.
  static GpuExt* find(tlm::tlm_generic_payload& gp);
  void set_bytes(unsigned off, unsigned len) {
    for (unsigned b = off; b < off + len && b < kLineBytes; ++b) byte_mask[b >> 6] |= 1ull << (b & 63);
  }
  bool byte_set(unsigned b) const { return (byte_mask[b >> 6] >> (b & 63)) & 1u; }
  // true if every byte of sector s is written
  bool sector_full(unsigned s) const {
    const uint64_t m = byte_mask[s >> 1] >> ((s & 1) * 32);
    return (m & 0xffffffffull) == 0xffffffffull;
  }
};

// Pool of payloads with an attached GpuExt and a 128 B data buffer.
class PayloadPool : public tlm::tlm_mm_interface {
 public:
  PayloadPool() = default;
  ~PayloadPool() override {
    for (Item* it : all_) delete it;
  }
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // What the data buffer holds after alloc().
  enum class Data : uint8_t {
    Zero,   // all 128 bytes zero
    Stale,  // left from the payload's previous use (no memset): only for callers
            // that write every byte anyone reads, e.g. read requests (the
            // responder writes the requested sectors before the initiator reads
            // them) and writes that fill exactly the bytes named in
            // GpuExt::byte_mask (the L2 and the memory controller read only
            // those bytes of a write).
  };
  // A fresh payload, reference count 1 (acquired). Guaranteed on return:
  //  * address 0, data pointer = the payload's own 128 B buffer, data length
  //    and streaming width 128, no byte enables, DMI not allowed, response
  //    status TLM_INCOMPLETE_RESPONSE; the command is NOT reset (callers set it);
  //  * the attached GpuExt reset to its defaults (all fields zero / DRAM /
  //    Demand, byte_mask empty) — the L2's fills and writebacks rely on this;
  //  * the data buffer as `d` says (default: zeroed).
  // Users: Sm::new_request (Data::Stale: sets address, command and every
  // GpuExt field it or the memory side reads; stores copy exactly their
  // byte_mask bytes), L2Bank::issue_fill / writeback (default; a writeback
  // copies the whole line), module tests (default).
  tlm::tlm_generic_payload* alloc(Data d = Data::Zero) {
    Item* it;
    if (free_[0].empty()) {
      it = new Item(this, 0);  // pool growth only; steady state never allocates
      all_.push_back(it);
    } else {
      it = free_[0].back();
      free_[0].pop_back();
    }
    return reset(it, d);
  }
  // The same with a data buffer of `bytes` (a power of two from 128 to
  // kMaxTransferBytes; data length and streaming width = bytes). One free
  // list per size class, so the steady state allocates nothing either.
  tlm::tlm_generic_payload* alloc(Data d, unsigned bytes) {
    const unsigned c = size_class(bytes);
    if (c == 0) return alloc(d);
    Item* it;
    if (free_[c].empty()) {
      it = new Item(this, c);
      all_.push_back(it);
    } else {
      it = free_[c].back();
      free_[c].pop_back();
    }
    return reset(it, d);
  }
  // Size class of a transfer: 0 = 128 B, k = 128 << k bytes. Throws
  // std::invalid_argument for other sizes (a model bug).
  static unsigned size_class(unsigned bytes) {
    for (unsigned c = 0; c < kClasses; ++c)
      if (bytes == kLineBytes << c) return c;
    throw std::invalid_argument("PayloadPool: transfer of " + std::to_string(bytes) +
                                " bytes (expected a power of two from 128 to " + std::to_string(kMaxTransferBytes) + ")");
  }
  // The size class holding `bytes` (1 .. kMaxTransferBytes): the smallest power of two from 128 up.
  static unsigned fit(unsigned bytes) {
    unsigned b = kLineBytes;
    while (b < bytes) b <<= 1;
    return b;
  }
  void free(tlm::tlm_generic_payload* gp) override {
    Item* it = static_cast<Item*>(gp);
    free_[it->cls].push_back(it);
    --live_;
  }
  size_t live() const { return live_; }
  size_t capacity() const { return all_.size(); }
  // The GpuExt of a payload from any PayloadPool (it lives in the pool item,
  // beside the payload), or nullptr for other payloads. Found from the
  // payload's dynamic type, i.e. its vtable pointer on the payload's first
  // cache line, instead of the payload's extension array, a separate heap
  // block whose load missed the data cache on the request path.
  static GpuExt* ext_of(tlm::tlm_generic_payload& gp) {
    return typeid(gp) == typeid(Item) ? &static_cast<Item&>(gp).ext : nullptr;
  }

 private:
  static constexpr unsigned kClasses = 10;  // 128 B .. 64 KiB
  // `ext` is the GpuExt registered in the payload's extension array (the
  // constructor does it; nothing replaces it), so ext_of() and get_extension()
  // find the same object. A line payload's data sit inline (`line`); larger
  // classes own a buffer allocated once with the item.
  struct Item final : tlm::tlm_generic_payload {
    Item(PayloadPool* p, unsigned c)
        : tlm::tlm_generic_payload(p), cls(c), bytes(kLineBytes << c),
          big(c ? new unsigned char[kLineBytes << c] : nullptr), data(c ? big : line) {
      set_extension(&ext);
    }
    ~Item() override {
      clear_extension(&ext);
      delete[] big;
    }
    GpuExt ext;
    const unsigned cls, bytes;
    unsigned char* const big;
    unsigned char* const data;
    alignas(64) unsigned char line[kLineBytes];
  };
  tlm::tlm_generic_payload* reset(Item* it, Data d) {
    tlm::tlm_generic_payload& gp = *it;
    gp.set_address(0);
    gp.set_data_ptr(it->data);
    gp.set_data_length(it->bytes);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_byte_enable_length(0);
    gp.set_streaming_width(it->bytes);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    it->ext = GpuExt();
    if (d == Data::Zero) {
      if (it->cls == 0) std::memset(it->data, 0, kLineBytes);  // a constant size: inline stores, no call
      else std::memset(it->data, 0, it->bytes);
    }
    gp.acquire();
    ++live_;
    return &gp;
  }
  std::vector<Item*> free_[kClasses];
  std::vector<Item*> all_;
  size_t live_ = 0;
};

inline GpuExt* GpuExt::find(tlm::tlm_generic_payload& gp) {
  if (GpuExt* e = PayloadPool::ext_of(gp)) return e;
  GpuExt* e = nullptr;
  gp.get_extension(e);
  return e;
}

inline GpuExt& GpuExt::get(tlm::tlm_generic_payload& gp) { return *find(gp); }

}  // namespace strata
