// The trace writer's life: construction (the options checked, the file opened), the start of
// the run, and finish. Each of its other concerns has a file of its own (recorder/impl.h lists
// them); the layout it writes is docs/trace-format.md (moirai/trace/format.h).
#include "moirai/instrument/trace_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

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
  rec.unit_size = fmt::unit_record_size(rec.counter_set.present());
  rec.open_file();
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

void TraceRecorder::pause() noexcept { impl_->paused.store(true, std::memory_order_relaxed); }
void TraceRecorder::resume() noexcept { impl_->paused.store(false, std::memory_order_relaxed); }

void TraceRecorder::language_names_domains() { impl_->names_domains = true; }

void TraceRecorder::run_start(const LanguageInfo& language, std::size_t core_count) {
  Impl& rec = *impl_;
  if (rec.started) throw std::logic_error("a TraceRecorder records one run");
  rec.started = true;
  rec.start_buffers(core_count);
  rec.start_os_time();
  const double cost_ns = rec.measure_unit_cost();
  rec.write_metadata(language.name, core_count, cost_ns);
  {
    std::lock_guard<std::mutex> hold(rec.definitions_mutex);
    const std::vector<ConstructInfo>& constructs = language.constructs;
    for (std::size_t kind = 0; kind < constructs.size(); ++kind) {
      rec.define(fmt::DefinitionType::construct, static_cast<std::uint32_t>(kind),
                 static_cast<std::uint64_t>(constructs[kind].role), 0,
                 fmt::construct_text(constructs[kind].name, constructs[kind].colour));
    }
    rec.define(fmt::DefinitionType::placement, 0, static_cast<std::uint64_t>(language.choices.placement), 0, "");
    for (const LanguageWord& word : language.choices.words) {
      rec.define(fmt::DefinitionType::word, 0, 0, 0, fmt::word_text(word.name, word.text));
    }
  }
  rec.catch_stop_signals();
  rec.ignore_file_size_signal();
  rec.writer = std::thread([&rec] { rec.writer_loop(); });
}

void TraceRecorder::note_closing(std::string key, std::string value) {
  std::lock_guard<std::mutex> hold(impl_->notes_mutex);
  impl_->closing_notes.emplace_back(std::move(key), std::move(value));
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
  rec.end_if_caught(end_time);
  rec.write_ending(0, end_time);
  rec.restore_file_size_signal();
  rec.free_buffers();
  return rec.stats;
}

}  // namespace moirai::instrument
