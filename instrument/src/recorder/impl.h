// The trace writer's state, shared by the files that each hold one of its concerns: the chunk
// file (chunk_file.cpp), the per-core buffers and the writer thread (core_buffers.cpp), the
// machine's metadata (machine_metadata.cpp, with the CPUs' loads from machine_load.cpp), the
// stop signals (stop_signals.cpp), the probe's own cost (probe_cost.cpp), the instrumentation
// points (instrumentation_points.cpp) and the recorder's life from construction to finish
// (trace_recorder.cpp). The layout it writes is docs/trace-format.md (moirai/trace/format.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "moirai/instrument/clock.h"
#include "moirai/instrument/trace_recorder.h"
#include "moirai/trace/format.h"
#include "counter_set.h"
#include "recorder/machine_load.h"
#include "os_time.h"
#include "recorder/spsc_ring.h"

namespace moirai::instrument {

namespace fmt = moirai::trace;

namespace detail {

constexpr std::size_t kRing = 8;            // buffers in flight per core
constexpr std::size_t kBuffersPerCore = 6;  // allocated per core at most, then cores wait
constexpr std::size_t kBufferBudget = 32u << 20;  // first buffers of all cores together, bytes
constexpr std::size_t kMinBufferBytes = 16u << 10;  // the budget never cuts a buffer below this
constexpr std::size_t kDefinitionsBytes = 256u << 10;  // definitions batch reserved on real cores

constexpr std::size_t kMinOptionBufferBytes = 1024;  // the smallest RecorderOptions::buffer_bytes
constexpr auto kWriterTick = std::chrono::milliseconds(20);  // the writer's longest sleep

// The signals that ask a process to stop and that the recorder turns into a written trace.
constexpr int kStopSignals[] = {SIGINT, SIGTERM};

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
  SpscRing<Buffer, kRing> full;   // core -> writer
  SpscRing<Buffer, kRing> empty;  // writer -> core
  unsigned char unit[fmt::unit_record_size(fmt::kMaxCounters)] = {};  // the unit being built
  std::uint64_t open_since = 0;       // start of the span no record covers yet
  std::uint64_t idle_since = 0;
  CounterSet::Thread counter_thread;
  long long counters_begin[fmt::kMaxCounters] = {};
  long long counters_end[fmt::kMaxCounters] = {};
  std::unordered_map<SiteKey, std::uint32_t, SiteKeyHash> sites;
  // A direct-mapped cache in front of `sites`: a loop's few call sites hit it every unit.
  struct SiteSlot { const char* file = nullptr; std::uint32_t line = 0; std::uint32_t id = 0; };
  SiteSlot recent_sites[64];
  std::unordered_map<const char*, std::uint32_t> event_names;
  std::unordered_map<LockDomain, std::uint16_t> domain_ids;  // this core's view of lock_domains
  bool skipping = false;              // the current unit is not recorded (paused)
  std::uint64_t lock_wait_since = 0;
  std::uint64_t chore_since = 0;
  std::uint64_t paused_since = 0;     // start of the span this core did not record
  std::atomic<std::uint64_t> writer_waits{0};  // the core's count; the writer reads it on a signal
  std::uint64_t stopped_at = 0;       // clock reading at core_stop (simulated runs)
  OsTimeProbe os;                     // what the OS took from each unit (real cores)
  OsTaken os_taken;                   // of the unit being built
  bool taken_pending = false;         // `os_taken` belongs to the unit being built
  std::uint64_t declared = 0;         // work the unit being built declared (charge_work)
  std::uint64_t estimated = 0;        // runtime work estimated at the start of the unit being built
  // What runtime_work_estimated booked: units, ticks, and units whose work was less than their
  // estimate (they gave all of it). Only this core writes them; the writer reads them on a signal.
  std::atomic<std::uint64_t> estimated_units{0}, estimated_ticks{0}, estimated_clamped{0};
  int cpu = -1;                       // the CPU this core's thread ran on at its start
  bool moved = false;                 // ... and it ran elsewhere at its stop (not pinned)
  std::uint64_t thread_cpu_start = 0, thread_cpu_stop = 0, wall_start = 0, wall_stop = 0;
};

inline fmt::UnitRecord& unit_of(CoreRecorder& core) {
  return *reinterpret_cast<fmt::UnitRecord*>(core.unit);
}

// signal_name names a stop signal in the closing chunk ("SIGINT").
const char* signal_name(int signal);

// key_value_line adds one "key=value" line of a metadata or closing chunk; a line break in the
// value would start a new line, so it becomes a space.
void key_value_line(std::string& text, const std::string& key, std::string value);

}  // namespace detail

