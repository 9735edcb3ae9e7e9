// strata: the Strata command line. Runs a platform config on a workload and
// writes stats. `strata --help` documents every option; exit status 0 = ok,
// 1 = the simulation failed, 2 = bad input (config, CLI, files), 3 = the
// golden-memory checker found a wrong load, 4 = interrupted by SIGINT/SIGTERM
// (partial stats written, platform/platform.cpp).
#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <systemc>

#include "platform/config.h"
#include "platform/memtrace.h"
#include "platform/platform.h"
#include "platform/version.h"
#include "sc_main/build_id.h"
#include "workloads/accelsim.h"
#include "workloads/cuda_program.h"
#include "workloads/describe.h"
#include "workloads/registry.h"

extern "C" {
#include "mem/dram.h"
}

namespace fs = std::filesystem;
using namespace strata;

// Keep SystemC's start-up banner off our output (read when the kernel initialises).
static const int g_quiet_banner = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);

static std::string default_out_dir(const std::string& cfg, const std::string& wl) {
  char ts[32];
  std::time_t t = std::time(nullptr);
  std::strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", std::localtime(&t));
  std::string stem = cfg.empty() ? "default" : fs::path(cfg).stem().string();
  std::string base = "runs/" + std::string(ts) + "-" + stem + "-" + wl;
  std::string dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

// An --out folder that already holds results is not overwritten unless --force.
static bool refuse_existing_out(const std::string& dir, bool force) {
  std::error_code ec;
  if (force || dir.empty()) return false;
  for (const char* f : {"stats.json", "stats.txt", "timeseries.csv"})
    if (fs::exists(fs::path(dir) / f, ec)) {
      std::fprintf(stderr, "strata: --out %s: expected a new or empty folder, got one with results (%s); "
                   "use --force to overwrite them or choose another folder\n", dir.c_str(), f);
      return true;
    }
  return false;
}

// --out and --vcd are checked before the simulation, so that a location strata cannot write fails at once
// (exit 2) instead of after the whole run: a probe file is created and removed in the folder (or, for a
// folder still to be made, in its nearest existing parent, which must be a folder). Returns "" or why not.
static std::string unwritable_folder(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) return ec.message();
  while (!p.empty() && !fs::exists(p, ec)) {
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  if (!fs::is_directory(p, ec)) return p.string() + " is not a folder";
  const fs::path probe = p / (".strata-write-probe." + std::to_string(getpid()));
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (!f) return p.string() + ": " + std::strerror(errno);
  std::fclose(f);
  fs::remove(probe, ec);
  return "";
}

static bool refuse_unwritable(const char* opt, const std::string& path, const std::string& dir, const char* cmd) {
  const std::string why = unwritable_folder(dir);
  if (why.empty()) return false;
  std::fprintf(stderr, "%s: %s %s: expected a writable location, got %s\n", cmd, opt, path.c_str(), why.c_str());
  return true;
}

// --vcd NAME writes NAME.vcd (SystemC adds the extension; a NAME ending in .vcd is taken as the file name).
// Its folder must exist: strata does not make it. Returns the file name, or "" after printing why not.
static std::string vcd_file(const std::string& vcd) {
  std::string file = vcd.size() > 4 && vcd.compare(vcd.size() - 4, 4, ".vcd") == 0 ? vcd : vcd + ".vcd";
  std::error_code ec;
  const fs::path dir = fs::path(file).parent_path();
  if (fs::is_directory(file, ec)) {
    std::fprintf(stderr, "strata: --vcd %s: expected a file name, got a folder (%s)\n", vcd.c_str(), file.c_str());
    return "";
  }
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "strata: --vcd %s: expected a file in an existing folder, got no folder %s\n", vcd.c_str(),
                 dir.c_str());
    return "";
  }
  if (refuse_unwritable("--vcd", vcd, dir.empty() ? "." : dir.string(), "strata")) return "";
  return file;
}

