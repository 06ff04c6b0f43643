// The trace writer. The layout it writes is docs/trace-format.md (moirai/trace/format.h).
#include "moirai/instrument/trace_recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sched.h>
#include <hwloc.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "moirai/instrument/clock.h"
#include "moirai/trace/format.h"
#include "moirai/trace/chunk_checksum.h"
#include "counter_set.h"
#include "machine_load.h"
#include "os_time.h"
#include "spsc_ring.h"

namespace moirai::instrument {

namespace fmt = moirai::trace;

namespace {

constexpr std::size_t kRing = 8;            // buffers in flight per core
constexpr std::size_t kBuffersPerCore = 6;  // allocated per core at most, then cores wait
constexpr std::size_t kBufferBudget = 32u << 20;  // first buffers of all cores together, bytes
constexpr std::size_t kMinBufferBytes = 16u << 10;  // the budget never cuts a buffer below this
constexpr std::size_t kDefinitionsBytes = 256u << 10;  // definitions batch reserved on real cores

constexpr std::size_t kMinOptionBufferBytes = 1024;  // the smallest RecorderOptions::buffer_bytes
constexpr auto kWriterTick = std::chrono::milliseconds(20);  // the writer's longest sleep

// A Buffer is appended to by one core and written out by the writer thread, in pieces while
// the core still appends (flush by time) and the rest once the core hands it over full. Only
// the writer resets a buffer, after writing all of it, before it goes back to the empty ring.
struct Buffer {
  std::vector<unsigned char> bytes;
  std::size_t used = 0;       // the core's: bytes appended
  std::uint64_t records = 0;  // the core's: records appended
  // How far the core got, published after every append with one release store so the writer
  // may write those bytes while the core goes on: bytes in the low 32 bits, records above.
  std::atomic<std::uint64_t> committed{0};
  // The core's count of buffers it took before this one. The writer writes part of a buffer
  // only when every earlier buffer of the core is written, which keeps each core's records in
  // time order across chunks.
  std::atomic<std::uint64_t> index{0};
  std::size_t written = 0;            // the writer's: bytes already in the file
  std::uint64_t written_records = 0;  // the writer's: records already in the file
};

constexpr std::uint64_t pack_committed(std::size_t bytes, std::uint64_t records) noexcept {
  return static_cast<std::uint64_t>(bytes) | records << 32;
}

struct SiteKey {
  const char* file;
  std::uint32_t line;
  bool operator==(const SiteKey&) const = default;
};
struct SiteKeyHash {
  std::size_t operator()(const SiteKey& key) const noexcept {
    return std::hash<const void*>()(key.file) ^ (static_cast<std::size_t>(key.line) * 0x9E3779B97F4A7C15ull);
  }
};

// CoreRecorder is one core's recording state; only that core's thread touches it, but for the
// rings, `current` and the buffer count, which it shares with the writer thread.
struct alignas(64) CoreRecorder {
  Buffer* buffer = nullptr;
  std::atomic<std::size_t> buffers{0};  // allocated for this core (by it, or ahead by the writer)
  std::uint64_t taken = 0;            // buffers this core began to fill (the next one's index)
  std::atomic<Buffer*> current{nullptr};  // `buffer`, for the writer to read
  std::uint64_t written_buffers = 0;  // the writer's: buffers of this core written whole
  detail::SpscRing<Buffer, kRing> full;   // core -> writer
  detail::SpscRing<Buffer, kRing> empty;  // writer -> core
  unsigned char unit[fmt::unit_record_size(fmt::kMaxCounters)] = {};  // the unit being built
  std::uint64_t open_since = 0;       // start of the span no record covers yet
  std::uint64_t idle_since = 0;
  detail::CounterSet::Thread counter_thread;
  long long counters_begin[fmt::kMaxCounters] = {};
  long long counters_end[fmt::kMaxCounters] = {};
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> sites;
  // A direct-mapped cache in front of `sites`: a loop's few call sites hit it every unit.
  struct SiteSlot { const char* file = nullptr; std::uint32_t line = 0; std::uint32_t id = 0; };
  SiteSlot recent_sites[64];
  std::unordered_map<const char*, std::uint32_t> event_names;
  bool skipping = false;              // the current unit is not recorded (paused)
  std::uint64_t lock_wait_since = 0;
  std::uint64_t chore_since = 0;
  std::uint64_t paused_since = 0;     // start of the span this core did not record
  std::atomic<std::uint64_t> writer_waits{0};  // the core's count; the writer reads it on a signal
  std::uint64_t stopped_at = 0;       // clock reading at core_stop (simulated runs)
  detail::OsTimeProbe os;             // what the OS took from each unit (real cores)
  detail::OsTaken os_taken;           // of the unit being built
  bool taken_pending = false;         // `os_taken` belongs to the unit being built
  std::uint64_t declared = 0;         // work the unit being built declared (charge_work)
  int cpu = -1;                       // the CPU this core's thread ran on at its start
  bool moved = false;                 // ... and it ran elsewhere at its stop (not pinned)
  std::uint64_t thread_cpu_start = 0, thread_cpu_stop = 0, wall_start = 0, wall_stop = 0;
};

fmt::UnitRecord& unit_of(CoreRecorder& core) {
  return *reinterpret_cast<fmt::UnitRecord*>(core.unit);
}

// The signals that ask a process to stop and that the recorder turns into a written trace.
constexpr int kStopSignals[] = {SIGINT, SIGTERM};

// The stop signal caught, 0 before one is. A signal handler may do little more than this store
// (it is async-signal-safe because the atomic is lock-free); the writer thread does the rest.
std::atomic<int> caught_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_stop_signal(int signal) { caught_signal.store(signal, std::memory_order_relaxed); }

const char* signal_name(int signal) { return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal"; }

// key_value_line adds one "key=value" line of a metadata or closing chunk; a line break in the
// value would start a new line, so it becomes a space.
void key_value_line(std::string& text, const std::string& key, std::string value) {
  std::replace(value.begin(), value.end(), '\n', ' ');
  text += key + "=" + value + "\n";
}

}  // namespace

struct TraceRecorder::Impl {
  RecorderOptions options;
  detail::CounterSet counter_set;
  int fd = -1;
  std::size_t unit_size = sizeof(fmt::UnitRecord);
  std::vector<CoreRecorder> cores;
  bool started = false;
  bool finished = false;
  RecorderStats stats;  // written by the writer thread (and finish)
  std::uint64_t sequence = 0;
  // The file's bytes up to the end of its last complete chunk; once a write failed (a full disk,
  // a file-size limit), `stats.stopped` says why and nothing more is written.
  std::uint64_t whole_bytes = 0;
  bool catching_xfsz = false;  // this recorder ignores SIGXFSZ while it records

