# alert_pixels.py PNG: how many pixels have the alert text's red (linear 1.0,
# 0.08, 0.05, sRGB-encoded ~ 255, 80, 63: feature_overlay.c's
# CS_OVERLAY_ALERT), the colour shader and scene errors and the level
# viewer's "outside every room" are drawn in. Debian's Python has no PNG
# reader; this one knows stb_image_write's 8-bit RGB(A) files.
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', data[pos + 8:pos + 18])
        bpp = 4 if ctype == 6 else 3
    elif kind == b'IDAT':
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw, stride, prev, count = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a, b = line[i - bpp] if i >= bpp else 0, prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pred = [0, a, b, (a + b) // 2,
                a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
        line[i] = (line[i] + pred) & 255
    count += sum(1 for x in range(w) if line[x * bpp] >= 230 and 50 <= line[x * bpp + 1] <= 110
                 and 35 <= line[x * bpp + 2] <= 95)
    prev = line
print(count)
