# SPDX-License-Identifier: MIT
"""The newc cpio format, Linux's initramfs format: a writer, and a reader for checking it.

An archive is a series of entries, each a 110-byte ASCII header, the entry's name with a
NUL, padding to a multiple of 4 bytes, the data, and padding to a multiple of 4 again.
The header is the magic "070701" and 13 fields of 8 hexadecimal digits: ino, mode, uid,
gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor, namesize (the NUL
included) and check (0 in newc).  An entry named "TRAILER!!!" ends the archive (Linux's
Documentation/driver-api/early-userspace/buffer-format.rst, cpio(5)).

Linux's unpacker creates each entry as it comes and does not make missing parent
folders, so the writer emits every parent folder first, once.  Archives are reproducible:
inode numbers count from 1, and owner, group and time are the same for every entry.
"""

import stat
from dataclasses import dataclass

MAGIC = b"070701"
HEADER_BYTES = 110
FIELDS = ("ino", "mode", "uid", "gid", "nlink", "mtime", "filesize", "devmajor",
          "devminor", "rdevmajor", "rdevminor", "namesize", "check")
TRAILER = "TRAILER!!!"
ALIGN = 4
FIELD_MAX = 0xFFFFFFFF


class CpioError(Exception):
    """A malformed archive, or an entry the format cannot hold, said in one sentence."""


def _padding(length):
    """The bytes that bring `length` up to a multiple of ALIGN."""
    return b"\0" * (-length % ALIGN)


def _archive_name(path):
    """The name an entry is stored under: the path without a leading "/", "." for the root."""
    name = path.strip("/")
    if not name or name == ".":
        return "."
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise CpioError(f"'{path}' is not a plain path (empty, '.' or '..' parts).")
    return name


def header(values):
    """The 110-byte header for a dict of FIELDS (missing fields are 0)."""
    for key, value in values.items():
        if key not in FIELDS:
            raise CpioError(f"'{key}' is not a newc header field.")
        if not 0 <= value <= FIELD_MAX:
            raise CpioError(f"newc field {key} = {value} does not fit in 32 bits.")
    return MAGIC + b"".join(b"%08X" % values.get(key, 0) for key in FIELDS)


class NewcWriter:
    """Writes a newc archive to a binary file object; close() adds the trailer.

    Entries are added with directory(), file(), symlink() and device(); each path's parent
    folders are added first (mode 0755) unless already there.  A path added twice is refused.
    """

    def __init__(self, out, mtime=0):
        self._out = out
        self._mtime = mtime
        self._next_ino = 1
        self._names = set()
        self.bytes_written = 0
        self.entries = 0  # entries written, the trailer not counted

    def _write(self, data):
        self._out.write(data)
        self.bytes_written += len(data)

    def _entry(self, name, mode, data=b"", nlink=1, rdev=(0, 0)):
        encoded = name.encode("utf-8") + b"\0"
        values = {"ino": self._next_ino, "mode": mode, "nlink": nlink, "mtime": self._mtime,
                  "filesize": len(data), "rdevmajor": rdev[0], "rdevminor": rdev[1],
                  "namesize": len(encoded)}
        if name == TRAILER:
            values = {"nlink": 1, "namesize": len(encoded)}
        else:
            self._next_ino += 1
            self.entries += 1
        self._write(header(values) + encoded + _padding(HEADER_BYTES + len(encoded)))
        self._write(data)
        self._write(_padding(len(data)))

    def _claim(self, path):
        """The archive name of `path`, after adding its missing parents; refuses repeats."""
        name = _archive_name(path)
        if name in self._names:
            raise CpioError(f"'{path}' is already in the archive.")
        parts = name.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent not in self._names:
                self._names.add(parent)
                self._entry(parent, stat.S_IFDIR | 0o755, nlink=2)
        self._names.add(name)
        return name

    def has(self, path):
        """True when `path` (or a folder of that name) is in the archive already."""
        return _archive_name(path) in self._names

    def directory(self, path, mode=0o755):
        """A folder."""
        self._entry(self._claim(path), stat.S_IFDIR | mode, nlink=2)

    def file(self, path, data, mode=0o644):
        """A regular file holding the bytes `data`."""
        self._entry(self._claim(path), stat.S_IFREG | mode, data)

    def symlink(self, path, target):
        """A symbolic link to `target` (stored as the entry's data, without a NUL)."""
        self._entry(self._claim(path), stat.S_IFLNK | 0o777, target.encode("utf-8"))

    def device(self, path, kind, major, minor, mode=0o600):
        """A device node: `kind` "c" (character) or "b" (block)."""
        if kind not in ("c", "b"):
            raise CpioError(f"device kind '{kind}' is neither 'c' nor 'b'.")
        file_type = stat.S_IFCHR if kind == "c" else stat.S_IFBLK
        self._entry(self._claim(path), file_type | mode, rdev=(major, minor))

    def close(self):
        """End the archive with its trailer (the file object stays open)."""
        self._entry(TRAILER, 0)


@dataclass
class Entry:
    """One entry as read back: its name, mode (type and permissions), data and fields."""

    name: str
    mode: int
    data: bytes
    fields: dict

    @property
    def is_dir(self):
        """True for a folder."""
        return stat.S_ISDIR(self.mode)

    @property
    def is_symlink(self):
        """True for a symbolic link."""
        return stat.S_ISLNK(self.mode)


def read_newc(data):
    """The entries of the newc archive `data` (bytes) up to its trailer; CpioError when the
    archive is malformed: a wrong magic, a field that is not hexadecimal, a name without
    its NUL, nonzero padding, data past the end, or no trailer."""
    entries = []
    offset = 0
    while True:
        if offset + HEADER_BYTES > len(data):
            raise CpioError(f"the archive ends at byte {len(data)} without a {TRAILER} entry.")
        raw = data[offset:offset + HEADER_BYTES]
        if raw[:6] != MAGIC:
            raise CpioError(f"bad magic {raw[:6]!r} at byte {offset} (expected {MAGIC!r}).")
        fields = {}
        for index, key in enumerate(FIELDS):
            text = raw[6 + 8 * index:14 + 8 * index]
            try:
                fields[key] = int(text, 16)
            except ValueError:
                raise CpioError(f"field {key} at byte {offset} is {text!r}, not 8 hex "
                                f"digits.") from None
        name_start = offset + HEADER_BYTES
        name_end = name_start + fields["namesize"]
        data_start = name_end + (-(HEADER_BYTES + fields["namesize"]) % ALIGN)
        data_end = data_start + fields["filesize"]
        next_entry = data_end + (-fields["filesize"] % ALIGN)
        if fields["namesize"] < 1 or next_entry > len(data):
            raise CpioError(f"the entry at byte {offset} runs past the archive's end.")
        if data[name_end - 1] != 0:
            raise CpioError(f"the name of the entry at byte {offset} has no NUL.")
        if any(data[name_end:data_start]) or any(data[data_end:next_entry]):
            raise CpioError(f"the entry at byte {offset} has nonzero padding.")
        name = data[name_start:name_end - 1].decode("utf-8")
        if name == TRAILER:
            return entries
        entries.append(Entry(name, fields["mode"], data[data_start:data_end], fields))
        offset = next_entry
