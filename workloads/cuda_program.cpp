// CudaProgram and PtxKernel (cuda_program.h; docs/cuda.md "How a program runs").
#include "cuda_program.h"

#include <cxxabi.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "common/input_error.h"

extern "C" {
#include "include/driver_types.h"
#include "runtime/strata_cuda_wire.h"
}

extern char** environ;

namespace strata {

namespace {

constexpr uint64_t kHeapBase = 64 * 1024;        // device addresses start here: 0 is never a device pointer
constexpr uint64_t kAllocAlign = 256;             // cudaMalloc's alignment
constexpr uint64_t kMaxRequest = 256ull << 20;    // one request's payload (the runtime sends <= 64 MiB pieces)
constexpr uint32_t kMaxThreadsPerCta = 1024;

// The kernel's name in the source: the demangled entry without its parameter list.
std::string source_name(const char* entry) {
  int st = 0;
  char* d = abi::__cxa_demangle(entry, nullptr, nullptr, &st);
  std::string s = st == 0 && d ? d : entry;
  std::free(d);
  const size_t p = s.find('(');
  if (p != std::string::npos) s.resize(p);
  const size_t t = s.find('<');  // a template kernel: keep the template's name
  if (t != std::string::npos) s.resize(t);
  return s;
}

template <class T>
bool take(const std::vector<unsigned char>& b, T* out) {
  if (b.size() < sizeof(T)) return false;
  std::memcpy(out, b.data(), sizeof(T));
  return true;
}

// A NUL-terminated name after the fixed part, at most STRATA_WIRE_MAX_NAME bytes.
bool name_after(const std::vector<unsigned char>& b, size_t fixed, std::string* out) {
  if (b.size() <= fixed || b.size() - fixed > STRATA_WIRE_MAX_NAME || b.back() != 0) return false;
  out->assign(reinterpret_cast<const char*>(b.data() + fixed));
  return out->size() + 1 == b.size() - fixed;
}

}  // namespace

// ---------------------------------------------------------------- CudaProgram

CudaProgram::CudaProgram(std::string path, std::vector<std::string> args, CudaDevice dev)
    : Program(path.substr(path.find_last_of('/') + 1)), path_(std::move(path)), args_(std::move(args)),
      dev_(std::move(dev)) {
  heap_top_ = kHeapBase;
}

CudaProgram::~CudaProgram() {
  current_.reset();
  if (fd_ >= 0) close(fd_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int st;
    waitpid(pid_, &st, 0);
  }
  for (Module& m : modules_) ptx_free(m.m);
}

void CudaProgram::init_data() { start(); }

// The program with one end of a socket pair as descriptor 3 (STRATA_CUDA_FD=3);
// its standard streams are strata's.
void CudaProgram::start() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw ConfigError(path_ + ": cannot start the program (socketpair: " + std::strerror(errno) + ")");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 3);  // dup2 clears close-on-exec
  if (stdout_to_stderr_) posix_spawn_file_actions_adddup2(&fa, 2, 1);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, STRATA_WIRE_FD_ENV "=", sizeof(STRATA_WIRE_FD_ENV)) != 0) env_s.push_back(*e);
  env_s.push_back(STRATA_WIRE_FD_ENV "=3");
  std::vector<char*> envp, argv;
  for (auto& e : env_s) envp.push_back(&e[0]);
  envp.push_back(nullptr);
  argv.push_back(&path_[0]);
  for (auto& a : args_) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  const int rc = posix_spawn(&pid_, path_.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(sv[1]);
  if (rc != 0) {
    close(sv[0]);
    pid_ = -1;
    throw ConfigError(path_ + ": cannot start the program (" + std::strerror(rc) + ")");
  }
  fd_ = sv[0];
}

void CudaProgram::finish() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (pid_ > 0) {
    if (failed()) kill(pid_, SIGKILL);
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    exit_status_ = failed() ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    pid_ = -1;
  }
}

void CudaProgram::fail(const std::string& why) {
  if (error_.empty()) error_ = why;
}

void CudaProgram::device_print(const char* text, size_t len) {
  device_out_.append(text, len);
  if (device_out_.size() >= (64u << 10)) flush_device_print();  // the program waits for the launch
}

// The program's standard output is strata's (or strata's standard error under --describe); the
// runtime flushed the program's own buffered output before the launch, so the order is kept.
void CudaProgram::flush_device_print() {
  const int fd = stdout_to_stderr_ ? 2 : 1;
  const char* p = device_out_.data();
  size_t n = device_out_.size();
  while (n) {
    const ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;  // a closed output: the text is lost, as the program's own would be
    p += k;
    n -= static_cast<size_t>(k);
  }
  device_out_.clear();
}

bool CudaProgram::verify(bstore* golden, std::string* why) const {
  (void)golden;
  if (exit_status_ == 0) return true;
  *why = exit_status_ < 0 ? "the program did not finish" : "the program exited with status " + std::to_string(exit_status_);
  return false;
}

