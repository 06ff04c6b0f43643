// The trace file and its chunks: the file header, every chunk's header and checksum, the
// definitions batch's entries, the closing and end chunks, and what happens when the file can
// no longer be written.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "moirai/trace/chunk_checksum.h"
#include "recorder/impl.h"

namespace moirai::instrument {

using namespace detail;

void detail::key_value_line(std::string& text, const std::string& key, std::string value) {
  std::replace(value.begin(), value.end(), '\n', ' ');
  text += key + "=" + value + "\n";
}

// open_file creates (or truncates) the trace file and writes its header; throws
// std::runtime_error naming the file when it cannot be written.
void TraceRecorder::Impl::open_file() {
  fd = ::open(options.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error("cannot write trace file " + options.path + ": " +
                             std::strerror(errno));
  }
  fmt::FileHeader header{};
  std::memcpy(header.magic, fmt::kMagic, sizeof header.magic);
  header.version_major = fmt::kVersionMajor;
  header.version_minor = fmt::kVersionMinor;
  write_all(&header, sizeof header);
  whole_bytes = stats.bytes;
}

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
  const fmt::ChunkHeader header = fmt::chunk_header(type, core, payload, size, sequence++);
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
  const fmt::ChunkHeader header =
      fmt::chunk_header(fmt::ChunkType::closing, fmt::kNoCore, text.data(), text.size(), stats.chunks);
  try {
    write_all(&header, sizeof header);
    write_all(text.data(), text.size());
  } catch (const std::runtime_error&) {
    if (::ftruncate(fd, static_cast<off_t>(whole_bytes)) == 0) stats.bytes = whole_bytes;  // no room even for that
  }
}

// define appends one entry to the definitions batch; definitions_mutex held.
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

// call_site_id is the id of a call site, numbered and defined the first time it is seen;
// definitions_mutex held.
std::uint32_t TraceRecorder::Impl::call_site_id(const CallSite& site) {
  auto [entry, added] = site_ids.try_emplace({site.file, site.line},
                                             static_cast<std::uint32_t>(site_ids.size() + 1));
  if (added) {
    define(fmt::DefinitionType::call_site, entry->second, site.line, 0,
           std::string(site.file) + '\0' + site.function);
  }
  return entry->second;
}

// closing_lines are the closing chunk's "key=value" lines: what is known only when the
// recording ends. Every such key is added here. On a signal this runs on the writer thread
// while the cores still run, so what it reads must be safe to read from another thread.
std::vector<std::pair<std::string, std::string>> TraceRecorder::Impl::closing_lines(int signal) {
  const char* name = signal_name(signal);
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("interrupted", signal != 0 ? name : "no");
  lines.emplace_back("end_reason", signal != 0 ? std::string(name) +
                                                      " asked the process to stop mid-run; every record the cores "
                                                      "had committed was written, then the signal ended the process"
                                                : "the program finished the recording");
  // The cores' OS totals are complete only once every core has stopped.
  if (signal == 0) os_closing_lines(lines);
  estimated_closing_line(lines);
  std::lock_guard<std::mutex> hold(notes_mutex);
  lines.insert(lines.end(), closing_notes.begin(), closing_notes.end());
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

}  // namespace moirai::instrument
