#!/usr/bin/env python3
"""Writes traces that break what the end chunk and the metadata promise, from a sound recorded
trace (docs/trace-format.md), for the CTests that check every command refuses or warns alike:
  missing_core.mtrace  core 1's events chunks lost whole (the later chunks renumbered): the end
                       chunk counts records and chunks the file no longer holds
  end_totals.mtrace    the end chunk's totals at values the format forbids (2^63 records, 2^63
                       dropped, 2^64-1 writer waits)
  before_start.mtrace  core 1's first unit begins at tick 0, long before the run's start_ticks
usage: bad_traces.py SOUND_TRACE OUT_DIR"""
import os
import struct
import sys
import zlib

HEADER, CHUNK = 16, 24
EVENTS, END = 3, 4
RECORD_SIZES = {2: 24, 3: 40, 4: 24, 5: 24, 6: 24, 7: 24, 8: 24, 9: 32, 10: 24, 11: 24}  # unit: by counters


def chunks(data):
    at = HEADER
    while at + CHUNK <= len(data):
        magic, kind, core, size, crc, seq = struct.unpack_from("<IHHIIQ", data, at)
        yield {"at": at, "type": kind, "core": core, "size": size, "seq": seq}
        at += CHUNK + size


def checksum(data, chunk, minor):
    payload = bytes(data[chunk["at"] + CHUNK:chunk["at"] + CHUNK + chunk["size"]])
    crc = zlib.crc32(bytes(data[chunk["at"] + 4:chunk["at"] + 12])) if minor >= 3 else 0
    return zlib.crc32(payload, crc)


def seal(data, minor):
    """Renumbers every chunk in file order and gives each its checksum."""
    for seq, chunk in enumerate(chunks(data)):
        struct.pack_into("<I", data, chunk["at"] + 12, checksum(data, chunk, minor))
        struct.pack_into("<Q", data, chunk["at"] + 16, seq)
    return data


def main():
    source, out = sys.argv[1], sys.argv[2]
    data = bytearray(open(source, "rb").read())
    major, minor = struct.unpack_from("<HH", data, 8)
    all_chunks = list(chunks(data))
    metadata = data[all_chunks[0]["at"] + CHUNK:all_chunks[0]["at"] + CHUNK + all_chunks[0]["size"]].decode()
    counters = [c for c in dict(line.split("=", 1) for line in metadata.splitlines() if "=" in line)["counters"].split(",") if c]
    unit_size = 72 + 8 * len(counters)
    os.makedirs(out, exist_ok=True)

    missing = bytearray(data[:HEADER])
    for chunk in all_chunks:
        if not (chunk["type"] == EVENTS and chunk["core"] == 1):
            missing += data[chunk["at"]:chunk["at"] + CHUNK + chunk["size"]]
    open(os.path.join(out, "missing_core.mtrace"), "wb").write(seal(missing, minor))

    totals = bytearray(data)
    end = all_chunks[-1]
    assert end["type"] == END
    struct.pack_into("<QQQ", totals, end["at"] + CHUNK + 8, 1 << 63, 1 << 63, (1 << 64) - 1)
    open(os.path.join(out, "end_totals.mtrace"), "wb").write(seal(totals, minor))

    early = bytearray(data)
    first = next(c for c in all_chunks if c["type"] == EVENTS and c["core"] == 1)
    at = first["at"] + CHUNK
    while struct.unpack_from("<H", early, at)[0] != 1:
        at += RECORD_SIZES[struct.unpack_from("<H", early, at)[0]]
    struct.pack_into("<Q", early, at + 24, 0)  # the unit's assign: its life-line begins at tick 0
    open(os.path.join(out, "before_start.mtrace"), "wb").write(seal(early, minor))


if __name__ == "__main__":
    main()