bool CudaProgram::recv_exact(void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n) {
    const ssize_t k = recv(fd_, c, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

void CudaProgram::send_exact(const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t k = send(fd_, c, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;  // the program is gone: its exit is seen at the next receive
    c += k;
    n -= static_cast<size_t>(k);
  }
}

void CudaProgram::reply(int status, const void* p, size_t n, const std::string& msg) {
  strata_wire_rep r{status, 0, status ? msg.size() : n};
  send_exact(&r, sizeof r);
  if (status) send_exact(msg.data(), msg.size());
  else if (n) send_exact(p, n);
}

uint64_t CudaProgram::alloc(uint64_t bytes, uint64_t align, const char* what) {
  const unsigned index = static_cast<unsigned>(arrays().size());
  uint64_t at = 0;
  if (placer_.place) {  // a placement engine's address (platform/placement.h); it never overlaps a live one
    at = placer_.place(index, bytes, align);
    if (!at) return 0;
    auto next = allocs_.lower_bound(at);
    const bool overlaps = (next != allocs_.end() && next->first < at + bytes) ||
                          (next != allocs_.begin() && std::prev(next)->first + std::prev(next)->second > at);
    if (at % align || overlaps) {
      fail(path_ + ": allocation " + std::to_string(index) + " of " + std::to_string(bytes) + " bytes placed at " +
           std::to_string(at) + ", which is misaligned or overlaps a live allocation (placement engine defect)");
      return 0;
    }
  } else {  // first fit between live allocations, else at the top
    at = kHeapBase;
    for (const auto& a : allocs_) {
      at = (at + align - 1) / align * align;
      if (at + bytes <= a.first) break;
      at = a.first + a.second;
    }
    at = (at + align - 1) / align * align;
    if (at + bytes > dev_.mem_bytes || at + bytes < at) return 0;
  }
  allocs_[at] = bytes;
  alloc_index_[at] = index;
  heap_top_ = std::max(heap_top_, at + bytes);
  add_allocation(what ? std::string(what) : "alloc" + std::to_string(arrays().size()), at, bytes);
  return at;
}

uint64_t CudaProgram::local_region(uint64_t bytes) {
  if (bytes <= local_bytes_) return local_base_;
  if (local_base_) release(local_base_);
  local_base_ = alloc(bytes, 4096, "local");
  local_bytes_ = local_base_ ? bytes : 0;
  return local_base_;
}

bool CudaProgram::release(uint64_t addr) {
  if (allocs_.erase(addr) != 1) return false;
  auto it = alloc_index_.find(addr);
  if (placer_.release) placer_.release(it->second);
  alloc_index_.erase(it);
  return true;
}

bool CudaProgram::set_alloc_placer(const AllocPlacer& p) {
  placer_ = p;
  return true;
}

bool CudaProgram::valid_range(uint64_t addr, uint64_t n) const {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin()) return false;
  --it;
  return addr >= it->first && n <= it->second && addr - it->first <= it->second - n;
}

void CudaProgram::write_mem(uint64_t addr, const void* src, size_t n) {
  if (bstore_write(golden_, addr, src, n) != 0) throw std::bad_alloc();
  if (hooks_.write_device) hooks_.write_device(addr, n);
}

Kernel* CudaProgram::next_kernel() {
  if (awaiting_launch_reply_) {  // the previous launch has finished
    awaiting_launch_reply_ = false;
    flush_device_print();
    if (!failed()) reply(0);
  }
  current_.reset();
  if (failed() || fd_ < 0) {
    finish();
    return nullptr;
  }
  if (!serve_until_launch()) {
    finish();
    return nullptr;
  }
  ++launches_;
  return current_.get();
}

// Serves requests until a launch (true) or the program's end or a bad request
// (false). A request that stops the run is not answered: the program is
// killed, and strata alone reports the error (one line).
bool CudaProgram::serve_until_launch() {
  std::vector<unsigned char> body;
  for (;;) {
    strata_wire_req h;
    if (!recv_exact(&h, sizeof h)) return false;  // the program has exited
    if (h.len > kMaxRequest) {
      fail(path_ + ": a request of " + std::to_string(h.len) + " bytes (at most " + std::to_string(kMaxRequest) +
           "): not Strata's CUDA runtime, or a different version of it");
      return false;
    }
    body.resize(h.len);
    if (h.len && !recv_exact(body.data(), h.len)) return false;
    switch (h.op) {
      case STRATA_WIRE_HELLO: {
        strata_wire_hello v{};
        if (!take(body, &v) || v.version != STRATA_WIRE_VERSION) {
          fail(path_ + ": built against another version of Strata's CUDA runtime (rebuild it with strata cuda build)");
          return false;
        }
        reply(0);
        break;
      }
      case STRATA_WIRE_MODULE:
        if (!on_module(body)) return false;
        break;
      case STRATA_WIRE_FUNCTION:
        if (!on_function(body)) return false;
        break;
      case STRATA_WIRE_VAR:
        if (!on_var(body)) return false;
        break;
      case STRATA_WIRE_MALLOC: {
        strata_wire_addr a{};
        if (!take(body, &a)) return false;
        const uint64_t at = a.addr ? alloc(a.addr, kAllocAlign) : 0;
        if (!at) reply(cudaErrorMemoryAllocation, nullptr, 0, "out of simulated device memory");
        else {
          strata_wire_addr r{at};
          reply(0, &r, sizeof r);
        }
        break;
      }
      case STRATA_WIRE_FREE: {
        strata_wire_addr a{};
        if (!take(body, &a)) return false;
        if (release(a.addr)) reply(0);
        else reply(cudaErrorInvalidDevicePointer, nullptr, 0, "not an allocation");
        break;
      }
      case STRATA_WIRE_WRITE: {
        strata_wire_addr a{};
        if (!take(body, &a)) return false;
        const size_t n = body.size() - sizeof a;
        if (!valid_range(a.addr, n)) {
          reply(cudaErrorInvalidValue, nullptr, 0, "the copy's device range is not allocated");
          break;
        }
        write_mem(a.addr, body.data() + sizeof a, n);
        reply(0);
        break;
      }
      case STRATA_WIRE_READ: {
        strata_wire_range r{};
        if (!take(body, &r) || r.bytes > kMaxRequest) return false;
        if (!valid_range(r.addr, r.bytes)) {
          reply(cudaErrorInvalidValue, nullptr, 0, "the copy's device range is not allocated");
          break;
        }
        std::vector<unsigned char> out(r.bytes);
        bstore_read(golden_, r.addr, out.data(), out.size());
        reply(0, out.data(), out.size());
        break;
      }
      case STRATA_WIRE_COPY: {
        strata_wire_copy c{};
        if (!take(body, &c) || c.bytes > kMaxRequest) return false;
        if (!valid_range(c.dst, c.bytes) || !valid_range(c.src, c.bytes)) {
          reply(cudaErrorInvalidValue, nullptr, 0, "the copy's device range is not allocated");
          break;
        }
        std::vector<unsigned char> tmp(c.bytes);
        bstore_read(golden_, c.src, tmp.data(), tmp.size());
        write_mem(c.dst, tmp.data(), tmp.size());
        reply(0);
        break;
      }
      case STRATA_WIRE_SET: {
        strata_wire_set s{};
        if (!take(body, &s) || s.bytes > (1ull << 40)) return false;
        if (!valid_range(s.addr, s.bytes)) {
          reply(cudaErrorInvalidValue, nullptr, 0, "the memset's device range is not allocated");
          break;
        }
        std::vector<unsigned char> tmp(std::min<uint64_t>(s.bytes, 1u << 20), static_cast<unsigned char>(s.value));
        for (uint64_t o = 0; o < s.bytes; o += tmp.size())
          write_mem(s.addr + o, tmp.data(), std::min<uint64_t>(tmp.size(), s.bytes - o));
        reply(0);
        break;
      }
      case STRATA_WIRE_LAUNCH:
        if (!on_launch(body)) return false;
        if (current_) return true;  // a launch to run; an invalid one was answered with an error
        break;
      case STRATA_WIRE_TIME: {
        strata_wire_time t{hooks_.now_ps ? hooks_.now_ps() : 0};
        reply(0, &t, sizeof t);
        break;
      }
      case STRATA_WIRE_FAIL: {
        std::string why(body.begin(), body.end());
        while (!why.empty() && (why.back() == 0 || why.back() == '\n')) why.pop_back();
        for (char& ch : why)
          if (ch == '\n' || ch == '\r') ch = ' ';
        fail(path_ + ": " + why);
        return false;
      }
      case STRATA_WIRE_PROPS: {
        cudaDeviceProp p{};
        std::snprintf(p.name, sizeof p.name, "%s", dev_.name.c_str());
        p.totalGlobalMem = dev_.mem_bytes;
        p.sharedMemPerBlock = 48 * 1024;
        p.regsPerBlock = 65536;
        p.warpSize = 32;
        p.memPitch = SIZE_MAX / 2;
        p.maxThreadsPerBlock = static_cast<int>(kMaxThreadsPerCta);
        p.maxThreadsDim[0] = 1024, p.maxThreadsDim[1] = 1024, p.maxThreadsDim[2] = 64;
        p.maxGridSize[0] = INT32_MAX, p.maxGridSize[1] = 65535, p.maxGridSize[2] = 65535;
        p.clockRate = static_cast<int>(dev_.core_mhz * 1000);
        p.totalConstMem = 64 * 1024;
        p.major = 7, p.minor = 0;
        p.textureAlignment = 512;
        p.multiProcessorCount = static_cast<int>(dev_.sms);
        p.canMapHostMemory = 0;
        p.concurrentKernels = 0;
        p.unifiedAddressing = 1;
        p.memoryClockRate = static_cast<int>(dev_.mem_mhz * 1000);
        p.memoryBusWidth = static_cast<int>(dev_.bus_bits);
        p.l2CacheSize = static_cast<int>(std::min<uint64_t>(dev_.l2_bytes, INT32_MAX));
        p.maxThreadsPerMultiProcessor = static_cast<int>(dev_.max_warps_per_sm * 32);
        p.sharedMemPerMultiprocessor = 96 * 1024;
        p.regsPerMultiprocessor = 65536;
        p.managedMemory = 1;
        reply(0, &p, sizeof p);
        break;
      }
      default:
        fail(path_ + ": an unknown request " + std::to_string(h.op) +
             " (not Strata's CUDA runtime, or a different version of it)");
        return false;
    }
  }
}

// A module's PTX: parsed and checked (every kernel can run), its .global and
// .const segments placed in device memory with their initial images.
bool CudaProgram::on_module(const std::vector<unsigned char>& body) {
  strata_wire_module m{};
  if (!take(body, &m) || m.module != modules_.size()) {
    fail(path_ + ": modules registered out of order");
    return false;
  }
  const char* text = reinterpret_cast<const char*>(body.data() + sizeof m);
  size_t len = body.size() - sizeof m;
  while (len && text[len - 1] == 0) --len;
  char err[512];
  Module mod;
  const std::string name = path_.substr(path_.find_last_of('/') + 1) + ".ptx#" + std::to_string(m.module);
  if (ptx_parse(text, len, name.c_str(), &mod.m, err, sizeof err) != 0 || ptx_module_check(mod.m, err, sizeof err) != 0) {
    if (mod.m) ptx_free(mod.m);
    fail(err);
    return false;
  }
  for (ptx_space sp : {PTX_SPACE_GLOBAL, PTX_SPACE_CONST}) {
    const ptx_segment seg = ptx_module_segment(mod.m, sp);
    if (!seg.size) continue;
    const uint64_t at = alloc(seg.size, std::max<uint64_t>(seg.align, kAllocAlign));
    if (!at) {
      fail(path_ + ": the module's variables do not fit the simulated device memory");
      ptx_free(mod.m);
      return false;
    }
    ptx_module_set_base(mod.m, sp, at);
    (sp == PTX_SPACE_GLOBAL ? mod.global_base : mod.const_base) = at;
    if (seg.image) write_mem(at, seg.image, seg.size);
  }
  modules_.push_back(mod);
  reply(0);
  return true;
}

bool CudaProgram::on_function(const std::vector<unsigned char>& body) {
  strata_wire_module m{};
  std::string entry;
  if (!take(body, &m) || m.module >= modules_.size() || !name_after(body, sizeof m, &entry)) {
    fail(path_ + ": a kernel registered with a bad module or name");
    return false;
  }
  char err[512];
  const ptx_kernel* k = ptx_kernel_find(modules_[m.module].m, entry.c_str(), err, sizeof err);
  if (!k) {
    fail(err);
    return false;
  }
  const ptx_kernel_info info = ptx_kernel_get_info(k);
  strata_wire_params p{};
  if (info.nparams > STRATA_WIRE_MAX_PARAMS) {
    fail(entry + ": more than " + std::to_string(STRATA_WIRE_MAX_PARAMS) + " parameters");
    return false;
  }
  p.kernel = static_cast<uint32_t>(kernels_.size());
  p.count = info.nparams;
  p.total = info.param_bytes;
  for (unsigned i = 0; i < info.nparams; ++i) {
    const ptx_param_info pi = ptx_kernel_param(k, i);
    p.offset[i] = pi.offset;
    p.size[i] = pi.size;
  }
  std::shared_ptr<const PtxBlockTable> table;
  try {
    table = ptx_block_table(k);
  } catch (const std::runtime_error& e) {
    fail(e.what());
    return false;
  }
  kernels_.push_back({m.module, k, source_name(entry.c_str()), std::move(table)});
  reply(0, &p, sizeof p);
  return true;
}

bool CudaProgram::on_var(const std::vector<unsigned char>& body) {
  strata_wire_var v{};
  std::string sym;
  if (!take(body, &v) || v.module >= modules_.size() || !name_after(body, sizeof v, &sym)) {
    fail(path_ + ": a variable registered with a bad module or name");
    return false;
  }
  ptx_space sp;
  uint64_t addr = 0, size = 0;
  if (ptx_module_symbol(modules_[v.module].m, sym.c_str(), &sp, &addr, &size) != 0 || size < v.bytes) {
    const std::string why = sym + ": expected a .global or .const variable of " + std::to_string(v.bytes) +
                            " bytes in the program's PTX";
    fail(path_ + ": " + why);
    return false;
  }
  strata_wire_addr r{addr};
  reply(0, &r, sizeof r);
  return true;
}

// A launch: its configuration checked as a GPU would (an invalid one is the
// program's error, answered and not run), then the next kernel.
bool CudaProgram::on_launch(const std::vector<unsigned char>& body) {
  strata_wire_launch l{};
  if (!take(body, &l) || l.kernel >= kernels_.size() || body.size() - sizeof l != l.param_bytes) {
    fail(path_ + ": a malformed launch request");
    return false;
  }
  const KernelRef& k = kernels_[l.kernel];
  const ptx_kernel_info info = ptx_kernel_get_info(k.k);
  const uint64_t threads = static_cast<uint64_t>(l.block[0]) * l.block[1] * l.block[2];
  const uint64_t ctas = static_cast<uint64_t>(l.grid[0]) * l.grid[1] * l.grid[2];
  if (threads == 0 || threads > kMaxThreadsPerCta || ctas == 0 || ctas > UINT32_MAX ||
      l.param_bytes != info.param_bytes || l.shared_bytes + info.shared_static > 96 * 1024) {
    reply(cudaErrorInvalidConfiguration, nullptr, 0, "invalid launch configuration");
    return true;
  }
  current_.reset(new PtxKernel(this, k.k, k.name, l.grid, l.block, body.data() + sizeof l, l.param_bytes,
                               static_cast<uint32_t>(l.shared_bytes), k.blocks));
  current_->golden = golden_;
  awaiting_launch_reply_ = true;
  return true;
}

uint64_t CudaProgram::run_functional(bstore* golden) {
  init(golden, nullptr);
  uint64_t insts = 0;
  while (next_kernel()) {
    const int64_t n = current_->run_functional();
    if (n < 0) continue;  // failed: the next call ends the program
    insts += static_cast<uint64_t>(n);
  }
  return insts;
}

// ---------------------------------------------------------------- PtxKernel

int64_t PtxKernel::run_functional() {
  functional_ = true;  // atomics on the golden memory, in execution order
  uint64_t total = 0;
  ptx_cta* c = nullptr;
  char err[512];
  for (uint32_t i = 0; i < ctas; ++i) {
    const uint32_t id[3] = {i % launch_.grid[0], (i / launch_.grid[0]) % launch_.grid[1],
                            i / (launch_.grid[0] * launch_.grid[1])};
    if (!c) {
      if (ptx_cta_init(&c, &launch_, id, err, sizeof err) != 0) {
        prog_->fail(err);
        return -1;
      }
    } else {
      ptx_cta_reset(c, id);
    }
    uint64_t n = 0;
    const int rc = ptx_cta_run(c, &n);
    total += n;
    if (rc != 0) {
      prog_->fail(ptx_cta_error(c));
      ptx_cta_free(c);
      return -1;
    }
  }
  if (c) ptx_cta_free(c);
  return static_cast<int64_t>(total);
}

PtxKernel::PtxKernel(CudaProgram* prog, const ptx_kernel* k, const std::string& name, const uint32_t grid[3],
                     const uint32_t block[3], const void* params, size_t params_size, uint32_t dyn_shared,
                     std::shared_ptr<const PtxBlockTable> table)
    : prog_(prog), table_(std::move(table)), params_(static_cast<const unsigned char*>(params),
                                                     static_cast<const unsigned char*>(params) + params_size) {
  this->name = name;
  if (table_) blocks = table_->blocks;
  launch_.kernel = k;
  std::copy(grid, grid + 3, launch_.grid);
  std::copy(block, block + 3, launch_.block);
  launch_.params = params_.data();
  launch_.params_size = params_.size();
  launch_.dyn_shared = dyn_shared;
  launch_.mem = ptx_mem_ops{this, &PtxKernel::load, &PtxKernel::store, &PtxKernel::atomic};
  launch_.print = &PtxKernel::print;
  threads_per_cta_ = block[0] * block[1] * block[2];
  ctas = grid[0] * grid[1] * grid[2];
  warps_per_cta = (threads_per_cta_ + kWarpSize - 1) / kWarpSize;
}

PtxKernel::~PtxKernel() {
  for (auto& c : live_) ptx_cta_free(c.second.cta);
  for (ptx_cta* c : pool_) ptx_cta_free(c);
}

void PtxKernel::print(void* ctx, const char* text, size_t len) {
  static_cast<PtxKernel*>(ctx)->prog_->device_print(text, len);
}

// The runtime writes texture descriptors (cuda/runtime/strata_cuda_wire.h) that the executor
// reads (models/ptx/ptx.h): one layout.
static_assert(sizeof(strata_wire_texture) == sizeof(ptx_tex_desc) && STRATA_WIRE_TEX_MAGIC == PTX_TEX_MAGIC &&
                  offsetof(strata_wire_texture, base) == offsetof(ptx_tex_desc, base) &&
                  offsetof(strata_wire_texture, bytes) == offsetof(ptx_tex_desc, bytes) &&
                  offsetof(strata_wire_texture, read_mode) == offsetof(ptx_tex_desc, read_mode) &&
                  offsetof(strata_wire_texture, format) == offsetof(ptx_tex_desc, format) &&
                  offsetof(strata_wire_texture, channels) == offsetof(ptx_tex_desc, channels) &&
                  offsetof(strata_wire_texture, bits) == offsetof(ptx_tex_desc, bits) &&
                  offsetof(strata_wire_texture, kind) == offsetof(ptx_tex_desc, kind),
              "texture descriptor layouts differ");

int PtxKernel::load(void* ctx, ptx_space space, uint64_t addr, void* dst, unsigned size) {
  (void)space;  // .const variables live in device memory too (CudaProgram::on_module)
  bstore_read(static_cast<PtxKernel*>(ctx)->golden, addr, dst, size);
  return 0;
}

int PtxKernel::store(void* ctx, uint64_t addr, const void* src, unsigned size) {
  return bstore_write(static_cast<PtxKernel*>(ctx)->golden, addr, src, size) == 0 ? 0 : -1;
}

// A global atomic lane. Functional mode performs it on the golden memory; the timed run records it
// for the SM (warp_next) and leaves the destination to atomic_result.
int PtxKernel::atomic(void* ctx, uint64_t addr, ptx_atom_op op, ptx_atom_type ty, uint64_t a, uint64_t b,
                      uint64_t* old) {
  PtxKernel* k = static_cast<PtxKernel*>(ctx);
  if (k->functional_) {
    const unsigned n = gpu_atom_bytes(static_cast<gpu_atom_type>(ty));
    uint64_t v = 0;
    bstore_read(k->golden, addr, &v, n);
    const uint64_t nv = ptx_atom_apply(op, ty, v, a, b);
    *old = v;
    return bstore_write(k->golden, addr, &nv, n) == 0 ? 0 : -1;
  }
  if (k->atom_n_ >= kWarpSize) return -1;
  k->atom_op_ = op;
  k->atom_ty_ = ty;
  k->atom_addr_[k->atom_n_] = addr;
  k->atom_a_[k->atom_n_] = a;
  k->atom_b_[k->atom_n_] = b;
  ++k->atom_n_;
  *old = 0;  // the L2's old value replaces it (atomic_result) before the warp runs on
  return 0;
}

// While a warp's atomics are in flight the warp runs on only through instructions that depend on
// none of them (their destination registers, the words they update); another atomic is one of
// those while fewer than max_atomics are in flight (the L2 performs one warp's atomics to an
// address in issue order: the SM sends them in order, the interconnect and the L2 keep a line's
// requests in order).
bool PtxKernel::fetch_during_atomic(WarpCtx& w, unsigned max_atomics) const {
  ptx_cta* c = reinterpret_cast<ptx_cta*>(static_cast<uintptr_t>(w.s[0]));
  if (!c || prog_->failed() || w.s[1]) return true;  // ending (an Exit waits for the atomics), or a vector's or local access's part
  const WarpAtoms* wa = reinterpret_cast<const WarpAtoms*>(static_cast<uintptr_t>(w.s[4]));
  if (!wa) return true;
  const int atom_ok = wa->inflight < max_atomics;
  for (const AtomRec& r : wa->rec)
    if (r.busy && !ptx_warp_next_independent(c, w.warp, r.reg, r.addr, r.lanes, atom_ok)) return false;
  return true;
}

void PtxKernel::atomic_result(WarpCtx& w, uint32_t seq, uint32_t lanes, const uint64_t* old) const {
  ptx_cta* c = reinterpret_cast<ptx_cta*>(static_cast<uintptr_t>(w.s[0]));
  WarpAtoms* wa = reinterpret_cast<WarpAtoms*>(static_cast<uintptr_t>(w.s[4]));
  if (!c || !wa) return;
  for (AtomRec& r : wa->rec) {
    if (!r.busy || r.seq != seq) continue;
    r.busy = false;
    --wa->inflight;
    if (r.reg != PTX_NOREG && ptx_warp_set_reg(c, w.warp, r.reg, lanes, old) != 0)
      prog_->fail(name + ": an atomic's old value for a register the warp does not have");
    return;
  }
  prog_->fail(name + ": the result of an atomic the warp does not have in flight");
}

PtxKernel::WarpAtoms* PtxKernel::atoms_of(WarpCtx& w, ptx_cta* c) const {
  if (!w.s[4]) {
    std::vector<WarpAtoms>& v = atoms_[c];
    if (v.empty()) v.resize(ptx_cta_warps(c));
    w.s[4] = reinterpret_cast<uintptr_t>(&v[w.warp]);
  }
  return reinterpret_cast<WarpAtoms*>(static_cast<uintptr_t>(w.s[4]));
}

ptx_cta* PtxKernel::cta_for(uint32_t cta) const {
  auto it = live_.find(cta);
  if (it != live_.end()) return it->second.cta;
  const uint32_t id[3] = {cta % launch_.grid[0], (cta / launch_.grid[0]) % launch_.grid[1],
                          cta / (launch_.grid[0] * launch_.grid[1])};
  const uint32_t lpt = ptx_kernel_get_info(launch_.kernel).local_per_thread;
  if (lpt && !local_stride_) {
    // The region: a slot per CTA the GPU can hold at once (every SM full of this kernel's CTAs),
    // each of warps_per_cta * 32 threads, lpt bytes (whole words) per thread.
    const CudaDevice& d = prog_->device();
    const uint64_t per_sm = std::max<uint64_t>(1, std::min<uint64_t>(d.max_ctas_per_sm, d.max_warps_per_sm / warps_per_cta));
    const uint64_t slots = std::min<uint64_t>(ctas, std::max<uint64_t>(1, d.sms) * per_sm);
    local_cta_threads_ = warps_per_cta * kWarpSize;
    const uint64_t stride = slots * local_cta_threads_;
    local_base_ = prog_->local_region((lpt + 3) / 4 * 4 * stride);
    if (!local_base_) {
      prog_->fail(name + ": the threads' local memory (" + std::to_string(lpt) + " bytes x " + std::to_string(stride) +
                  " threads) does not fit the simulated device memory");
      return nullptr;
    }
    local_stride_ = stride;
    for (uint64_t i = slots; i-- > 0;) local_free_.push_back(static_cast<uint32_t>(i));
  }
  uint32_t slot = 0;
  if (lpt) {
    if (local_free_.empty()) {  // more CTAs resident than the GPU's limits allow: a model bug
      prog_->fail(name + ": more resident CTAs than local-memory slots");
      return nullptr;
    }
    slot = local_free_.back();
    local_free_.pop_back();
  }
  ptx_cta* c = nullptr;
  if (!pool_.empty()) {
    c = pool_.back();
    pool_.pop_back();
    ptx_cta_reset(c, id);
  } else {
    char err[512];
    if (ptx_cta_init(&c, &launch_, id, err, sizeof err) != 0) {
      prog_->fail(err);
      return nullptr;
    }
  }
  if (lpt) ptx_cta_set_local(c, local_base_ + uint64_t{slot} * local_cta_threads_ * 4, local_stride_);
  live_[cta] = CtaState{c, ptx_cta_warps(c), slot};
  return c;
}

void PtxKernel::warp_begin(WarpCtx& w) const {
  const uint32_t first = w.warp * kWarpSize;
  w.mask = lanes_below(first, threads_per_cta_);
  w.pc = 0;
  w.s[0] = reinterpret_cast<uintptr_t>(prog_->failed() ? nullptr : cta_for(w.cta));
  w.s[1] = 0;
  w.s[4] = 0;
  if (w.s[0]) {
    auto it = atoms_.find(reinterpret_cast<ptx_cta*>(static_cast<uintptr_t>(w.s[0])));
    if (it != atoms_.end()) {  // this executor CTA object's warps had atomics before: start afresh
      it->second[w.warp] = WarpAtoms();
      w.s[4] = reinterpret_cast<uintptr_t>(&it->second[w.warp]);
    }
  }
  if (local_stride_ && w.s[0]) w.s[6] = local_base_ + uint64_t{live_[w.cta].local_slot} * local_cta_threads_ * 4;
  w.s[7] = kNoBlock;
}

// A warp enters a block when its previous instruction was outside it, or (a
// straight block) when it is back at the block's first instruction.
void PtxKernel::tag(WarpCtx& w, uint32_t pc, WarpInst& out) const {
  if (!table_) return;
  const uint32_t i = pc - table_->first_pc;
  uint16_t b = static_cast<uint16_t>(w.s[7]);
  bool entry = false;
  if (i < table_->pc_block.size()) {
    const uint16_t nb = table_->pc_block[i];
    entry = nb != kNoBlock && (nb != b || (pc == table_->begin[nb] && !table_->loop[nb]));
    b = nb;
    w.s[7] = b;
  }
  if (b != kNoBlock) out.in_block(b, entry);
}

std::shared_ptr<const PtxBlockTable> ptx_block_table(const ptx_kernel* k) {
  ptx_oblocks ob;
  char err[512];
  if (ptx_offload_blocks(k, &ob, err, sizeof err) != 0) throw std::runtime_error(err);
  auto t = std::make_shared<PtxBlockTable>();
  t->first_pc = ob.first_pc;
  t->pc_block.assign(ob.pc_block, ob.pc_block + ob.npc);
  for (unsigned i = 0; i < ob.n; ++i) {
    const ptx_oblock& o = ob.b[i];
    OffloadBlock b;
    b.name = std::string(o.loop ? "loop" : "straight") + "@L" + std::to_string(o.line_begin);
    b.pc_begin = o.line_begin;
    b.pc_end = o.line_end;
    b.live_in = o.ofl.live_in;
    b.live_out = o.ofl.live_out;
    b.loads = o.ofl.n_ld;
    b.stores = o.ofl.n_st;
    b.alu = o.n_alu;
    b.sfu = o.n_sfu;
    b.trip = static_cast<TripKind>(o.ofl.trip);
    b.trips = o.ofl.trips;
    b.limits = o.ofl.limits;
    t->blocks.push_back(b);
    t->begin.push_back(o.pc_begin);
    t->loop.push_back(o.loop);
  }
  ptx_oblocks_free(&ob);
  return t;
}

void PtxKernel::warp_done(const WarpCtx& w) const {
  auto it = live_.find(w.cta);
  if (it == live_.end()) return;
  if (--it->second.warps_left == 0) {
    if (local_stride_) local_free_.push_back(it->second.local_slot);
    pool_.push_back(it->second.cta);
    live_.erase(it);
  }
}

namespace {
inline uint8_t reg(uint32_t r) { return r == PTX_NOREG ? kNoReg : static_cast<uint8_t>(r % kMaxRegs); }
}  // namespace

// One warp instruction: executed by the PTX executor on the golden memory,
// described to the SM. A 16-byte vector access becomes two 8-byte halves (the
// second is handed out at the next call: w.s[1] = 1 load, 2 store).
void PtxKernel::warp_next(WarpCtx& w, WarpInst& out) const {
  if (w.s[1] >= 3) {
    local_part(w, out);
    return;
  }
  if (w.s[1]) {
    const bool st = w.s[1] == 2;
    const uint32_t active = static_cast<uint32_t>(w.s[3]);
    if (st) out.store(active, 8, kNoReg);
    else out.load(static_cast<uint8_t>(w.s[2]), active, 8);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      out.addr[l] = w.t[0][l];
      if (st) out.data[l] = w.t[1][l];
    }
    w.s[1] = 0;
    if (w.s[7] != kNoBlock) out.in_block(static_cast<uint16_t>(w.s[7]));  // the first half's block
    return;
  }
  ptx_cta* c = reinterpret_cast<ptx_cta*>(static_cast<uintptr_t>(w.s[0]));
  if (!c || prog_->failed()) {
    out.exit(w.mask);
    warp_done(w);
    return;
  }
  ptx_winst wi;
  atom_n_ = 0;
  const ptx_step_status st = ptx_warp_step(c, w.warp, &wi);
  switch (st) {
    case PTX_STEP_ERROR:
      prog_->fail(ptx_cta_error(c));
      out.exit(w.mask);
      warp_done(w);
      return;
    case PTX_STEP_EXITED:  // its exit (or the kernel's ret) ended the warp: the SM's Exit
      out.exit(w.mask);
      warp_done(w);
      return;
    case PTX_STEP_BARRIER:
      count(wi);
      out.barrier(w.mask);
      tag(w, wi.pc, out);
      return;
    case PTX_STEP_WAITING:  // the SM releases a barrier only when the executor would: a model bug
      prog_->fail(name + ": warp " + std::to_string(w.warp) + " of CTA " + std::to_string(w.cta) +
                  " was asked for an instruction while waiting at a barrier");
      out.exit(w.mask);
      warp_done(w);
      return;
    case PTX_STEP_OK:
      break;
  }
  const unsigned passes = count(wi);
  // every return below tags `out` (after its setter) with the instruction's offload block
  struct Tagger {
    const PtxKernel* k;
    WarpCtx& w;
    uint32_t pc;
    WarpInst& out;
    ~Tagger() { k->tag(w, pc, out); }
  } tagger{this, w, wi.pc, out};
  if (atom_n_) {  // global atomic lanes, to be performed by the L2
    if (wi.cls != PTX_IC_ATOMIC || atom_n_ != static_cast<unsigned>(__builtin_popcount(wi.active))) {
      prog_->fail(name + ": PTX line " + std::to_string(wi.line) +
                  ": an atomic whose lanes address both global and shared memory (not supported in a timed run)");
      out.exit(w.mask);
      warp_done(w);
      return;
    }
    WarpAtoms* wa = atoms_of(w, c);
    AtomRec* rec = nullptr;
    for (AtomRec& r : wa->rec)
      if (!r.busy) {
        rec = &r;
        break;
      }
    if (!rec) {  // fetch_during_atomic lets no more atomics through than the SM holds
      prog_->fail(name + ": PTX line " + std::to_string(wi.line) + ": more atomics in flight than a warp can hold");
      out.exit(w.mask);
      warp_done(w);
      return;
    }
    out.atomic(reg(wi.dst), wi.active, static_cast<gpu_atom_op>(atom_op_), static_cast<gpu_atom_type>(atom_ty_),
               wi.dst != PTX_NOREG, reg(wi.src[0]), reg(wi.src[1]), reg(wi.src[2]));
    for (AtomRec& r : wa->rec)  // an older atomic to the same register: its values are overwritten (never delivered)
      if (r.busy && r.reg == wi.dst) r.reg = PTX_NOREG;
    rec->busy = true;
    rec->seq = wa->next_seq++;
    rec->reg = wi.dst;
    rec->lanes = wi.active;
    ++wa->inflight;
    unsigned k = 0;
    for (unsigned l = 0; l < kWarpSize; ++l) {
      if (!((wi.active >> l) & 1u)) continue;
      out.addr[l] = atom_addr_[k];
      out.data[l] = atom_a_[k];
      out.data2[l] = atom_b_[k];
      rec->addr[l] = atom_addr_[k];
      ++k;
    }
    return;
  }
  switch (wi.cls) {
    case PTX_IC_SFU:
    case PTX_IC_INTDIV:
    case PTX_IC_FP64:
      out.sfu(reg(wi.dst), wi.active, reg(wi.src[0]), reg(wi.src[1]));
      return;
    case PTX_IC_LOAD:
    case PTX_IC_STORE: {
      const bool store = wi.cls != PTX_IC_LOAD;
      const unsigned bytes = wi.bytes > 8 ? 8 : wi.bytes;
      if (store) out.store(wi.active, bytes, reg(wi.src[0]), reg(wi.src[1]));
      else out.load(reg(wi.dst), wi.active, bytes, reg(wi.src[0]));
      for (unsigned l = 0; l < kWarpSize; ++l) {
        out.addr[l] = wi.addr[l];
        if (!store || !((wi.active >> l) & 1u)) continue;
        // the bytes the instruction left in memory (a vector's halves)
        if (wi.cls == PTX_IC_STORE && wi.bytes <= 8) out.data[l] = wi.data[l];
        else {
          out.data[l] = 0;
          bstore_read(golden, wi.addr[l], &out.data[l], bytes);
        }
      }
      if (wi.bytes == 16) {
        w.s[1] = store ? 2 : 1;
        w.s[2] = reg(wi.dst);
        w.s[3] = wi.active;
        for (unsigned l = 0; l < kWarpSize; ++l) {
          w.t[0][l] = wi.addr[l] + 8;
          w.t[1][l] = 0;
          if (store && ((wi.active >> l) & 1u)) bstore_read(golden, wi.addr[l] + 8, &w.t[1][l], 8);
        }
      }
      return;
    }
    case PTX_IC_SHARED:  // the SM's shared memory, bank conflicts included
      out.shared(reg(wi.dst), wi.active, passes, reg(wi.src[0]), reg(wi.src[1]));
      return;
    case PTX_IC_LOCAL:
      if (local_stride_ && wi.space == PTX_SPACE_LOCAL && wi.active) {  // to the local region: a part per word
        w.s[1] = wi.is_store ? 4 : 3;
        w.s[2] = reg(wi.dst);
        w.s[3] = wi.active;
        w.t[1][0] = 0;
        w.t[1][1] = wi.bytes < 4 ? 1 : wi.bytes / 4u;
        w.t[1][2] = wi.bytes < 4 ? wi.bytes : 4;
        for (unsigned l = 0; l < kWarpSize; ++l) w.t[0][l] = wi.addr[l];
        local_part(w, out);
        if (wi.is_store) out.src[0] = reg(wi.src[0]), out.src[1] = reg(wi.src[1]);
        else out.src[0] = reg(wi.src[0]);
        return;
      }
      // a device function's parameter (registers on a GPU), or no region: an L1-resident access's latency
      out.shared(reg(wi.dst), wi.active, 1, reg(wi.src[0]), reg(wi.src[1]));
      return;
    default:  // integer and f32 arithmetic, moves, branches, param/const accesses, warp functions
      out.alu(reg(wi.dst), wi.active, reg(wi.src[0]), reg(wi.src[1]), reg(wi.src[2]));
      return;
  }
}