// The one-line description of a shipped config: the first sentence of its header comment.
static std::string config_description(const std::string& name) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/configs/" + name + ".toml");
  std::string line, text;
  while (std::getline(in, line) && line.rfind("#", 0) == 0) {
    const size_t b = line.find_first_not_of("# ");
    if (b == std::string::npos) break;
    text += (text.empty() ? "" : " ") + line.substr(b);
    if (text.size() > 400) break;
  }
  // The first ". " that ends a sentence, not an abbreviation ("Sec. IV", "Fig. 3", "et al. ").
  for (size_t dot = text.find(". "); dot != std::string::npos; dot = text.find(". ", dot + 1)) {
    const size_t w = text.find_last_of(" (", dot);
    const std::string word = text.substr(w == std::string::npos ? 0 : w + 1, dot - (w == std::string::npos ? 0 : w + 1));
    if (word != "Sec" && word != "Fig" && word != "Figs" && word != "Eq" && word != "al" && word != "Tab" &&
        word != "e.g" && word != "i.e" && word != "vs" && word != "cf" && word != "No") {
      text.resize(dot + 1);
      break;
    }
  }
  if (text.size() > 110) text = text.substr(0, 107) + "...";
  return text;
}

// strata --list-devices: the preset table (models/ref/mem/dram.c), one line each.
// Timings in command-clock cycles; peak = clock x data rate x bus width.
static void list_devices() {
  std::printf("%-13s %-4s %7s %4s %4s %3s %5s %5s %3s %4s %4s %4s %4s %8s\n", "name", "kind", "clk_MHz", "rate", "bus",
              "BL", "bgxba", "row_B", "CL", "tRCD", "tRP", "tRAS", "tWR", "peak_GB/s");
  for (size_t i = 0; i < dram_count(); ++i) {
    const dram_preset* p = dram_at(i);
    const std::string banks = std::to_string(p->bankgroups) + "x" + std::to_string(p->banks_per_group);
    std::printf("%-13s %-4s %7g %4u %4u %3u %5s %5u %3u %4u %4u %4u %4u %8.2f\n", p->name,
                dram_kind_name(dram_mem_kind(p)), p->clk_mhz, p->data_rate, p->bus_bits, p->burst_len, banks.c_str(),
                p->row_bytes, p->t.CL, p->t.RCD, p->t.RP, p->t.RAS, p->t.WR, dram_peak_bytes_per_s(p) / 1e9);
  }
  std::printf("(one channel: rate = data beats per clock, bus in bits, BL = burst length, bgxba = bank groups x "
              "banks per group; timings in command-clock cycles; ranks per channel come from mem.ranks; sources: "
              "models/ref/mem/dram.c, docs/memctrl.md)\n");
}

// strata --describe-workload NAME|TRACE: functional run + summary (workloads/describe.h).
static int describe_main(const std::string& what, const std::string& config, const std::string& trace,
                         const std::string& workload, std::vector<std::string> sets, int64_t seed, bool json_out) {
  if (!trace.empty() || !workload.empty()) {
    std::fprintf(stderr, "strata: --describe-workload %s: expected the workload or trace as its argument, got also %s\n",
                 what.c_str(), trace.empty() ? "--workload" : "--trace");
    return kExitBadInput;
  }
  std::string wl;
  std::error_code ec;
  if (what != "accelsim" && find_workload(what)) {
    wl = what;
  } else if (fs::exists(what, ec)) {
    set_accelsim_trace(what);
    wl = "accelsim";
  } else {
    std::fprintf(stderr,
                 "strata: --describe-workload '%s': expected a built-in workload (strata --list-workloads) or an "
                 "Accel-Sim trace (a directory with kernelslist.g, or the kernelslist file), got no such workload "
                 "or path\n",
                 what.c_str());
    return kExitBadInput;
  }
  sets.insert(sets.begin(), "workload.name=" + wl);
  if (seed >= 0) sets.push_back("sim.seed=" + std::to_string(seed));
  bstore golden;
  bstore_init(&golden);
  int status = kExitOk;
  try {
    Config cfg;
    cfg.load(Config::resolve(config.empty() ? "baseline_hbm2" : config), sets);
    std::unique_ptr<Program> prog = make_workload_program(cfg);
    check_footprint(cfg, *prog);
    prog->init(&golden, nullptr);
    DescribeOptions opt;
    opt.title = what;
    opt.seed = static_cast<uint64_t>(cfg.i("sim.seed"));
    opt.sass_pcs = wl == "accelsim";
    const nlohmann::json d = describe_program(*prog, opt);
    const std::string out = json_out ? d.dump(1) + "\n" : describe_text(d);
    std::fwrite(out.data(), 1, out.size(), stdout);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    status = kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    status = kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata: --describe-workload %s: %s\n", what.c_str(), e.what());
    status = kExitFailure;
  }
  bstore_free(&golden);
  return status;
}