  std::mutex definitions_mutex;
  std::vector<unsigned char> definitions;
  std::vector<unsigned char> definitions_out;  // the writer's: the batch it writes, kept for reuse
  std::map<std::pair<const char*, std::uint32_t>, std::uint32_t> site_ids;
  std::map<std::string, std::uint32_t> event_name_ids;
  std::atomic<bool> paused{false};

  std::mutex writer_mutex;  // guards the file and the writer's wake-up
  std::condition_variable writer_wake;
  std::atomic<bool> writer_stop{false};
  // A core is about to run out of empty buffers: the writer drains now rather than at its next
  // pass by time.
  std::atomic<bool> urgent{false};
  std::thread writer;
  bool catching[std::size(kStopSignals)] = {};  // this recorder installed on_stop_signal

  const TimeSource* time = nullptr;  // a simulated machine's clock, else the host's
  bool os_on = false;                // measuring what the OS took (real cores, RecorderOptions)
  std::string os_method;             // how, or why not
  std::vector<detail::CpuLoad> loads_at_start;

  explicit Impl(RecorderOptions o) : options(std::move(o)), counter_set(options.counters) {}

  // now reads the clock the run keeps for `core`.
  std::uint64_t now(CoreId core) const noexcept { return Clock::now(time, core); }

  void write_all(const void* data, std::size_t size);
  bool write_chunk(fmt::ChunkType type, std::uint16_t core, const void* payload, std::size_t size);
  void stop_writing(const std::string& reason);
  void write_metadata(const std::string& language, std::size_t core_count, double unit_cost_ns);
  void os_closing_lines(std::vector<std::pair<std::string, std::string>>& lines) const;
  double measure_unit_cost();
  template <class Line>
  void write_topology(Line& line);
  void define(fmt::DefinitionType type, std::uint32_t a, std::uint64_t b, std::uint64_t c,
              const std::string& text);
  std::uint32_t site_id(CoreRecorder& core, const CallSite& site);
  void append(CoreId core, const void* record, std::size_t size);
  void hand_off(CoreId core);
  Buffer* new_buffer(CoreRecorder& core);
  void refill_or_drain(std::size_t core);
  void wake_writer_now() {
    urgent.store(true, std::memory_order_release);
    writer_wake.notify_one();
  }
  void take(CoreRecorder& core, Buffer* buffer);
  void write_committed(std::size_t core, Buffer& buffer);
  void write_current(std::size_t core);
  void drain_full(std::size_t core);
  void write_definitions();
  void flush_all();
  void writer_loop();
  std::vector<std::pair<std::string, std::string>> closing_lines(int signal);
  void write_ending(int signal, std::uint64_t end_time);
  void catch_stop_signals();
  void release_stop_signals();
  void ignore_file_size_signal();
  void restore_file_size_signal();
  int stop_signal() const;
  [[noreturn]] void end_by_signal(int signal, std::uint64_t end_time);
};

// ---------------------------------------------------------------------------------------------
// File and chunks
// ---------------------------------------------------------------------------------------------

void TraceRecorder::Impl::write_all(const void* data, std::size_t size) {
  // write(2), not stdio: a chunk is in the kernel once this returns, so it survives a crash.
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("trace file " + options.path + ": write failed: " +
                               std::strerror(errno));
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
    stats.bytes += static_cast<std::uint64_t>(written);
  }
}

// write_chunk writes one chunk; false when the trace is no longer written (a write failed, now
// or before: the recording stopped, and the chunk is let go).
bool TraceRecorder::Impl::write_chunk(fmt::ChunkType type, std::uint16_t core, const void* payload,
                                      std::size_t size) {
  if (!stats.stopped.empty()) return false;
  fmt::ChunkHeader header{};
  header.magic = fmt::kChunkMagic;
  header.type = static_cast<std::uint16_t>(type);
  header.core = core;
  header.payload_size = static_cast<std::uint32_t>(size);
  header.payload_crc32 = fmt::chunk_checksum(header, payload, size);
  header.sequence = sequence++;
  try {
    write_all(&header, sizeof header);
    write_all(payload, size);
  } catch (const std::runtime_error& error) {
    stop_writing(error.what());
    return false;
  }
  ++stats.chunks;
  whole_bytes = stats.bytes;
  return true;
}

// stop_writing ends the recording when the trace can no longer be written (ENOSPC, EFBIG, EIO):
// the program goes on unrecorded rather than being aborted. It says so once on stderr, cuts the
// file back to its last complete chunk and, if the room that frees allows, adds a closing chunk
// saying why, without an end chunk: the trace reads as cut, and the reader's `cut` gives the reason.
void TraceRecorder::Impl::stop_writing(const std::string& reason) {
  stats.stopped = reason;
  const std::string message = "moirai: recording stopped: " + reason +
                              "; the program goes on unrecorded, and the trace holds what was written before "
                              "(it reads as cut)\n";
  [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, message.data(), message.size());
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return;
  if (::ftruncate(fd, static_cast<off_t>(whole_bytes)) != 0 || ::lseek(fd, static_cast<off_t>(whole_bytes), SEEK_SET) < 0) return;
  stats.bytes = whole_bytes;
  if (stats.chunks == 0) return;  // a closing chunk may only follow the metadata, the first chunk
  std::string text;
  key_value_line(text, "recording_stopped", reason);
  key_value_line(text, "end_reason", "the recorder stopped writing mid-run: " + reason);
  fmt::ChunkHeader header{};
  header.magic = fmt::kChunkMagic;
  header.type = static_cast<std::uint16_t>(fmt::ChunkType::closing);
  header.core = fmt::kNoCore;
  header.payload_size = static_cast<std::uint32_t>(text.size());
  header.payload_crc32 = fmt::chunk_checksum(header, text.data(), text.size());
  header.sequence = stats.chunks;
  try {
    write_all(&header, sizeof header);
    write_all(text.data(), text.size());
  } catch (const std::runtime_error&) {
    if (::ftruncate(fd, static_cast<off_t>(whole_bytes)) == 0) stats.bytes = whole_bytes;  // no room even for that
  }
}

void TraceRecorder::Impl::write_metadata(const std::string& language, std::size_t core_count,
                                         double unit_cost_ns) {
  const ClockInfo host_clock = Clock::info();
  const ClockInfo clock = time != nullptr ? ClockInfo{time->source(), time->hz()} : host_clock;
  std::string text;
  auto line = [&text](const std::string& key, const std::string& value) { key_value_line(text, key, value); };
  line("format", "moirai-trace");
  line("language", language);
  line("cores", std::to_string(core_count));
  line("clock_source", clock.source);
  line("clock_hz", std::to_string(clock.hz));
  line("start_unix_ns", std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                           .count()));
  line("start_ticks", std::to_string(time != nullptr ? 0 : Clock::now()));
  line("command_line", options.command_line);
  std::string present, backends, notes, missing;
  for (const CounterStatus& counter : counter_set.status()) {
    if (counter.present) {
      present += (present.empty() ? "" : ",") + counter.name;
      backends += (backends.empty() ? "" : ",") + counter.backend;
      if (!counter.note.empty()) notes += (notes.empty() ? "" : ";") + counter.name + ": " + counter.note;
    } else {
      std::string reason = counter.reason;  // ';' separates the entries
      std::replace(reason.begin(), reason.end(), ';', ',');
      missing += (missing.empty() ? "" : ";") + counter.name + ": " + reason;
    }
  }
  line("counters", present);
  line("counter_backends", backends);
  line("counter_notes", notes);
  line("counter_read", counter_set.read_method());
  line("missing_counters", missing);
  line("unit_record_bytes", std::to_string(unit_size));
  line("os_time", os_method);
  line("unit_record_cost_ns", std::to_string(unit_cost_ns));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  line("host", host);
  if (time != nullptr) {
    for (const auto& [key, value] : time->header()) line(key, value);
  } else {
    line("machine", "real");
    write_topology(line);
  }
  std::lock_guard<std::mutex> hold(writer_mutex);
  write_chunk(fmt::ChunkType::metadata, fmt::kNoCore, text.data(), text.size());
}

