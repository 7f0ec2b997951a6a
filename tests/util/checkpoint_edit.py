#!/usr/bin/env python3
"""Writes a copy of a cistern checkpoint with one value of one entry changed
and both checksums made right again (host/app/io/checkpoint.h's layout: a
512-byte header, then parts of named entries; 64-bit FNV-1a), as a user
who edits a checkpoint would: what the checksum cannot catch. For
tests/checkpoint_values.sh.

Usage: checkpoint_edit.py IN OUT PART ENTRY OFFSET FORMAT VALUE
       checkpoint_edit.py --size IN PART ENTRY   (prints the entry's byte count)
  PART    the start of the part's name ("fluid 0", "bodies", "world")
  ENTRY   the entry's name ("count", "positions[0]")
  OFFSET  the byte in the entry where the value goes
  FORMAT  a struct format ("<I", "<f")
  VALUE   an integer, or a float ("nan", "inf", "1e30")
Prints the part and entry changed; exits 1 when there is no such entry."""
import struct
import sys

size_only = sys.argv[1] == '--size'
if size_only:
    src, want_part, want_entry = sys.argv[2:5]
else:
    src, dst, want_part, want_entry, offset, fmt, value = sys.argv[1:8]
    offset = int(offset)
    value = float(value) if fmt[-1] in 'fd' else int(value, 0)
data = bytearray(open(src, 'rb').read())


def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h


at = 512


def take(n):
    global at
    b = bytes(data[at:at + n])
    at += n
    return b


def string():
    (n,) = struct.unpack('<I', take(4))
    return take(n).decode()


done = False
while at < len(data) and not done:
    part = string()
    (count,) = struct.unpack('<I', take(4))
    for _ in range(count):
        name = string()
        (size,) = struct.unpack('<Q', take(8))
        if part.startswith(want_part) and name == want_entry and size_only:
            print(size)
            sys.exit(0)
        if part.startswith(want_part) and name == want_entry:
            if offset + struct.calcsize(fmt) > size:
                sys.exit(f'{part}: {name} holds {size} bytes, no room for {fmt} at {offset}')
            struct.pack_into(fmt, data, at + offset, value)
            print(f'{part}: {name}: {fmt} {value} at byte {offset}')
            done = True
            break
        at += size
if not done:
    sys.exit(f'no entry {want_entry} in a part starting "{want_part}"')
# The payload's checksum, then the header's (its own field 0 while summed).
struct.pack_into('<Q', data, 40, fnv(data[512:]))
header = bytearray(data[:512])
header[16:24] = bytes(8)
struct.pack_into('<Q', data, 16, fnv(header))
open(dst, 'wb').write(data)
