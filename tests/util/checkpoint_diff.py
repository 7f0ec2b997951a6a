#!/usr/bin/env python3
"""Names the entries two cistern checkpoints differ in (host/app/io/checkpoint.h's
layout: a 512-byte header, then parts of named entries). For the failure
messages of tests/checkpoint_resume.sh. Usage: checkpoint_diff.py A B"""
import struct
import sys


def entries(path):
    data = open(path, 'rb').read()
    at, out = 512, {}

    def take(n):
        nonlocal at
        b = data[at:at + n]
        at += n
        return b

    def string():
        (n,) = struct.unpack('<I', take(4))
        return take(n).decode()

    while at < len(data):
        part = string()
        (count,) = struct.unpack('<I', take(4))
        for _ in range(count):
            name = string()
            (size,) = struct.unpack('<Q', take(8))
            out[part + ': ' + name] = take(size)
    return data[:512], out


ha, a = entries(sys.argv[1])
hb, b = entries(sys.argv[2])
if ha[24:32] != hb[24:32] or ha[48:52] != hb[48:52]:
    print('headers differ (scene hash or frame)')
for key in a:
    if key not in b:
        print(f'{key}: only in the first')
    elif a[key] != b[key]:
        first = next(i for i in range(min(len(a[key]), len(b[key]))) if a[key][i] != b[key][i]) \
            if len(a[key]) == len(b[key]) else -1
        print(f'{key}: differs ({len(a[key])} bytes; first at byte {first})')
for key in b:
    if key not in a:
        print(f'{key}: only in the second')