// measure_unit_cost times what recording adds to one unit, through the same code the run uses:
// the clock readings of a whole life-line, two reads of the counters, the OS-time probe and the
// copy into a buffer. The report shows it as the probe's own overhead kind. (A loop of clock
// readings alone, as before, stated 2-3 times less than the probe-effect benchmark measured.)
double TraceRecorder::Impl::measure_unit_cost() {
  detail::CounterSet::Thread counters_here;
  const bool counting = counter_set.present() > 0 && counter_set.start(counters_here).empty();
  detail::OsTimeProbe os;
  // Its units are short, as most are: a unit of OsTimeProbe::kMeasuredNs or more also pays one
  // read of the thread's CPU time (docs/performance.md has both costs).
  if (os_on) os.start(Clock::info().hz, Clock::now());
  std::vector<unsigned char> scratch(unit_size * 64);
  long long values[fmt::kMaxCounters] = {};
  // At most 2000 units or about 2 ms, whichever comes first: system calls on a busy virtual
  // machine can take microseconds each.
  constexpr int kMaxSamples = 2000;
  const std::uint64_t budget = static_cast<std::uint64_t>(Clock::info().hz * 2e-3);
  const std::uint64_t t0 = Clock::now();
  int samples = 0;
  while (samples < kMaxSamples && (samples < 16 || Clock::now() - t0 < budget)) {
    fmt::UnitRecord probe{};
    probe.assign = Clock::now();
    probe.begin = Clock::now();
    if (os_on) os.begin(probe.begin);
    if (counting) counter_set.read(counters_here, values);
    if (counting) counter_set.read(counters_here, values);
    probe.end = Clock::now();
    detail::OsTaken taken;
    if (os_on) os.end(probe.end, taken);
    probe.locked = probe.end;
    probe.handler = Clock::now();
    probe.handler_end = Clock::now();
    std::memcpy(scratch.data() + (static_cast<std::size_t>(samples) % 64) * unit_size, &probe, sizeof probe);
    ++samples;
  }
  const double per_unit_ticks = static_cast<double>(Clock::now() - t0) / samples;
  if (counting) counter_set.stop(counters_here);
  volatile unsigned char keep = scratch[0];  // the copies must not be optimised away
  (void)keep;
  return per_unit_ticks * 1e9 / Clock::info().hz;
}

// os_closing_lines says, per core, what else its CPU did during the run: the other processes'
// time there (the CPU's busy time less this core's thread) and the hypervisor's steal.
void TraceRecorder::Impl::os_closing_lines(std::vector<std::pair<std::string, std::string>>& lines) const {
  if (!os_on) return;
  const std::vector<detail::CpuLoad> loads_at_end = detail::read_cpu_loads();
  const double ns_per_tick = 1e9 / Clock::info().hz;
  std::string cpus, threads, walls, others, steals, moved;
  for (std::size_t k = 0; k < cores.size(); ++k) {
    const CoreRecorder& core = cores[k];
    const char* comma = k ? "," : "";
    const std::uint64_t thread = core.thread_cpu_stop - core.thread_cpu_start;
    std::uint64_t other = 0, steal = 0;
    if (core.cpu >= 0 && static_cast<std::size_t>(core.cpu) < std::min(loads_at_start.size(), loads_at_end.size())) {
      const detail::CpuLoad& a = loads_at_start[static_cast<std::size_t>(core.cpu)];
      const detail::CpuLoad& b = loads_at_end[static_cast<std::size_t>(core.cpu)];
      const std::uint64_t busy = b.busy_ns > a.busy_ns ? b.busy_ns - a.busy_ns : 0;
      other = busy > thread ? busy - thread : 0;
      steal = b.steal_ns > a.steal_ns ? b.steal_ns - a.steal_ns : 0;
    }
    cpus += comma + std::to_string(core.cpu);
    threads += comma + std::to_string(thread);
    walls += comma + std::to_string(static_cast<std::uint64_t>(static_cast<double>(core.wall_stop - core.wall_start) * ns_per_tick));
    others += comma + std::to_string(other);
    steals += comma + std::to_string(steal);
    if (core.moved) moved += (moved.empty() ? "" : ",") + std::to_string(k);
  }
  lines.emplace_back("os_core_cpu", cpus);
  lines.emplace_back("os_core_wall_ns", walls);
  lines.emplace_back("os_core_thread_cpu_ns", threads);
  lines.emplace_back("os_core_other_busy_ns", others);
  lines.emplace_back("os_core_steal_ns", steals);
  lines.emplace_back("os_unpinned_cores", moved);
}

template <class Line>
void TraceRecorder::Impl::write_topology(Line& line) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) == 0 && hwloc_topology_load(topology) == 0) {
    line("topology", "packages:" +
                         std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE)) +
                         " cores:" +
                         std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE)) +
                         " pus:" + std::to_string(hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU)));
  }
  if (topology != nullptr) hwloc_topology_destroy(topology);
}

