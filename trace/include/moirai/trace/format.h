// The Moirai trace file format, version 3.7 (readers also read versions 1 and 2, and 3.0 to 3.6). docs/trace-format.md is the reference; every
// constant and layout here is described there, and the reader validates all of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "moirai/core/chore.h"

namespace moirai::trace {

// kMagic opens every trace file.
inline constexpr char kMagic[8] = {'M', 'O', 'I', 'R', 'A', 'I', 'T', 'R'};
// kVersionMajor changes when a reader of the previous version could misread a file.
inline constexpr std::uint16_t kVersionMajor = 3;
// kOldestVersionMajor is the oldest major version this reader still reads (1.x: no OS records,
// no closing chunk; 2.x: constructs named only, without role and colour).
inline constexpr std::uint16_t kOldestVersionMajor = 1;
// kVersionMinor changes when fields are only added in ways old readers may skip.
inline constexpr std::uint16_t kVersionMinor = 7;  // 3.1: declared_work records; 3.2: chore records;
                                                   // 3.3: the checksum covers the chunk's core;
                                                   // 3.4: lock domains (definitions, handoffs);
                                                   // 3.5: the `estimated` chore;
                                                   // 3.6: the language's placement and words;
                                                   // 3.7: message records, communicator definitions
// kMessagesMinor is the first 3.x whose traces may hold message records and communicator definitions.
inline constexpr std::uint16_t kMessagesMinor = 7;
// kLanguageChoicesMinor is the first 3.x whose definitions may give the language's placement and
// words; an older trace gets them from the reader's format history (format_history.h).
inline constexpr std::uint16_t kLanguageChoicesMinor = 6;
// kEstimatedChoreMinor is the first 3.x whose chore records may be estimated runtime work.
inline constexpr std::uint16_t kEstimatedChoreMinor = 5;
// kChunkHeaderChecksumMinor is the first 3.x whose chunk checksum covers the header's type, core
// and payload size as well as the payload.
inline constexpr std::uint16_t kChunkHeaderChecksumMinor = 3;
// kChunkMagic opens every chunk, so a reader can tell a cut file from garbage.
inline constexpr std::uint32_t kChunkMagic = 0x4B4E4843;  // "CHNK"
// kNoCore is the chunk core of chunks that belong to no core.
inline constexpr std::uint16_t kNoCore = 0xFFFF;
// kNoHomeCore is a VP definition's home core when the VP is not pinned.
inline constexpr std::uint32_t kNoHomeCore = 0xFFFFFFFF;
// kMinClockHz and kMaxClockHz bound a trace's clock rate (metadata clock_hz): the reader refuses
// a rate outside them, which would turn every time into nonsense.
inline constexpr double kMinClockHz = 1e3;
inline constexpr double kMaxClockHz = 1e11;
// kMaxCounters bounds the counters one trace records.
inline constexpr std::size_t kMaxCounters = 8;
// kMaxChunkPayload bounds a chunk, so a corrupt size cannot make a reader allocate gigabytes.
inline constexpr std::uint32_t kMaxChunkPayload = 64u << 20;

// FileHeader is the first 16 bytes of a trace.
struct FileHeader {
  char magic[8];
  std::uint16_t version_major;
  std::uint16_t version_minor;
  std::uint32_t reserved;  // 0
};
static_assert(sizeof(FileHeader) == 16);

// ChunkType says what a chunk's payload holds.
enum class ChunkType : std::uint16_t {
  metadata = 1,     // "key=value\n" lines (UTF-8): clock, topology, counters, command line...
  definitions = 2,  // Definition entries: call sites, constructs, VPs, groups
  events = 3,       // one core's fixed-size records, in time order
  end = 4,          // EndPayload: the totals; missing when the run was cut
  closing = 5,      // "key=value\n" lines known only at the end of the run (OS figures, the
                    // measured recording cost, `interrupted`): at most one, before the end chunk
};

// ChunkHeader precedes every chunk's payload.
struct ChunkHeader {
  std::uint32_t magic;          // kChunkMagic
  std::uint16_t type;           // ChunkType
  std::uint16_t core;           // events: the core; otherwise kNoCore
  std::uint32_t payload_size;   // bytes after this header
  std::uint32_t payload_crc32;  // CRC-32 (zlib): from 3.3 of type, core and payload_size, then the
                                // payload; before 3.3 of the payload only
  std::uint64_t sequence;       // 0, 1, 2, ... in file order
};
static_assert(sizeof(ChunkHeader) == 24);

// RecordKind is the first field of every event record. Records are 8-byte aligned and their
// size follows from their kind (a unit record also from the trace's counter count).
enum class RecordKind : std::uint16_t {
  unit = 1,         // UnitRecord (+ 8 bytes per counter): one unit's life-line on this core
  idle = 2,         // SpanRecord: the core had nothing to animate
  constraint = 3,   // ConstraintRecord: a unit's construct call freed another unit
  group = 4,        // GroupRecord: a unit took part in a non-deterministic construct
  writer_wait = 5,  // SpanRecord: the core waited for the trace writer (never dropped data)
  user_event = 6,   // UserEventRecord: an application phase began or ended
  paused = 7,       // SpanRecord: recording was paused on this core
  lock_handoff = 8, // LockHandoffRecord: this core waited for the runtime lock another released
  os_taken = 9,     // OsTakenRecord: the OS took time from the unit recorded just before it
  declared_work = 10,  // DeclaredWorkRecord: the work the unit recorded just before declared (3.1)
  chore = 11,          // ChoreRecord: the runtime did a chore on this core after releasing its lock (3.2)
  message = 12,        // MessageRecord: a message's envelope, or a collective call's bytes (3.7)
};

// UnitRecord is one unit's life-line on the core that animated it. Its timestamps are
// boundaries that tile the core's time: decision to animate [assign, begin), work [begin, end),
// state-update communication [end, handler) with runtime-lock wait [end, locked) inside it,
// constraint update [handler, handler_end). Then come `counter_count` u64 deltas of the work.
struct UnitRecord {
  std::uint16_t kind;         // RecordKind::unit
  std::uint16_t ended_by;     // construct kind of the request that ended the unit
  std::uint32_t site;         // call-site id of that request
  std::uint64_t unit;
  std::uint64_t vp;
  std::uint64_t assign;       // decision to animate began (assigner, or the core woke)
  std::uint64_t begin;        // switched into the VP
  std::uint64_t end;          // the VP called the runtime
  std::uint64_t locked;       // runtime lock held (== end when it was free)
  std::uint64_t handler;      // handler entered
  std::uint64_t handler_end;  // handler left
};
static_assert(sizeof(UnitRecord) == 72);

// SpanRecord is a span in which the core did no unit's work.
struct SpanRecord {
  std::uint16_t kind;  // RecordKind::idle or RecordKind::writer_wait
  std::uint16_t reserved16;
  std::uint32_t reserved32;
  std::uint64_t begin;
  std::uint64_t end;
};
static_assert(sizeof(SpanRecord) == 24);

// ConstraintRecord says that unit `from`'s construct call satisfied a constraint on unit `to`.
struct ConstraintRecord {
  std::uint16_t kind;       // RecordKind::constraint
  std::uint16_t construct;  // construct kind that imposed the constraint
  std::uint32_t reserved;
  std::uint64_t from;       // the freeing unit
  std::uint64_t to;         // the freed unit
  std::uint64_t match;      // shared by both ends of one matched pair (0: none)
  std::uint64_t time;       // when the handler recorded it
};
static_assert(sizeof(ConstraintRecord) == 40);

// GroupRecord puts a unit into a group of possible partners (UCC): every sender and receiver of
// one message type, or a singleton's predecessors (sources) and successors (sinks).
struct GroupRecord {
  std::uint16_t kind;  // RecordKind::group
  std::uint16_t role;  // GroupRole: 1 source, 2 sink
  std::uint32_t reserved;
  std::uint64_t group;  // defined in a definitions chunk
  std::uint64_t unit;
};
static_assert(sizeof(GroupRecord) == 24);

// UserEventRecord marks the begin or end of a named application phase inside a unit.
struct UserEventRecord {
  std::uint16_t kind;   // RecordKind::user_event
  std::uint16_t phase;  // 1 begin, 2 end
  std::uint32_t name;   // user-event name id (defined in a definitions chunk)
  std::uint64_t unit;
  std::uint64_t time;
};
static_assert(sizeof(UserEventRecord) == 24);

// LockHandoffRecord is runtime-internal causality: core `from`'s release of a runtime lock let
// this core acquire it after waiting since `waited`.
struct LockHandoffRecord {
  std::uint16_t kind;  // RecordKind::lock_handoff
  std::uint16_t domain;  // the lock domain's definition (3.4); 0: the whole-language lock, or unnamed
  std::uint32_t from;  // the releasing core
  std::uint64_t waited;    // when this core began to wait
  std::uint64_t acquired;  // when it got the lock
};
static_assert(sizeof(LockHandoffRecord) == 24);

// OsTakenRecord follows the unit record of `unit` on the same core when the OS took the core's
// thread off its CPU during the unit's work: wall time it did not run, involuntary context
// switches and CPU migrations. Units without one ran undisturbed (as far as the OS can tell;
// a hypervisor's steal is only known per run, in the closing chunk).
struct OsTakenRecord {
  std::uint16_t kind;  // RecordKind::os_taken
  std::uint16_t reserved16;
  std::uint32_t switches;    // involuntary context switches during the work
  std::uint64_t unit;        // the unit recorded just before, on this core
  std::uint64_t taken;       // ticks of the work span [begin, end) the thread did not run
  std::uint32_t migrations;  // CPU migrations during the work
  std::uint32_t reserved32;
};
static_assert(sizeof(OsTakenRecord) == 32);

// DeclaredWorkRecord follows the unit record of `unit` on the same core (after its OsTakenRecord,
// if any) when the program declared the unit's work (charge_work): the cycles it declared, so a
// machine model can be fitted from measured against declared work (moirai-calibrate --fit).
struct DeclaredWorkRecord {
  std::uint16_t kind;  // RecordKind::declared_work
  std::uint16_t reserved16;
  std::uint32_t reserved32;
  std::uint64_t unit;      // the unit recorded just before, on this core
  std::uint64_t declared;  // the sum of the unit's charge_work calls
};
static_assert(sizeof(DeclaredWorkRecord) == 24);

// ChoreRecord is a chore span on the core that did it. It lies inside the core's decision span or
// idle span, which it does not split: the views take it out of them. A chore that took no time
// (as on a simulated machine, whose waker pays nothing) is not recorded. An `estimated` chore
// (3.5) is the runtime's work a front-end estimated at the start of the unit recorded after it:
// the unit's begin was moved past it, so it lies at the end of that unit's decision span.
struct ChoreRecord {
  std::uint16_t kind;   // RecordKind::chore
  std::uint16_t chore;  // Chore
  std::uint32_t cores;  // wake_up: the cores woken; vp_shell, estimated: 1
  std::uint64_t begin;
  std::uint64_t end;
};
static_assert(sizeof(ChoreRecord) == 24);

// MessageFlag are the bits of a MessageRecord's `flags`.
enum MessageFlag : std::uint16_t {
  kMessageAnySource = 1,  // the receive was posted for any source: the match the run made is timing-dependent
  kMessageAnyTag = 2,     // the receive was posted for any tag: `tag` is the one it matched
};
// kMessageFlags is every MessageFlag bit: a record with another bit set is refused.
inline constexpr std::uint16_t kMessageFlags = kMessageAnySource | kMessageAnyTag;

// MessageRecord (3.7) is what a message carried, or what one core's collective call sent. A message's
// (`match` above 0) is written once per match number, on the core of a constraint with that match;
// a collective call's (`unit` above 0) follows, on the same core, the record of the unit the call
// ended (after its os_taken and declared_work records, if any). Exactly one of the two is above 0.
struct MessageRecord {
  std::uint16_t kind;   // RecordKind::message
  std::uint16_t flags;  // MessageFlag bits (a message's receive); 0 for a collective call
  std::uint32_t comm;   // the communicator (a communicator definition's id)
  std::uint64_t match;  // the message's match number (a constraint's `match`); 0: a collective call
  std::uint64_t unit;   // the unit the collective call ended, recorded just before; 0: a message
  std::uint64_t bytes;  // the message's size; a collective call: the bytes this core sent
  std::int32_t tag;     // the message's tag, as sent (a receive for any tag matched it); 0 for a collective
  std::uint32_t reserved;
};
static_assert(sizeof(MessageRecord) == 40);

// DefinitionType says what a Definition names.
enum class DefinitionType : std::uint16_t {
  call_site = 1,  // a = site id, b = line; text = file '\0' function
  construct = 2,  // a = construct kind, b = ConstructRole (3.x); text = display name '\0' colour (3.x)
  vp = 3,         // a = home core (0xFFFFFFFF: none), b = VP id, c = creation site id; text = name
  group = 4,      // a = construct kind, b = group id; text = display name
  user_event = 5, // a = user-event name id; text = the name
  lock_domain = 6, // a = domain id (a lock handoff's `domain`, 1..65535), b = the language's key; text = name (3.4)
  placement = 7,   // b = LanguagePlacement: the placement a replay uses for the language (3.6)
  word = 8,        // text = the report's name for a word '\0' the language's text for it (3.6)
  communicator = 9,  // a = communicator id (what message records name), b = its member count; text = name (3.7)
};

// Definition is one entry of a definitions chunk: this fixed part, then `text_size` bytes of
// UTF-8, padded with zeros to a multiple of 8.
struct Definition {
  std::uint16_t type;       // DefinitionType
  std::uint16_t text_size;
  std::uint32_t a;
  std::uint64_t b;
  std::uint64_t c;
};
static_assert(sizeof(Definition) == 24);

// construct_text is a construct definition's text: its name, and its colour after a NUL.
inline std::string construct_text(const std::string& name, const std::string& colour) {
  return colour.empty() ? name : name + std::string(1, '\0') + colour;
}

// word_text is a word definition's text: the report's name for the word, a NUL, the language's text.
inline std::string word_text(const std::string& name, const std::string& text) {
  return name + std::string(1, '\0') + text;
}

// EndPayload closes a complete trace; a trace without it was cut (the run crashed or was killed).
struct EndPayload {
  std::uint64_t chunks;         // chunks before this one
  std::uint64_t records;        // event records written, all cores
  std::uint64_t dropped;        // records lost: always 0 (cores wait for the writer instead)
  std::uint64_t writer_waits;   // times a core waited for the writer
  std::uint64_t end_time;       // clock reading when the recording stopped
};
static_assert(sizeof(EndPayload) == 40);

// unit_record_size is the size of a unit record with `counters` counters.
constexpr std::size_t unit_record_size(std::size_t counters) {
  return sizeof(UnitRecord) + 8 * counters;
}

}  // namespace moirai::trace