static int cuda_run_main(const std::string& prog, const std::vector<std::string>& args, const std::string& config,
                         std::vector<std::string> sets, int64_t seed, bool check, const std::string& out, bool force,
                         const std::string& vcd, bool quiet, double heartbeat);
static int cuda_functional_main(const std::string& prog, const std::vector<std::string>& args,
                                const std::string& config, const std::vector<std::string>& sets, bool quiet);
static int cuda_describe_main(const std::string& prog, const std::vector<std::string>& args,
                              const std::string& config, const std::vector<std::string>& sets, bool json_out);

static int cli_main(int argc, char** argv) {
  CLI::App app{"strata " + std::string(version()) +
               ": SystemC/TLM-2.0 virtual platform for GPU memory systems.\n"
               "With no arguments, runs the default platform (configs/baseline_hbm2) on the default workload."};
  app.set_version_flag("--version", std::string(version()) + " (commit " + build_commit() + ")");
  std::string config, workload, trace, out, vcd;
  std::vector<std::string> sets;
  int64_t seed = -1;
  bool force = false;
  bool quiet = false, check = false, list_wl = false, list_cfg = false, list_keys = false, list_dev = false,
       json_out = false, print_config = false;
  std::string describe;
  app.add_option("-c,--config", config, "platform config: a file, or a name from configs/ (default baseline_hbm2)");
  app.add_option("-w,--workload", workload, "built-in workload (see --list-workloads); same as --set workload.name=");
  app.add_option("--trace", trace,
                 "run an Accel-Sim SASS trace (a directory with kernelslist.g, or the kernelslist file; kernel files "
                 "may be gzip/xz/zstd compressed) instead of a built-in workload (docs/accelsim_traces.md); with "
                 "`memtrace`: the DRAM request trace");
  app.add_option("-s,--set", sets, "override any config key, e.g. --set l2.size=4MiB (repeatable)")->take_all();
  app.add_option("-o,--out", out, "output directory for stats.json, stats.txt, timeseries.csv (default runs/<time>-...)");
  app.add_flag("--force", force, "overwrite the results in an existing --out folder (refused without it)");
  app.add_option("--vcd", vcd, "write a VCD of the time series (bandwidth, queues, L2 hit rate, IPC)");
  app.add_option("--seed", seed, "random seed (same as --set sim.seed=N)")->check(CLI::Validator(
      [](std::string& v) -> std::string {
        return v.empty() || v[0] == '-' ? "expected an integer >= 0, got '" + v + "'" : std::string();
      },
      "N"));
  app.add_flag("-q,--quiet", quiet, "no progress line and no summary");
  double heartbeat = 30;
  app.add_option("--heartbeat", heartbeat,
                 "when stderr is not a terminal (batch and Slurm logs): a progress line every SECONDS of host time "
                 "(default 30; 0: none)")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.0, 1e6));
  app.add_flag("--check", check, "golden-memory checker: compare every load with a flat golden memory");
  app.add_flag("--list-workloads", list_wl, "list built-in workloads and their knobs");
  app.add_flag("--list-configs", list_cfg, "list shipped platform configs");
  app.add_flag("--list-keys", list_keys, "list every config key with its default and meaning");
  app.add_flag("--list-devices", list_dev,
               "list the memory-device presets (mem.device, mem.rank_devices, mem.channel_devices) with their key "
               "parameters; any timing or energy field of mem.device can be overridden with mem.timing.<field> / "
               "mem.energy.<field> (--list-keys)");
  app.add_option("--describe-workload", describe,
                 "summarise a built-in workload NAME or an Accel-Sim trace (directory or kernelslist.g) from a "
                 "functional run, no timing: arrays, footprint, per-kernel instruction mix, coalescing histogram, "
                 "offload-candidate blocks (docs/offload_candidates.md); knobs with --set workload.NAME.KNOB=V, "
                 "--seed")
      ->type_name("NAME|TRACE");
  app.add_flag("--print-config", print_config,
               "print the effective configuration of this run (the text config.txt records: every key after "
               "includes, --set, --workload and --seed, with its origin) and exit without simulating");
  app.add_flag("--json", json_out, "with --describe-workload: print the summary as JSON");
  // `strata memtrace`: the DRAM-level trace player. Options not its own
  // (--config, --trace, --set, --out, --quiet) are the main command's.
  CLI::App* memtrace = app.add_subcommand(
      "memtrace", "replay a DRAM request trace (--trace FILE) into the config's memory side (straight into the memory "
      "controllers when it has no memory-side policy or host path)");
  memtrace->fallthrough();
  memtrace->footer(
      "Options of the main command it takes:\n"
      "  --trace FILE        the DRAM request trace (required; gzip-compressed files are read as they are)\n"
      "  -c,--config CONFIG  platform config whose memory side replays it (default baseline_hbm2)\n"
      "  -s,--set KEY=VALUE  override a config key (repeatable; strata --list-keys)\n"
      "  -o,--out DIR        output folder for stats.json, stats.txt, config.txt (default runs/<time>-...)\n"
      "  --force             overwrite the results in an existing --out folder\n"
      "  -q,--quiet          no summary\n"
      "Trace formats and an example: docs/memtrace.md; tools/gen_memtrace.py makes a synthetic trace.");
  std::string mt_format = "auto";
  unsigned mt_bytes = 64;
  double mt_clock = 0;
  // `strata cuda run PROG -- ARGS`: a CUDA program built by `strata cuda build` (docs/cuda.md). Options
  // of a platform run may come before or after PROG.
  CLI::App* cuda = app.add_subcommand("cuda", "CUDA programs: strata cuda build SRC.cu -o PROG, strata cuda run PROG");
  cuda->fallthrough();
  cuda->require_subcommand(1);
  CLI::App* cuda_run = cuda->add_subcommand(
      "run", "run a program built by `strata cuda build` on the simulated GPU (its arguments after --)");
  cuda_run->fallthrough();
  std::string cuda_prog;
  std::vector<std::string> cuda_args;
  cuda_run->add_option("program", cuda_prog, "the program (strata cuda build ... -o PROG)")->required();
  cuda_run->add_option("args", cuda_args, "the program's own arguments (after --)");
  bool cuda_functional = false, cuda_describe = false;
  cuda_run->add_flag("--describe", cuda_describe,
                     "no timing model: the --describe-workload summary of the program (allocations as arrays, "
                     "per-kernel instruction mix, coalescing, the offload-candidate blocks of its PTX; --json for "
                     "JSON; the program's own output goes to stderr)");
  cuda_run->add_flag("--functional", cuda_functional,
                     "no timing model: the kernels run on the PTX executor alone (a quick check of a program; "
                     "reports warp instructions per host second)");
  memtrace->add_option("--format", mt_format, "trace format: stl (DRAMSys), rstl (DRAMSys, relative times), addr "
                                              "(Ramulator '0xADDR R|W', Ramulator 2 'LD|ST|R|W 0xADDR'), dramsim3 "
                                              "('0xADDR READ|WRITE CYCLE'), auto (from the first line and .rstl)")
      ->check(CLI::IsMember({"auto", "stl", "rstl", "addr", "dramsim3"}));
  memtrace->add_option("--request-bytes", mt_bytes, "bytes per request when the trace gives no length (default 64)")
      ->check(CLI::Range(1u, 4096u));
  bool mt_wrap = false;
  memtrace->add_flag("--wrap-addresses", mt_wrap,
                     "fold addresses beyond the configured memory's capacity (a hybrid map's addrmap.*_size) into "
                     "it instead of stopping at the first (exit 2)");
  memtrace->add_option("--trace-clock-mhz", mt_clock,
                       "clock of the trace's cycle numbers (default: the memory command clock)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(x >= 1 && x <= 100000))  // also rejects nan
              return "expected a clock in MHz from 1 to 100000, got '" + v + "'";
            return "";
          },
          "MHZ"));
  app.footer(
      "Experiments: strata sweep SPEC (configs x workloads x seeds from configs/experiments/*.toml), strata plot "
      "RUN_DIR, strata report (each: --help; docs/experiments.md).\n"
      "CUDA programs: strata cuda build SRC.cu [...] -o PROG (Debian's clang, Strata's own CUDA headers and "
      "runtime), strata cuda run PROG [options] -- ARGS (docs/cuda.md).\n"
      "Exit status: 0 ok (also a run stopped by sim.max_time_us or sim.max_instructions: sim.partial = 1), 1 simulation failed, 2 bad "
      "input, 3 golden-memory check failed, 4 interrupted by SIGINT/SIGTERM (partial stats written; a second "
      "Ctrl-C exits at once).\n"
      "Docs: docs/user_guide.md");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A misspelt long option: name the closest known one.
    std::vector<std::string> names;
    for (const CLI::App* a : {static_cast<const CLI::App*>(&app), static_cast<const CLI::App*>(memtrace)})
      for (const CLI::Option* o : a->get_options())
        for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    std::string hint;
    for (int i = 1; i < argc && hint.empty(); ++i) {
      const std::string a = std::string(argv[i]).substr(0, std::string(argv[i]).find('='));
      if (a.size() > 2 && a.compare(0, 2, "--") == 0 && std::find(names.begin(), names.end(), a) == names.end())
        hint = did_you_mean(a, names);
    }
    std::fprintf(stderr, "strata: %s%s (see strata --help)\n", e.what(), hint.c_str());
    return kExitBadInput;
  }
  if (list_wl) {
    for (const WorkloadInfo& w : workload_registry()) {
      std::printf("%-12s %s\n", w.name.c_str(), w.desc.c_str());
      for (const KnobSpec& k : w.knobs)
        std::printf("    workload.%s.%-14s default %-10lld %s\n", w.name.c_str(), k.name.c_str(),
                    static_cast<long long>(k.def), k.desc.c_str());
    }
    return 0;
  }
  if (list_cfg) {
    for (const std::string& n : Config::shipped())
      std::printf("%-26s %s\n", n.c_str(), config_description(n).c_str());
    return 0;
  }
  if (list_keys) {
    for (const KeySpec& k : Config::schema()) {
      const bool unset = k.def.empty() && (k.type == KeyType::Int || k.type == KeyType::Float);
      const std::string range = range_text(k);  // " in [4 KiB, 64 GiB]"
      std::printf("%-34s default %-12s %s%s\n", k.name.c_str(), unset ? "(preset)" : k.def.c_str(), k.desc.c_str(),
                  range.empty() ? "" : (";" + range).c_str());
    }
    return 0;
  }
  if (list_dev) {
    list_devices();
    return 0;
  }
  if (!describe.empty()) return describe_main(describe, config, trace, workload, sets, seed, json_out);
  if (json_out && !(cuda_run->parsed() && cuda_describe)) {
    std::fprintf(stderr, "strata: --json: expected --describe-workload NAME|TRACE or strata cuda run --describe with "
                 "it (see strata --help)\n");
    return kExitBadInput;
  }
  if (memtrace->parsed()) {
    // Options of a platform run that the trace player has no use for: refused, not ignored.
    const char* unused = !vcd.empty() ? "--vcd" : !workload.empty() ? "--workload" : check ? "--check"
                         : seed >= 0 ? "--seed" : print_config ? "--print-config" : nullptr;
    if (unused) {
      std::fprintf(stderr, "strata memtrace: %s: expected only options of a trace replay (the player has no "
                   "workload, time series or golden memory; see strata memtrace --help), got %s\n", unused, unused);
      return kExitBadInput;
    }
    if (trace.empty()) {
      std::fprintf(stderr, "strata memtrace: --trace FILE is required (see strata memtrace --help)\n");
      return kExitBadInput;
    }
    try {
      const std::string path = Config::resolve(config.empty() ? "baseline_hbm2" : config);
      Config cfg;
      cfg.load(path, sets);
      MemTraceOptions mo;
      mo.trace = trace;
      TraceReader::parse_format(mt_format, &mo.format);
      mo.request_bytes = mt_bytes;
      mo.trace_clock_mhz = mt_clock;
      mo.wrap_addresses = mt_wrap;
      mo.out_dir = out.empty() ? default_out_dir(path, "memtrace") : out;
      if (refuse_existing_out(out, force)) return kExitBadInput;
      if (refuse_unwritable("--out", mo.out_dir, mo.out_dir, "strata memtrace")) return kExitBadInput;
      mo.quiet = quiet;
      return run_memtrace(cfg, mo);
    } catch (const ConfigError& e) {
      std::fprintf(stderr, "strata: %s\n", e.what());
      return kExitBadInput;
    }
  }
  if (cuda_run->parsed()) {
    if (!workload.empty() || !trace.empty()) {
      std::fprintf(stderr, "strata cuda run: %s: expected no workload (the program is the workload), got %s\n",
                   !workload.empty() ? "--workload" : "--trace", !workload.empty() ? workload.c_str() : trace.c_str());
      return kExitBadInput;
    }
    if (access(cuda_prog.c_str(), X_OK) != 0 || fs::is_directory(cuda_prog)) {
      std::fprintf(stderr, "strata cuda run: %s: expected a program built by strata cuda build, got %s\n",
                   cuda_prog.c_str(), fs::exists(cuda_prog) ? "a file that is not executable" : "no such file");
      return kExitBadInput;
    }
    if (cuda_describe && cuda_functional) {
      std::fprintf(stderr, "strata cuda run: --describe: expected either --describe or --functional, got both\n");
      return kExitBadInput;
    }
    if (cuda_describe) return cuda_describe_main(cuda_prog, cuda_args, config, sets, json_out);
    if (cuda_functional) return cuda_functional_main(cuda_prog, cuda_args, config, sets, quiet);
    return cuda_run_main(cuda_prog, cuda_args, config, sets, seed, check, out, force, vcd, quiet, heartbeat);
  }
  if (!trace.empty()) {  // GPU trace: the `accelsim` workload reads it (workloads/accelsim.cpp)
    if (!workload.empty() && workload != "accelsim") {
      std::fprintf(stderr, "strata: --trace %s: expected either --trace or --workload, got both (--workload %s)\n",
                   trace.c_str(), workload.c_str());
      return kExitBadInput;
    }
    set_accelsim_trace(trace);
    workload = "accelsim";
  }
  if (!workload.empty()) sets.insert(sets.begin(), "workload.name=" + workload);
  if (seed >= 0) sets.push_back("sim.seed=" + std::to_string(seed));
  if (check) sets.push_back("sim.check=true");
  Config cfg;
  RunOptions opt;
  try {
    const std::string path = Config::resolve(config.empty() ? "baseline_hbm2" : config);
    cfg.load(path, sets);
    if (print_config) {
      std::printf("# effective configuration (key = value  # origin)\n%s", cfg.dump().c_str());
      return kExitOk;
    }
    opt.out_dir = out.empty() ? default_out_dir(path, cfg.s("workload.name")) : out;
    if (refuse_existing_out(out, force)) return kExitBadInput;
    if (refuse_unwritable("--out", opt.out_dir, opt.out_dir, "strata")) return kExitBadInput;
    if (!vcd.empty() && (opt.vcd = vcd_file(vcd)).empty()) return kExitBadInput;
    opt.quiet = quiet;
    opt.heartbeat_s = heartbeat;
    Platform platform(cfg, opt);
    platform.build();
    return platform.run();
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {  // inconsistent workload knobs (WorkloadInfo::make)
    std::fprintf(stderr, "strata: %s\n", e.what());
    return kExitBadInput;
  }
}