void TraceRecorder::Impl::define(fmt::DefinitionType type, std::uint32_t a, std::uint64_t b,
                                 std::uint64_t c, const std::string& text) {
  fmt::Definition entry{};
  entry.type = static_cast<std::uint16_t>(type);
  entry.text_size = static_cast<std::uint16_t>(std::min<std::size_t>(text.size(), 0xFFFF));
  entry.a = a;
  entry.b = b;
  entry.c = c;
  const std::size_t padded = (entry.text_size + 7u) & ~std::size_t{7};
  const std::size_t at = definitions.size();
  definitions.resize(at + sizeof entry + padded, 0);
  std::memcpy(definitions.data() + at, &entry, sizeof entry);
  std::memcpy(definitions.data() + at + sizeof entry, text.data(), entry.text_size);
}

std::uint32_t TraceRecorder::Impl::site_id(CoreRecorder& core, const CallSite& site) {
  auto& slot = core.recent_sites[(reinterpret_cast<std::uintptr_t>(site.file) ^ site.line * 0x9E37u) & 63];
  if (slot.file == site.file && slot.line == site.line) return slot.id;
  const SiteKey key{site.file, site.line};
  auto cached = core.sites.find(key);
  if (cached != core.sites.end()) {
    slot = {site.file, site.line, cached->second};
    return cached->second;
  }
  std::lock_guard<std::mutex> hold(definitions_mutex);
  auto [entry, added] = site_ids.try_emplace({site.file, site.line},
                                             static_cast<std::uint32_t>(site_ids.size() + 1));
  if (added) {
    define(fmt::DefinitionType::call_site, entry->second, site.line, 0,
           std::string(site.file) + '\0' + site.function);
  }
  core.sites.emplace(key, entry->second);
  slot = {site.file, site.line, entry->second};
  return entry->second;
}

// ---------------------------------------------------------------------------------------------
// Per-core buffers and the writer
// ---------------------------------------------------------------------------------------------

void TraceRecorder::Impl::append(CoreId core_id, const void* record, std::size_t size) {
  CoreRecorder& core = cores[core_id];
  if (core.buffer->used + size > core.buffer->bytes.size()) hand_off(core_id);
  Buffer& buffer = *core.buffer;
  std::memcpy(buffer.bytes.data() + buffer.used, record, size);
  buffer.used += size;
  ++buffer.records;
  // The only cost flushing by time adds here: a release store, a plain store on x86.
  buffer.committed.store(pack_committed(buffer.used, buffer.records), std::memory_order_release);
}

// take makes `buffer` the one the core appends to, numbered after the core's previous one.
void TraceRecorder::Impl::take(CoreRecorder& core, Buffer* buffer) {
  buffer->index.store(core.taken++, std::memory_order_relaxed);
  core.buffer = buffer;
  core.current.store(buffer, std::memory_order_release);  // publishes the index with it
}

// new_buffer allocates (and touches) one more buffer for `core` while it has fewer than
// kBuffersPerCore; nullptr once it has them all. The core or the writer may call it.
Buffer* TraceRecorder::Impl::new_buffer(CoreRecorder& core) {
  std::size_t had = core.buffers.load(std::memory_order_relaxed);
  do {
    if (had >= kBuffersPerCore) return nullptr;
  } while (!core.buffers.compare_exchange_weak(had, had + 1, std::memory_order_relaxed));
  auto* buffer = new Buffer;
  buffer->bytes.resize(options.buffer_bytes);
  return buffer;
}

// refill_or_drain runs when a core woke the writer: a real core that has no empty buffer left
// and may have more gets one more (so that it does not map it itself); otherwise, when the core
// is out of empty buffers or has all it may have, its full ones are written and given back.
// Writer only.
void TraceRecorder::Impl::refill_or_drain(std::size_t core) {
  CoreRecorder& state = cores[core];
  const bool out_of_empty = state.empty.empty();
  if (out_of_empty && time == nullptr) {
    if (Buffer* spare = new_buffer(state)) {
      state.empty.push(spare);
      return;
    }
  }
  if (!out_of_empty && state.buffers.load(std::memory_order_relaxed) < kBuffersPerCore) return;
  write_definitions();  // before any record that names them
  drain_full(core);
}

// hand_off gives the core's full buffer to the writer and takes an empty one, waiting (and
// recording the wait) rather than dropping anything when the writer is behind.
void TraceRecorder::Impl::hand_off(CoreId core_id) {
  CoreRecorder& core = cores[core_id];
  std::uint64_t waited_since = 0;
  while (!core.full.push(core.buffer)) {
    if (waited_since == 0) waited_since = now(core_id);
    wake_writer_now();
    std::this_thread::yield();
  }
  Buffer* next = core.empty.pop();
  if (next == nullptr) next = new_buffer(core);
  while (next == nullptr) {
    if (waited_since == 0) waited_since = now(core_id);
    wake_writer_now();
    std::this_thread::yield();
    next = core.empty.pop();
  }
  take(core, next);
  // While the core may still get more buffers, the writer is woken only when it has no empty
  // one left to go on to: on real cores the writer then maps and touches the next one, away
  // from this core's path (64 page faults for a 256 KiB buffer took 0.1-0.2 ms here, often
  // under the runtime lock). Full buffers wait for its pass by time (half the flush interval at
  // most), so a run that fits in the buffers is written after it ends rather than by a writer
  // thread that takes one of a 2-core machine's cores mid-run. Once the core has all its
  // buffers, the writer writes each as it comes, so that the core does not wait for a burst.
  if (core.empty.empty() || core.buffers.load(std::memory_order_relaxed) >= kBuffersPerCore) wake_writer_now();
  // A simulated core's clock stands still while the host waits: that wait is no part of the run.
  const std::uint64_t waited_until = waited_since != 0 ? now(core_id) : 0;
  if (waited_until > waited_since) {
    core.writer_waits.fetch_add(1, std::memory_order_relaxed);
    fmt::SpanRecord wait{static_cast<std::uint16_t>(fmt::RecordKind::writer_wait), 0, 0,
                         waited_since, waited_until};
    std::memcpy(core.buffer->bytes.data(), &wait, sizeof wait);
    core.buffer->used = sizeof wait;
    core.buffer->records = 1;
    core.buffer->committed.store(pack_committed(sizeof wait, 1), std::memory_order_release);
  }
}