// Part i of a local access: every lane's word i (or its smaller access) at its interleaved address in
// the region, so the same word of the warp's lanes shares a line. A load writes its register with the
// last part (the scoreboard then waits for that part; the earlier ones hold the warp only at exit).
void PtxKernel::local_part(WarpCtx& w, WarpInst& out) const {
  const bool st = w.s[1] == 4;
  const uint32_t active = static_cast<uint32_t>(w.s[3]);
  const unsigned i = static_cast<unsigned>(w.t[1][0]), parts = static_cast<unsigned>(w.t[1][1]);
  const unsigned bytes = static_cast<unsigned>(w.t[1][2]);
  const bool last = i + 1 == parts;
  if (st) out.store(active, bytes, kNoReg);
  else out.load(last ? static_cast<uint8_t>(w.s[2]) : kNoReg, active, bytes);
  uint64_t lines[kWarpSize];
  unsigned nlines = 0;
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!((active >> l) & 1u)) {
      out.addr[l] = 0;
      continue;
    }
    const uint64_t a = ptx_local_addr(w.s[6], local_stride_, w.warp * kWarpSize + l, w.t[0][l] + 4u * i);
    out.addr[l] = a;
    if (st) {
      out.data[l] = 0;
      bstore_read(golden, a, &out.data[l], bytes);  // what the executor stored there
    }
    unsigned j = 0;
    while (j < nlines && lines[j] != a >> 7) ++j;
    if (j == nlines) lines[nlines++] = a >> 7;
  }
  local_lines_ += nlines;
  ++(st ? local_stores_ : local_loads_);
  if (last) w.s[1] = 0;
  else w.t[1][0] = i + 1;
  if (i && w.s[7] != kNoBlock) out.in_block(static_cast<uint16_t>(w.s[7]));  // the first part's block
}