// `strata cuda run PROG -- ARGS`: the program is the workload (workloads/cuda_program.h). Its output is its
// own; a program that exits non-zero (its own result check failed) makes strata exit with that status.
static int cuda_run_main(const std::string& prog, const std::vector<std::string>& args, const std::string& config,
                         std::vector<std::string> sets, int64_t seed, bool check, const std::string& out, bool force,
                         const std::string& vcd, bool quiet, double heartbeat) {
  if (seed >= 0) sets.push_back("sim.seed=" + std::to_string(seed));
  if (check) sets.push_back("sim.check=true");
  try {
    const std::string path = Config::resolve(config.empty() ? "baseline_hbm2" : config);
    Config cfg;
    cfg.load(path, sets);
    RunOptions opt;
    const std::string name = fs::path(prog).filename().string();
    opt.out_dir = out.empty() ? default_out_dir(path, name) : out;
    if (refuse_existing_out(out, force)) return kExitBadInput;
    if (refuse_unwritable("--out", opt.out_dir, opt.out_dir, "strata cuda run")) return kExitBadInput;
    if (!vcd.empty() && (opt.vcd = vcd_file(vcd)).empty()) return kExitBadInput;
    opt.quiet = quiet;
    opt.heartbeat_s = heartbeat;
    CudaProgram* cp = nullptr;
    opt.make_program = [&](const Config& C) {
      auto p = std::make_unique<CudaProgram>(prog, args, cuda_device(C));
      if (!cp) cp = p.get();  // the run's program (a placement engine makes a second one to profile)
      return std::unique_ptr<Program>(std::move(p));
    };
    Platform platform(cfg, opt);
    platform.build();
    const int rc = platform.run();
    // program.txt: which program ran, with which arguments, and how it ended (config.txt's workload.* keys
    // do not apply to a CUDA run).
    std::ofstream pt(opt.out_dir + "/program.txt");
    pt << "# the CUDA program of this run (strata cuda run)\nprogram = " << fs::absolute(prog).string() << "\nargs =";
    for (const std::string& a : args) pt << " " << a;
    pt << "\nlaunches = " << (cp ? cp->launches() : 0) << "\nexit_status = " << (cp ? cp->exit_status() : -1) << "\n";
    if (cp && rc == kExitFailure && cp->exit_status() > 0) return cp->exit_status();  // the program's own failure
    return rc;
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    return kExitBadInput;
  }
}