// write_committed writes what the core committed to `buffer` since the writer last wrote from
// it, as one events chunk. Writer only.
void TraceRecorder::Impl::write_committed(std::size_t core, Buffer& buffer) {
  const std::uint64_t committed = buffer.committed.load(std::memory_order_acquire);
  const std::size_t bytes = static_cast<std::size_t>(committed & 0xFFFFFFFFu);
  const std::uint64_t records = committed >> 32;
  if (bytes <= buffer.written) return;
  if (write_chunk(fmt::ChunkType::events, static_cast<std::uint16_t>(core), buffer.bytes.data() + buffer.written,
                  bytes - buffer.written)) {
    stats.records += records - buffer.written_records;
  }
  buffer.written = bytes;
  buffer.written_records = records;
}

// write_current writes what the core appended so far to the buffer it is filling, without its
// help (it may sit in a long unit or idle for seconds). Only when every buffer the core filled
// before is written: otherwise that buffer's rest comes first, through drain_full.
//
// Why this is safe while the core appends: `current` may be stale, but only the writer resets
// a buffer, and it does so after counting it in written_buffers; so a buffer whose index equals
// written_buffers is one the writer has not reset in this life, and its bytes up to the
// committed count are final.
void TraceRecorder::Impl::write_current(std::size_t core) {
  Buffer* buffer = cores[core].current.load(std::memory_order_acquire);
  if (buffer != nullptr && buffer->index.load(std::memory_order_relaxed) == cores[core].written_buffers) {
    write_committed(core, *buffer);
  }
}

// drain_full writes the rest of every buffer the core handed over, oldest first, then resets
// it and gives it back.
void TraceRecorder::Impl::drain_full(std::size_t core) {
  CoreRecorder& state = cores[core];
  while (Buffer* full = state.full.pop()) {
    write_committed(core, *full);
    full->used = 0;
    full->records = 0;
    full->written = 0;
    full->written_records = 0;
    full->committed.store(0, std::memory_order_relaxed);
    ++state.written_buffers;
    state.empty.push(full);
  }
}

void TraceRecorder::Impl::write_definitions() {
  {
    std::lock_guard<std::mutex> hold(definitions_mutex);
    definitions_out.swap(definitions);
  }
  if (!definitions_out.empty()) {
    write_chunk(fmt::ChunkType::definitions, fmt::kNoCore, definitions_out.data(), definitions_out.size());
  }
  // Emptied, not freed: the cores define into it after the next swap without growing it anew
  // (a vector that grows under a handler page-faults there, with the runtime lock held).
  definitions_out.clear();
}

// flush_all writes everything every core has committed, and the definitions. Definitions go
// first: a record's VP and call site are defined before it is appended, so every record
// written here finds its names in the file, even if the run dies right after.
void TraceRecorder::Impl::flush_all() {
  write_definitions();
  for (std::size_t k = 0; k < cores.size(); ++k) {
    write_current(k);  // the part of the oldest unwritten buffer the core still fills
    drain_full(k);
    write_current(k);  // the buffer the core went on to, now that those before it are written
  }
}

