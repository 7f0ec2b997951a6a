# png_diff.py A.png B.png X0: how many pixels at x >= X0 differ between two
# images of one size (stb_image_write's 8-bit RGB(A) files; Debian's Python
# has no PNG reader). Prints the count, or "size" when the sizes differ.
import struct, sys, zlib

def load(path):
    data = open(path, 'rb').read()
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', data[pos + 8:pos + 18])
            bpp = 4 if ctype == 6 else 3
        elif kind == b'IDAT':
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
            line[i] = (line[i] + pred) & 255
        rows.append(bytes(line[x * bpp + k] for x in range(w) for k in range(3)))
        prev = line
    return w, h, rows

wa, ha, a = load(sys.argv[1])
wb, hb, b = load(sys.argv[2])
x0 = int(sys.argv[3])
if (wa, ha) != (wb, hb):
    print("size")
    sys.exit(0)
print(sum(1 for y in range(ha) for x in range(x0, wa) if a[y][3 * x:3 * x + 3] != b[y][3 * x:3 * x + 3]))