// `strata cuda run --functional PROG -- ARGS`: the program on the PTX executor alone (no platform, no
// stats files); the config gives what cudaGetDeviceProperties reports. The exit status is the program's,
// or 2 for a PTX error.
static int cuda_functional_main(const std::string& prog, const std::vector<std::string>& args,
                                const std::string& config, const std::vector<std::string>& sets, bool quiet) {
  try {
    Config cfg;
    cfg.load(Config::resolve(config.empty() ? "baseline_hbm2" : config), sets);
    CudaProgram p(prog, args, cuda_device(cfg));
    bstore golden;
    if (bstore_init(&golden) != 0) throw std::bad_alloc();
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t insts = p.run_functional(&golden);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bstore_free(&golden);
    if (!p.error().empty()) {
      std::fprintf(stderr, "strata: %s\n", p.error().c_str());
      return kExitBadInput;
    }
    if (!quiet)
      std::printf("strata cuda run --functional: %s: %llu launches, %llu warp instructions in %.3f s host "
                  "(%.3g warp instructions/s), footprint %llu bytes in %zu allocations, exit status %d\n",
                  prog.c_str(), static_cast<unsigned long long>(p.launches()), static_cast<unsigned long long>(insts),
                  s, s > 0 ? static_cast<double>(insts) / s : 0.0,
                  static_cast<unsigned long long>(p.footprint_bytes()), p.arrays().size(), p.exit_status());
    return p.exit_status() < 0 ? kExitFailure : p.exit_status();
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    return kExitBadInput;
  }
}