void TraceRecorder::Impl::writer_loop() {
  using Steady = std::chrono::steady_clock;
  // Every half interval, so that a record is in the file within the interval even when the
  // writer is woken late (a loaded machine) or is busy writing when the pass is due.
  // (0: at every wake; never more often than every half millisecond, which would only spin.)
  const std::chrono::microseconds period =
      options.flush_interval.count() == 0
          ? std::chrono::microseconds(kWriterTick)
          : std::max(std::chrono::microseconds(500),
                     std::chrono::duration_cast<std::chrono::microseconds>(options.flush_interval) / 2);
  auto next_flush = Steady::now() + period;
  std::unique_lock<std::mutex> hold(writer_mutex);
  while (!writer_stop.load(std::memory_order_acquire)) {
    writer_wake.wait_until(hold, std::min(Steady::now() + kWriterTick, next_flush), [this] {
      return urgent.load(std::memory_order_acquire) || writer_stop.load();
    });
    urgent.store(false, std::memory_order_relaxed);
    if (const int signal = stop_signal()) end_by_signal(signal, time != nullptr ? 0 : Clock::now());
    if (Steady::now() >= next_flush) {
      flush_all();
      next_flush = Steady::now() + period;
    } else {
      for (std::size_t k = 0; k < cores.size(); ++k) refill_or_drain(k);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The end of a recording: closing chunk, end chunk, stop signals
// ---------------------------------------------------------------------------------------------

// closing_lines are the closing chunk's "key=value" lines: what is known only when the
// recording ends. Every such key is added here. On a signal this runs on the writer thread
// while the cores still run, so what it reads must be safe to read from another thread.
std::vector<std::pair<std::string, std::string>> TraceRecorder::Impl::closing_lines(int signal) {
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("interrupted", signal != 0 ? signal_name(signal) : "no");
  lines.emplace_back("end_reason", signal != 0 ? std::string(signal_name(signal)) +
                                                      " asked the process to stop mid-run; every record the cores "
                                                      "had committed was written, then the signal ended the process"
                                                : "the program finished the recording");
  // The cores' OS totals are complete only once every core has stopped.
  if (signal == 0) os_closing_lines(lines);
  return lines;
}

// write_ending writes the closing and end chunks and makes them durable.
void TraceRecorder::Impl::write_ending(int signal, std::uint64_t end_time) {
  if (started) {  // a closing chunk may only follow the metadata, written by run_start
    std::string text;
    for (const auto& [key, value] : closing_lines(signal)) key_value_line(text, key, value);
    write_chunk(fmt::ChunkType::closing, fmt::kNoCore, text.data(), text.size());
  }
  std::uint64_t waits = 0;
  for (const CoreRecorder& core : cores) waits += core.writer_waits.load(std::memory_order_relaxed);
  stats.writer_waits = waits;
  fmt::EndPayload end{stats.chunks, stats.records, 0, waits, end_time};
  write_chunk(fmt::ChunkType::end, fmt::kNoCore, &end, sizeof end);
  ::fsync(fd);
}

// catch_stop_signals installs on_stop_signal for each stop signal whose action is the default:
// an application's own handler, or an ignored signal, stays as it is.
void TraceRecorder::Impl::catch_stop_signals() {
  bool cleared = false;
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    struct sigaction current {};
    if (::sigaction(kStopSignals[i], nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction ours {};
    ours.sa_handler = on_stop_signal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_RESTART;  // the application's system calls go on as if nothing happened
    if (!cleared) caught_signal.store(0, std::memory_order_relaxed);  // a finished recorder's signal is no concern here
    cleared = true;
    catching[i] = ::sigaction(kStopSignals[i], &ours, nullptr) == 0;
  }
}

// ignore_file_size_signal makes a file-size limit (ulimit -f) fail the trace's writes with EFBIG,
// which stop the recording, instead of letting SIGXFSZ end the process; unless the application
// set the signal's action itself.
void TraceRecorder::Impl::ignore_file_size_signal() {
  struct sigaction current {};
  if (::sigaction(SIGXFSZ, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) return;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  catching_xfsz = ::sigaction(SIGXFSZ, &ignore, nullptr) == 0;
}

// restore_file_size_signal gives SIGXFSZ back its default action, unless the application changed it since.
void TraceRecorder::Impl::restore_file_size_signal() {
  if (!catching_xfsz) return;
  catching_xfsz = false;
  struct sigaction current {};
  if (::sigaction(SIGXFSZ, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN) {
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    ::sigaction(SIGXFSZ, &fallback, nullptr);
  }
}

// release_stop_signals gives the signals this recorder caught back their default action,
// unless the application installed a handler of its own since.
void TraceRecorder::Impl::release_stop_signals() {
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    if (!catching[i]) continue;
    catching[i] = false;
    struct sigaction current {};
    if (::sigaction(kStopSignals[i], nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == on_stop_signal) {
      struct sigaction fallback {};
      fallback.sa_handler = SIG_DFL;
      sigemptyset(&fallback.sa_mask);
      ::sigaction(kStopSignals[i], &fallback, nullptr);
    }
  }
}

// stop_signal is the stop signal caught by this recorder's handler, 0 if none.
int TraceRecorder::Impl::stop_signal() const {
  const int signal = caught_signal.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
    if (catching[i] && kStopSignals[i] == signal) return signal;
  }
  return 0;
}

// end_by_signal finishes the trace as interrupted and ends the process as `signal` would have
// (exit status 128 + signal from a shell). The cores keep running meanwhile; what they commit
// after the flush is lost with the process, as it would be without the recorder.
void TraceRecorder::Impl::end_by_signal(int signal, std::uint64_t end_time) {
  try {
    flush_all();
    write_ending(signal, end_time);
  } catch (const std::exception& error) {
    // A trace that cannot be written is said so; the signal still ends the process.
    const std::string message = std::string("moirai: the interrupted trace could not be finished: ") + error.what() + "\n";
    [[maybe_unused]] const ssize_t said = ::write(STDERR_FILENO, message.data(), message.size());
  }
  release_stop_signals();
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(signal);
  std::_Exit(128 + signal);  // not reached: the default action of SIGINT and SIGTERM ends the process
}

// ---------------------------------------------------------------------------------------------
// TraceRecorder
// ---------------------------------------------------------------------------------------------

TraceRecorder::TraceRecorder(RecorderOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& rec = *impl_;
  if (rec.options.counters.size() > fmt::kMaxCounters) {
    throw std::runtime_error("at most " + std::to_string(fmt::kMaxCounters) +
                             " counters can be recorded, " +
                             std::to_string(rec.options.counters.size()) + " were asked for");
  }
  // A buffer becomes at most one chunk, and its committed byte count must fit in 32 bits; it
  // must hold a writer-wait record and the largest unit record together.
  if (rec.options.buffer_bytes < kMinOptionBufferBytes || rec.options.buffer_bytes > fmt::kMaxChunkPayload) {
    throw std::runtime_error("trace buffer of " + std::to_string(rec.options.buffer_bytes) + " bytes: must be " +
                             std::to_string(kMinOptionBufferBytes) + " to " + std::to_string(fmt::kMaxChunkPayload) +
                             " bytes");
  }
  if (rec.options.flush_interval.count() < 0) {
    throw std::runtime_error("trace flush interval of " + std::to_string(rec.options.flush_interval.count()) +
                             " ms: must not be negative");
  }
  rec.fd = ::open(rec.options.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (rec.fd < 0) {
    throw std::runtime_error("cannot write trace file " + rec.options.path + ": " +
                             std::strerror(errno));
  }
  rec.unit_size = fmt::unit_record_size(rec.counter_set.present());
  fmt::FileHeader header{};
  std::memcpy(header.magic, fmt::kMagic, sizeof header.magic);
  header.version_major = fmt::kVersionMajor;
  header.version_minor = fmt::kVersionMinor;
  rec.write_all(&header, sizeof header);
  rec.whole_bytes = rec.stats.bytes;
  Clock::info();  // calibrate now, not in the middle of the run
}

TraceRecorder::~TraceRecorder() {
  try {
    finish();
  } catch (...) {
    // A destructor cannot report; finish() called explicitly does.
  }
  if (impl_->fd >= 0) ::close(impl_->fd);
}

const std::vector<CounterStatus>& TraceRecorder::counters() const { return impl_->counter_set.status(); }

void TraceRecorder::run_start(const std::string& language,
                              const std::vector<ConstructInfo>& constructs,
                              std::size_t core_count) {
  Impl& rec = *impl_;
  if (rec.started) throw std::logic_error("a TraceRecorder records one run");
  rec.started = true;
  rec.cores = std::vector<CoreRecorder>(core_count);
  // Many (simulated) cores share a memory budget, so 1024 cores do not take 1024 full buffers.
  rec.options.buffer_bytes = std::min(
      rec.options.buffer_bytes, std::max(kMinBufferBytes, kBufferBudget / std::max<std::size_t>(core_count, 1)));
  for (CoreRecorder& core : rec.cores) {
    rec.take(core, rec.new_buffer(core));
    // Real cores start with a spare, so that their first hand-off maps nothing; the writer
    // keeps one ahead from then on (refill_or_drain). Simulated cores, up to 1024 of them, map
    // theirs as they need them: host time stalls no virtual clock.
    if (rec.time == nullptr) core.empty.push(rec.new_buffer(core));
  }
  if (rec.time == nullptr) {
    // Room for thousands of definitions (a program that names a group per singleton makes one
    // per use), touched now: the cores append to it inside handlers.
    for (std::vector<unsigned char>* batch : {&rec.definitions, &rec.definitions_out}) {
      const std::size_t had = batch->size();
      batch->resize(std::max(had, kDefinitionsBytes));
      batch->resize(had);
    }
  }
  if (rec.time != nullptr) {
    rec.os_method = "none: a simulated machine's cores are not the host's";
  } else if (!rec.options.os_time) {
    rec.os_method = "off";
  } else {
    detail::OsTimeProbe probe;
    rec.os_method = probe.start(Clock::info().hz, Clock::now());
    rec.os_on = true;
    rec.loads_at_start = detail::read_cpu_loads();
  }
  const double cost_ns = rec.measure_unit_cost();
  rec.write_metadata(language, core_count, cost_ns);
  {
    std::lock_guard<std::mutex> hold(rec.definitions_mutex);
    for (std::size_t kind = 0; kind < constructs.size(); ++kind) {
      rec.define(fmt::DefinitionType::construct, static_cast<std::uint32_t>(kind),
                 static_cast<std::uint64_t>(constructs[kind].role), 0,
                 fmt::construct_text(constructs[kind].name, constructs[kind].colour));
    }
  }
  rec.catch_stop_signals();
  rec.ignore_file_size_signal();
  rec.writer = std::thread([&rec] { rec.writer_loop(); });
}

RecorderStats TraceRecorder::finish() {
  Impl& rec = *impl_;
  if (rec.finished) return rec.stats;
  rec.finished = true;
  if (rec.writer.joinable()) {
    rec.writer_stop.store(true, std::memory_order_release);
    rec.writer_wake.notify_one();
    rec.writer.join();
  }
  rec.flush_all();  // a core that never stopped still holds a buffer
  // A simulated run ends at its latest core clock, read when each core stopped: the machine
  // that kept those clocks may be gone by now.
  std::uint64_t end_time = rec.time != nullptr ? 0 : Clock::now();
  for (const CoreRecorder& core : rec.cores) end_time = std::max(end_time, core.stopped_at);
  // The default action comes back before the signal is checked: a signal caught until then
  // ends the process below, after the trace is written and marked interrupted; one after acts
  // as it would without the recorder.
  const bool was_catching = std::find(std::begin(rec.catching), std::end(rec.catching), true) != std::end(rec.catching);
  rec.release_stop_signals();
  if (const int signal = was_catching ? caught_signal.load(std::memory_order_relaxed) : 0) {
    rec.end_by_signal(signal, end_time);
  }
  rec.write_ending(0, end_time);
  rec.restore_file_size_signal();
  for (CoreRecorder& core : rec.cores) {
    delete core.buffer;
    core.buffer = nullptr;
    core.current.store(nullptr, std::memory_order_relaxed);
    while (Buffer* spare = core.empty.pop()) delete spare;
  }
  return rec.stats;
}

// ---------------------------------------------------------------------------------------------
// Instrumentation points
// ---------------------------------------------------------------------------------------------

void TraceRecorder::use_time_source(const TimeSource& time) { impl_->time = &time; }

void TraceRecorder::core_start(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  const std::string failed = impl_->counter_set.start(state.counter_thread);
  if (!failed.empty()) {
    // Its units carry zeros then: say so where the user looks, and in the trace.
    std::fprintf(stderr, "moirai: warning: counters could not start on core %u: %s\n", core, failed.c_str());
  }
  state.open_since = impl_->now(core);
  if (impl_->os_on) {
    state.os.start(Clock::info().hz, state.open_since);
    state.cpu = sched_getcpu();
    state.thread_cpu_start = detail::OsTimeProbe::thread_cpu_ns();
    state.wall_start = state.open_since;
  }
}

void TraceRecorder::core_stop(CoreId core) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (rec.os_on) {
    state.thread_cpu_stop = detail::OsTimeProbe::thread_cpu_ns();
    state.wall_stop = rec.now(core);
    state.moved = sched_getcpu() != state.cpu;
  }
  rec.counter_set.stop(state.counter_thread);
  if (rec.time != nullptr) state.stopped_at = rec.now(core);
  if (state.buffer->used > 0) rec.hand_off(core);
}

void TraceRecorder::vp_created(CoreId /*core*/, VpId vp, const std::string& name,
                               const CallSite& created_at, CoreId home_core) {
  Impl& rec = *impl_;
  std::uint32_t site = 0;
  {
    std::lock_guard<std::mutex> hold(rec.definitions_mutex);
    auto [entry, added] = rec.site_ids.try_emplace(
        {created_at.file, created_at.line}, static_cast<std::uint32_t>(rec.site_ids.size() + 1));
    if (added) {
      rec.define(fmt::DefinitionType::call_site, entry->second, created_at.line, 0,
                 std::string(created_at.file) + '\0' + created_at.function);
    }
    site = entry->second;
    rec.define(fmt::DefinitionType::vp, home_core, vp, site, name);
  }
}

void TraceRecorder::assigner_enter(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  if (state.open_since == 0) state.open_since = impl_->now(core);
}

void TraceRecorder::assigner_exit(CoreId /*core*/, UnitId /*chosen*/) {}

void TraceRecorder::pause() noexcept { impl_->paused.store(true, std::memory_order_relaxed); }
void TraceRecorder::resume() noexcept { impl_->paused.store(false, std::memory_order_relaxed); }

void TraceRecorder::unit_begin(CoreId core, VpId vp, UnitId unit) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  // Pausing takes effect at unit boundaries only, so every recorded unit is whole.
  const bool paused = rec.paused.load(std::memory_order_relaxed);
  if (paused != (state.paused_since != 0)) {
    const std::uint64_t boundary = state.open_since != 0 ? state.open_since : impl_->now(core);
    if (paused) {
      state.paused_since = boundary;
    } else {
      fmt::SpanRecord gap{static_cast<std::uint16_t>(fmt::RecordKind::paused), 0, 0,
                          state.paused_since, boundary};
      rec.append(core, &gap, sizeof gap);
      state.paused_since = 0;
      state.open_since = boundary;
    }
  }
  state.skipping = paused;
  state.declared = 0;
  if (paused) return;
  fmt::UnitRecord& record = unit_of(state);
  record.kind = static_cast<std::uint16_t>(fmt::RecordKind::unit);
  record.unit = unit;
  record.vp = vp;
  record.begin = impl_->now(core);
  record.assign = state.open_since != 0 ? state.open_since : record.begin;
  state.open_since = 0;
  if (rec.os_on) state.os.begin(record.begin);
  rec.counter_set.read(state.counter_thread, state.counters_begin);
}

void TraceRecorder::unit_end(CoreId core, VpId /*vp*/, UnitId /*unit*/, ConstructKind ended_by,
                             const CallSite& site) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping) return;
  rec.counter_set.read(state.counter_thread, state.counters_end);
  fmt::UnitRecord& record = unit_of(state);
  record.end = impl_->now(core);
  if (rec.os_on) state.taken_pending = state.os.end(record.end, state.os_taken);
  record.locked = record.end;
  record.ended_by = static_cast<std::uint16_t>(ended_by);
  record.site = rec.site_id(state, site);
  auto* deltas = reinterpret_cast<std::uint64_t*>(state.unit + sizeof(fmt::UnitRecord));
  for (std::size_t i = 0; i < rec.counter_set.present(); ++i) {
    deltas[i] = static_cast<std::uint64_t>(state.counters_end[i] - state.counters_begin[i]);
  }
}

void TraceRecorder::lock_wait_begin(CoreId core) {
  impl_->cores[core].lock_wait_since = impl_->now(core);
}

void TraceRecorder::lock_wait_end(CoreId core, CoreId released_by) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping || state.paused_since != 0) return;
  const std::uint64_t now = impl_->now(core);
  fmt::UnitRecord& record = unit_of(state);
  // Only a wait between a unit's end and its handler belongs to the unit; a wait before the
  // assigner belongs to the decision to animate, which needs no mark.
  if (state.open_since == 0 && record.end != 0 && record.handler == 0) record.locked = now;
  fmt::LockHandoffRecord handoff{static_cast<std::uint16_t>(fmt::RecordKind::lock_handoff), 0,
                                 released_by, state.lock_wait_since, now};
  rec.append(core, &handoff, sizeof handoff);
}