// Shared memory has 32 banks of 4 bytes: lanes reaching different words of one
// bank take one pass each (the same word is a broadcast). Counted by the first
// word a lane touches.
unsigned PtxKernel::count(const ptx_winst& wi) const {
  ++insts_;
  ++by_class_[wi.cls];
  lanes_ += static_cast<uint64_t>(__builtin_popcount(wi.active));
  if (wi.cls == PTX_IC_ATOMIC) atomic_lanes_ += static_cast<uint64_t>(__builtin_popcount(wi.active));
  if (wi.cls != PTX_IC_SHARED || !wi.active) return 1;
  ++shared_;
  uint32_t seen = 0;
  bool distinct = true;
  for (unsigned l = 0; l < kWarpSize && distinct; ++l)
    if ((wi.active >> l) & 1u) {
      const uint32_t bank = 1u << ((wi.addr[l] >> 2) & 31u);
      distinct = !(seen & bank);
      seen |= bank;
    }
  if (distinct) return 1;
  unsigned worst = 1;  // the most distinct words in one bank
  for (unsigned l = 0; l < kWarpSize; ++l) {
    if (!((wi.active >> l) & 1u)) continue;
    const uint64_t word = wi.addr[l] >> 2;
    bool first = true;  // the first lane with this word
    unsigned words = 1;
    for (unsigned j = 0; j < l && first; ++j)
      if (((wi.active >> j) & 1u) && (wi.addr[j] >> 2) == word) first = false;
    if (!first) continue;
    for (unsigned j = l + 1; j < kWarpSize; ++j) {
      if (!((wi.active >> j) & 1u)) continue;
      const uint64_t wj = wi.addr[j] >> 2;
      if ((wj & 31u) != (word & 31u) || wj == word) continue;
      bool new_word = true;  // count each other word of the bank once
      for (unsigned k = l + 1; k < j && new_word; ++k)
        if (((wi.active >> k) & 1u) && (wi.addr[k] >> 2) == wj) new_word = false;
      words += new_word;
    }
    worst = std::max(worst, words);
  }
  conflicts_ += worst - 1;
  return worst;
}