// `strata cuda run --describe PROG -- ARGS`: the --describe-workload summary of a CUDA program from a
// functional run (workloads/describe.h): its allocations, per kernel the instruction mix and coalescing,
// and the offload-candidate blocks derived from its PTX (docs/offload_candidates.md). The program's own
// output goes to stderr so that stdout is the summary alone. Exit status: the program's, 2 for a PTX error.
static int cuda_describe_main(const std::string& prog, const std::vector<std::string>& args,
                              const std::string& config, const std::vector<std::string>& sets, bool json_out) {
  bstore golden;
  if (bstore_init(&golden) != 0) throw std::bad_alloc();
  int status = kExitOk;
  try {
    Config cfg;
    cfg.load(Config::resolve(config.empty() ? "baseline_hbm2" : config), sets);
    CudaProgram p(prog, args, cuda_device(cfg));
    p.stdout_to_stderr();
    p.init(&golden, nullptr);
    DescribeOptions opt;
    opt.title = prog;
    opt.ptx_lines = true;
    const nlohmann::json d = describe_program(p, opt);
    if (!p.error().empty()) {
      std::fprintf(stderr, "strata: %s\n", p.error().c_str());
      status = kExitBadInput;
    } else {
      const std::string out = json_out ? d.dump(1) + "\n" : describe_text(d);
      std::fwrite(out.data(), 1, out.size(), stdout);
      status = p.exit_status() < 0 ? kExitFailure : p.exit_status();
    }
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "strata: %s\n", e.what());
    status = kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata cuda run --describe: %s: %s\n", prog.c_str(), e.what());
    status = kExitFailure;
  }
  bstore_free(&golden);
  return status;
}