void TraceRecorder::handler_enter(CoreId core, ConstructKind /*kind*/, UnitId /*unit*/) {
  CoreRecorder& state = impl_->cores[core];
  if (!state.skipping) unit_of(state).handler = impl_->now(core);
}

void TraceRecorder::handler_exit(CoreId core, ConstructKind /*kind*/, UnitId /*unit*/) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping) {  // the boundary still moves, so the paused span ends at the right place
    state.skipping = false;
    state.open_since = impl_->now(core);
    return;
  }
  fmt::UnitRecord& record = unit_of(state);
  record.handler_end = impl_->now(core);
  rec.append(core, state.unit, rec.unit_size);
  if (state.taken_pending) {
    state.taken_pending = false;
    fmt::OsTakenRecord taken{static_cast<std::uint16_t>(fmt::RecordKind::os_taken), 0,
                             state.os_taken.switches, record.unit, state.os_taken.taken,
                             state.os_taken.migrations, 0};
    rec.append(core, &taken, sizeof taken);
  }
  if (state.declared != 0) {
    fmt::DeclaredWorkRecord declared{static_cast<std::uint16_t>(fmt::RecordKind::declared_work), 0, 0,
                                     record.unit, state.declared};
    rec.append(core, &declared, sizeof declared);
    state.declared = 0;
  }
  state.open_since = record.handler_end;  // the next decision starts where this handler ended
  record.end = 0;
  record.handler = 0;
}