void PtxKernel::counters(std::vector<KernelCounter>* out) const {
  for (unsigned c = 0; c < PTX_IC_COUNT; ++c)
    if (by_class_[c])
      out->push_back({std::string("insts.") + ptx_iclass_name(static_cast<ptx_iclass>(c)),
                      std::string("warp instructions of PTX class ") + ptx_iclass_name(static_cast<ptx_iclass>(c)),
                      static_cast<double>(by_class_[c]), false});
  out->push_back({"active_lanes", "active lanes per warp instruction (32 = no divergence)",
                  insts_ ? static_cast<double>(lanes_) / static_cast<double>(insts_) : 0.0, true});
  out->push_back({"shared_accesses", "shared-memory warp instructions", static_cast<double>(shared_), false});
  out->push_back({"shared_bank_conflicts", "extra shared-memory passes from bank conflicts (32 banks of 4 bytes)",
                  static_cast<double>(conflicts_), false});
  out->push_back({"atomic_lanes", "atomic operations (lanes of atom/red instructions)",
                  static_cast<double>(atomic_lanes_), false});
  if (local_loads_ + local_stores_) {
    out->push_back({"local_loads", "local-memory loads sent to the memory system (warp accesses of one 4-byte word)",
                    static_cast<double>(local_loads_), false});
    out->push_back({"local_stores", "local-memory stores sent to the memory system (warp accesses of one 4-byte word)",
                    static_cast<double>(local_stores_), false});
    out->push_back({"local_lines", "128-byte lines the local-memory accesses touch (per access)",
                    static_cast<double>(local_lines_), false});
  }
}

}  // namespace strata