// `strata sweep|plot|report ...`: the experiment tools are Python programs in tools/ (docs/experiments.md);
// exec them with the rest of the command line, telling them which strata to run (STRATA_EXE).
// The interpreter is Debian's /usr/bin/python3 (it has python3-matplotlib), or $STRATA_PYTHON.
static int exec_tool(const char* tool, int argc, char** argv, int first = 2) {
  const char* py = std::getenv("STRATA_PYTHON");
  if (!py || !*py) py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  const std::string script = std::string(STRATA_SOURCE_DIR) + "/tools/" + tool + ".py";
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  if (!ec) setenv("STRATA_EXE", self.c_str(), 1);
  setenv("STRATA_CUDA_RUNTIME", STRATA_CUDA_RUNTIME, 1);  // the runtime `strata cuda build` links into programs
  std::vector<char*> args{const_cast<char*>(py), const_cast<char*>(script.c_str())};
  for (int i = first; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp(py, args.data());
  std::fprintf(stderr, "strata %s: cannot run %s %s: %s\n", tool, py, script.c_str(), std::strerror(errno));
  return kExitFailure;
}

int sc_main(int argc, char** argv) {
  // Large blocks (tag arrays, policy state, queues sized by the config) always from fresh mmap'd
  // pages: glibc otherwise raises its mmap threshold after the first large free and serves later
  // large callocs from the heap, zeroing them byte by byte (62 M instructions and their RSS for the
  // 40 MiB L2 of a full-scale A100, docs/performance.md). Nothing allocates per request.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  if (argc >= 2) {
    for (const char* tool : {"sweep", "plot", "report"})
      if (std::strcmp(argv[1], tool) == 0) return exec_tool(tool, argc, argv);
    // `strata cuda build ...`: tools/cuda_build.py (docs/cuda.md).
    if (std::strcmp(argv[1], "cuda") == 0) {
      if (argc >= 3 && std::strcmp(argv[2], "build") == 0) return exec_tool("cuda_build", argc, argv, 3);
      if (argc < 3 || (std::strcmp(argv[2], "run") != 0 && std::strcmp(argv[2], "--help") != 0 &&
                       std::strcmp(argv[2], "-h") != 0)) {
        const std::string got = argc >= 3 ? "'" + std::string(argv[2]) + "'" : "nothing";
        std::fprintf(stderr, "strata cuda: expected a subcommand (build, run), got %s%s (see docs/cuda.md)\n",
                     got.c_str(), argc >= 3 ? did_you_mean(argv[2], {"build", "run"}).c_str() : "");
        return kExitBadInput;
      }
    }
    // strata takes no positional argument: a first word that is not an option is a subcommand.
    const std::vector<std::string> subs{"memtrace", "sweep", "plot", "report", "cuda"};
    if (argv[1][0] != '-' && std::find(subs.begin(), subs.end(), argv[1]) == subs.end()) {
      std::fprintf(stderr, "strata: '%s': expected a subcommand (memtrace, sweep, plot, report, cuda) or an option%s "
                   "(see strata --help)\n", argv[1], did_you_mean(argv[1], subs).c_str());
      return kExitBadInput;
    }
  }
  // SystemC prints a banner and deprecation notes on stdout/stderr; keep ours clean.
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return cli_main(argc, argv);
}
