# SPDX-License-Identifier: MIT
"""The ELF kernel inside a Linux bzImage, unpacked on the host once.

Xen builds a PV dom0 from a bzImage by decompressing its payload itself, and under TCG
that decompression is emulated: Debian's xz payload took Xen 4.4 s of every boot with the
Linux dom0 here, against 0.5 s to load the same kernel given as the ELF it holds (a 66 MB
file).  The boot protocol's setup header says where the payload lies (payload_offset and
payload_length, from protocol 2.08 of Linux's x86 boot protocol); the payload
is the compressed ELF image, here xz or gzip, which Python's own lzma and zlib read.
"""

import lzma
import struct
import zlib

SETUP_SECTS_AT = 0x1F1
HEADER_MAGIC_AT = 0x202
HEADER_MAGIC = b"HdrS"
PROTOCOL_AT = 0x206
PAYLOAD_AT = 0x248          # payload_offset, payload_length: 32 bits each
PAYLOAD_PROTOCOL = 0x0208   # the first protocol version with them
SECTOR_BYTES = 512
ELF_MAGIC = b"\x7fELF"
XZ_MAGIC = b"\xfd7zXZ\x00"
GZIP_MAGIC = b"\x1f\x8b"


class KernelImageError(Exception):
    """Why a kernel image could not be unpacked, in one sentence."""


def payload(image):
    """The compressed payload of the bzImage `image` (bytes), as its setup header places
    it; KernelImageError when `image` is not a bzImage that says where its payload is."""
    if len(image) < PAYLOAD_AT + 8 or image[HEADER_MAGIC_AT:HEADER_MAGIC_AT + 4] \
            != HEADER_MAGIC:
        raise KernelImageError("it is not a Linux bzImage: no 'HdrS' setup header at "
                               "0x202")
    (protocol,) = struct.unpack_from("<H", image, PROTOCOL_AT)
    if protocol < PAYLOAD_PROTOCOL:
        raise KernelImageError(f"its boot protocol {protocol >> 8}.{protocol & 0xff:02d} "
                               f"is older than 2.08, which first says where the payload "
                               f"lies")
    setup_sects = image[SETUP_SECTS_AT] or 4   # 0 means 4, as the protocol says
    offset, length = struct.unpack_from("<II", image, PAYLOAD_AT)
    start = (setup_sects + 1) * SECTOR_BYTES + offset
    if length == 0 or start + length > len(image):
        raise KernelImageError(f"its payload ({length} bytes at {start}) lies outside "
                               f"the file's {len(image)} bytes")
    return image[start:start + length]


def kernel_elf(image):
    """The uncompressed ELF kernel of the bzImage `image` (bytes); KernelImageError when
    its payload is not xz or gzip, is corrupt, or is not an ELF file."""
    data = payload(image)
    try:
        if data.startswith(XZ_MAGIC):
            # The payload's last 4 bytes give the uncompressed size; the stream ends
            # before them, and the decompressor stops at its end.
            decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
            elf = decompressor.decompress(data)
            complete = decompressor.eof
        elif data.startswith(GZIP_MAGIC):
            decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            elf = decompressor.decompress(data)
            complete = decompressor.eof
        else:
            raise KernelImageError(f"its payload begins {data[:6].hex()}, neither xz nor "
                                   f"gzip, the two this unpacks")
    except (lzma.LZMAError, zlib.error) as error:
        raise KernelImageError(f"its payload does not decompress: {error}") from None
    if not complete:
        raise KernelImageError("its payload ends before its compressed stream does")
    if not elf.startswith(ELF_MAGIC):
        raise KernelImageError("its payload decompresses to something other than an ELF "
                               "file")
    return elf
