// The per-core buffers and the writer thread: each core appends to a buffer of its own and
// hands it over full; the writer writes what the cores committed, by time and when a core runs
// short of empty buffers, and gives the buffers back. Nothing is dropped: a core whose buffers
// are all full waits, and records that.
#include <algorithm>
#include <chrono>
#include <memory>
#include <new>

#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

// start_buffers gives each of `core_count` cores its first buffer (and real cores a spare), and
// reserves the definitions batch.
void TraceRecorder::Impl::start_buffers(std::size_t core_count) {
  cores = std::vector<CoreRecorder>(core_count);
  // Many (simulated) cores share a memory budget, so 1024 cores do not take 1024 full buffers.
  options.buffer_bytes = std::min(
      options.buffer_bytes, std::max(kMinBufferBytes, kBufferBudget / std::max<std::size_t>(core_count, 1)));
  for (CoreRecorder& core : cores) {
    Buffer* first = new_buffer(core);
    if (first == nullptr) throw std::bad_alloc();  // before the run: it fails as a whole
    take(core, first);
    // Real cores start with a spare, so that their first hand-off maps nothing; the writer
    // keeps one ahead from then on (refill_or_drain). Simulated cores, up to 1024 of them, map
    // theirs as they need them: host time stalls no virtual clock.
    if (time == nullptr) core.empty.push(new_buffer(core));
  }
  if (time == nullptr) {
    // Room for thousands of definitions (a program that names a group per singleton makes one
    // per use), touched now: the cores append to it inside handlers.
    for (std::vector<unsigned char>* batch : {&definitions, &definitions_out}) {
      const std::size_t had = batch->size();
      batch->resize(std::max(had, kDefinitionsBytes));
      batch->resize(had);
    }
  }
}

// free_buffers frees every core's buffers once everything is written.
void TraceRecorder::Impl::free_buffers() {
  for (CoreRecorder& core : cores) {
    delete core.buffer;
    core.buffer = nullptr;
    core.current.store(nullptr, std::memory_order_relaxed);
    while (Buffer* spare = core.empty.pop()) delete spare;
  }
}


// take makes `buffer` the one the core appends to, numbered after the core's previous one.
void TraceRecorder::Impl::take(CoreRecorder& core, Buffer* buffer) {
  buffer->index.store(core.taken++, std::memory_order_relaxed);
  core.buffer = buffer;
  core.current.store(buffer, std::memory_order_release);  // publishes the index with it
}

// new_buffer allocates (and touches) one more buffer for `core` while it has fewer than
// kBuffersPerCore; nullptr once it has them all, or when memory ran out: the core then waits for
// the writer to give back one it has (a core always has one in the rotation), as it would with
// all its buffers. The core or the writer may call it.
Buffer* TraceRecorder::Impl::new_buffer(CoreRecorder& core) noexcept {
  std::size_t had = core.buffers.load(std::memory_order_relaxed);
  do {
    if (had >= kBuffersPerCore) return nullptr;
  } while (!core.buffers.compare_exchange_weak(had, had + 1, std::memory_order_relaxed));
  try {
    auto buffer = std::make_unique<Buffer>();
    buffer->bytes.resize(options.buffer_bytes);
    return buffer.release();
  } catch (const std::bad_alloc&) {
    core.buffers.fetch_sub(1, std::memory_order_relaxed);
    return nullptr;
  }
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

}  // namespace moirai::instrument