struct TraceRecorder::Impl {
  using Buffer = detail::Buffer;
  using CoreRecorder = detail::CoreRecorder;

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

  bool names_domains = false;  // the metadata says lock_domains=named
  std::mutex definitions_mutex;
  // lock_domains numbers the lock domains named so far (definitions_mutex held); beyond 65535 a
  // domain's waits are recorded as on the unnamed domain 0.
  std::unordered_map<LockDomain, std::uint16_t> lock_domains;
  std::mutex notes_mutex;  // closing_notes: front-ends add them from any thread
  std::vector<std::pair<std::string, std::string>> closing_notes;
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
  bool catching[std::size(detail::kStopSignals)] = {};  // this recorder installed its stop-signal handler

  const TimeSource* time = nullptr;  // a simulated machine's clock, else the host's
  bool os_on = false;                // measuring what the OS took (real cores, RecorderOptions)
  std::string os_method;             // how, or why not
  std::vector<detail::CpuLoad> loads_at_start;

  explicit Impl(RecorderOptions o) : options(std::move(o)), counter_set(options.counters) {}

  // now reads the clock the run keeps for `core`.
  std::uint64_t now(CoreId core) const noexcept { return Clock::now(time, core); }

  // The file and its chunks (chunk_file.cpp).
  void open_file();
  void write_all(const void* data, std::size_t size);
  bool write_chunk(fmt::ChunkType type, std::uint16_t core, const void* payload, std::size_t size);
  void stop_writing(const std::string& reason);
  void define(fmt::DefinitionType type, std::uint32_t a, std::uint64_t b, std::uint64_t c,
              const std::string& text);
  std::uint32_t call_site_id(const CallSite& site);
  std::vector<std::pair<std::string, std::string>> closing_lines(int signal);
  void write_ending(int signal, std::uint64_t end_time);

  // The machine under the run (machine_metadata.cpp).
  void start_os_time();
  void write_metadata(const std::string& language, std::size_t core_count, double unit_cost_ns);
  template <class Line>
  void write_topology(Line& line);
  void os_closing_lines(std::vector<std::pair<std::string, std::string>>& lines) const;

  // The probe's own cost (probe_cost.cpp).
  double measure_unit_cost();

  // Per-core buffers and the writer thread (core_buffers.cpp).
  void start_buffers(std::size_t core_count);
  void free_buffers();
  inline void append(CoreId core, const void* record, std::size_t size);
  void hand_off(CoreId core);
  Buffer* new_buffer(CoreRecorder& core) noexcept;
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

  // The stop signals (stop_signals.cpp).
  void catch_stop_signals();
  void release_stop_signals();
  void ignore_file_size_signal();
  void restore_file_size_signal();
  int stop_signal() const;
  void end_if_caught(std::uint64_t end_time);
  [[noreturn]] void end_by_signal(int signal, std::uint64_t end_time);

  // The instrumentation points' helpers (instrumentation_points.cpp).
  std::uint32_t site_id(CoreRecorder& core, const CallSite& site);
  void book_estimate(CoreId core, CoreRecorder& state, fmt::UnitRecord& record);
  // estimated_closing_line adds `estimated_runtime_work` when a front-end booked estimates.
  void estimated_closing_line(std::vector<std::pair<std::string, std::string>>& lines) const;
};

// append copies one record into the core's buffer; inline, as it was when one file held the
// recorder: it is on every instrumentation point's path.
inline void TraceRecorder::Impl::append(CoreId core_id, const void* record, std::size_t size) {
  CoreRecorder& core = cores[core_id];
  if (core.buffer->used + size > core.buffer->bytes.size()) hand_off(core_id);
  Buffer& buffer = *core.buffer;
  std::memcpy(buffer.bytes.data() + buffer.used, record, size);
  buffer.used += size;
  ++buffer.records;
  // The only cost flushing by time adds here: a release store, a plain store on x86.
  buffer.committed.store(detail::pack_committed(buffer.used, buffer.records), std::memory_order_release);
}

}  // namespace moirai::instrument