void TraceRecorder::idle_begin(CoreId core) {
  CoreRecorder& state = impl_->cores[core];
  if (state.paused_since != 0) return;  // part of the paused span
  state.idle_since = state.open_since != 0 ? state.open_since : impl_->now(core);
  state.open_since = 0;
}

void TraceRecorder::idle_end(CoreId core) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  const std::uint64_t now = impl_->now(core);
  state.open_since = now;
  if (state.paused_since != 0) return;  // part of the paused span
  fmt::SpanRecord idle{static_cast<std::uint16_t>(fmt::RecordKind::idle), 0, 0, state.idle_since,
                       now};
  rec.append(core, &idle, sizeof idle);
}

void TraceRecorder::chore_begin(CoreId core) { impl_->cores[core].chore_since = impl_->now(core); }

void TraceRecorder::chore_end(CoreId core, Chore chore, std::uint32_t cores) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.paused_since != 0) return;  // part of the paused span
  const std::uint64_t now = rec.now(core);
  if (now == state.chore_since) return;  // took no time (a simulated machine's): nothing to take out
  fmt::ChoreRecord record{static_cast<std::uint16_t>(fmt::RecordKind::chore), static_cast<std::uint16_t>(chore),
                          cores, state.chore_since, now};
  rec.append(core, &record, sizeof record);
}

void TraceRecorder::constraint(CoreId core, ConstructKind kind, UnitId from, UnitId to,
                               std::uint64_t match) {
  CoreRecorder& state = impl_->cores[core];
  if (state.skipping) return;
  // Handlers record constraints: the handler's entry reading dates them without another read.
  const std::uint64_t handler = unit_of(state).handler;
  fmt::ConstraintRecord record{static_cast<std::uint16_t>(fmt::RecordKind::constraint),
                               static_cast<std::uint16_t>(kind), 0, from, to, match,
                               handler != 0 ? handler : impl_->now(core)};
  impl_->append(core, &record, sizeof record);
}

void TraceRecorder::group_defined(CoreId /*core*/, std::uint64_t group, ConstructKind kind,
                                  const std::string& name) {
  std::lock_guard<std::mutex> hold(impl_->definitions_mutex);
  impl_->define(fmt::DefinitionType::group, kind, group, 0, name);
}

void TraceRecorder::group_member(CoreId core, std::uint64_t group, std::uint16_t role,
                                 UnitId unit) {
  if (impl_->cores[core].skipping) return;
  fmt::GroupRecord record{static_cast<std::uint16_t>(fmt::RecordKind::group), role, 0, group,
                          unit};
  impl_->append(core, &record, sizeof record);
}

void TraceRecorder::work_declared(CoreId core, std::uint64_t ticks) {
  std::uint64_t& declared = impl_->cores[core].declared;
  declared = ticks > UINT64_MAX - declared ? UINT64_MAX : declared + ticks;
}

void TraceRecorder::user_event(CoreId core, UnitId unit, const char* name, bool begin) {
  Impl& rec = *impl_;
  CoreRecorder& state = rec.cores[core];
  if (state.skipping || state.paused_since != 0) return;
  auto cached = state.event_names.find(name);
  std::uint32_t id = 0;
  if (cached != state.event_names.end()) {
    id = cached->second;
  } else {
    std::lock_guard<std::mutex> hold(rec.definitions_mutex);
    auto [entry, added] = rec.event_name_ids.try_emplace(
        name, static_cast<std::uint32_t>(rec.event_name_ids.size() + 1));
    if (added) rec.define(fmt::DefinitionType::user_event, entry->second, 0, 0, name);
    id = entry->second;
    state.event_names.emplace(name, id);
  }
  fmt::UserEventRecord record{static_cast<std::uint16_t>(fmt::RecordKind::user_event),
                              static_cast<std::uint16_t>(begin ? 1 : 2), id, unit, impl_->now(core)};
  rec.append(core, &record, sizeof record);
}

}  // namespace moirai::instrument
