"""Minimal reader for OpenClonk c4group archives (.ocg/.ocd) as shipped in Debian openclonk-data.

Format: gzip stream whose magic is 1E 8C instead of 1F 8B; a 204-byte header scrambled by byte-swap
(every 3 bytes, positions 0 and 2) and XOR 0xED; then N 316-byte entry records, then file data.
Child groups are nested (uncompressed) groups.  Usage: c4group_extract.py GROUP [DEST MEMBER...]
"""
import sys, zlib, struct, os
def unscramble(b):
    b = bytearray(b)
    for i in range(0, len(b) - 2, 3):
        b[i], b[i+2] = b[i+2], b[i]
    return bytes(x ^ 237 for x in b)
def parse(data, prefix, out):
    hdr = unscramble(data[:204])
    assert hdr.startswith(b'RedWolf Design GrpFolder'), hdr[:30]
    n = struct.unpack_from('<i', hdr, 36)[0]
    ES = 316
    base = 204 + n * ES
    for k in range(n):
        e = data[204 + k*ES: 204 + (k+1)*ES]
        name = e[:260].split(b'\0')[0].decode('latin-1')
        packed, child, size, _r1, off = struct.unpack_from('<iiiii', e, 260)
        blob = data[base+off: base+off+size]
        if child:
            parse(blob, prefix + name + '/', out)
        else:
            out[prefix + name] = blob
def load(path):
    raw = open(path, 'rb').read()
    raw = b'\x1f\x8b' + raw[2:]
    return zlib.decompress(raw, 47)
if __name__ == '__main__':
    out = {}
    parse(load(sys.argv[1]), '', out)
    if len(sys.argv) == 2:
        for k, v in sorted(out.items()): print(len(v), k)
    else:
        dest = sys.argv[2]
        for k in sys.argv[3:]:
            p = os.path.join(dest, k); os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, 'wb').write(out[k])
