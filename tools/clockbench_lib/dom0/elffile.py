# SPDX-License-Identifier: MIT
"""What the dom0 builder reads from 64-bit little-endian ELF files (x86-64 programs,
libraries and kernel modules): the program interpreter, the libraries a file needs
(DT_NEEDED) and where it says to look for them (DT_RUNPATH, DT_RPATH), and a named
section's bytes (a kernel module's .modinfo).

The dynamic section is found as the dynamic loader finds it, through the program headers
(PT_INTERP, PT_DYNAMIC, and DT_STRTAB's address mapped to a file offset by the PT_LOAD
segments), so stripped section headers do not matter; sections are found by name through
the section headers.  Offsets and sizes are checked against the file: a truncated or
corrupt file is an ElfError, said in one sentence.
"""

import struct
from dataclasses import dataclass, field

ELF_MAGIC = b"\x7fELF"
ELFCLASS64 = 2
ELFDATA2LSB = 1
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 15, 29
_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_PHDR = struct.Struct("<IIQQQQQQ")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_DYN = struct.Struct("<qQ")


class ElfError(Exception):
    """A file that is not a readable 64-bit little-endian ELF file, in one sentence."""


@dataclass
class ElfFile:
    """What read_elf() found; lists are empty (and interpreter None) when the file has none."""

    path: str
    interpreter: str = None
    needed: list = field(default_factory=list)
    runpath: list = field(default_factory=list)  # DT_RUNPATH, else DT_RPATH, split at ':'
    sections: dict = field(default_factory=dict)  # name -> (file offset, size)


def is_elf(path):
    """True when the file at `path` starts with the ELF magic."""
    with open(path, "rb") as source:
        return source.read(4) == ELF_MAGIC


def _slice(data, offset, size, path, what):
    if offset < 0 or size < 0 or offset + size > len(data):
        raise ElfError(f"{path}: its {what} lies outside the file (offset {offset}, "
                       f"{size} bytes of {len(data)}).")
    return data[offset:offset + size]


def _string(data, offset, path, what):
    if not 0 <= offset < len(data):
        raise ElfError(f"{path}: its {what} string lies outside the file.")
    end = data.find(b"\0", offset)
    if end < 0:
        raise ElfError(f"{path}: its {what} string has no NUL.")
    return data[offset:end].decode("utf-8", "replace")


def _table(data, offset, entry_size, count, layout, path, what):
    """The entries of a header table, each unpacked with `layout`."""
    if count and entry_size < layout.size:
        raise ElfError(f"{path}: its {what} entries are {entry_size} bytes, fewer than "
                       f"{layout.size}.")
    raw = _slice(data, offset, entry_size * count, path, what)
    return [layout.unpack_from(raw, index * entry_size) for index in range(count)]


def read_elf(path):
    """Read the file at `path`; returns ElfFile, or raises ElfError (OSError when the file
    cannot be read at all)."""
    with open(path, "rb") as source:
        return parse_elf(source.read(), path)


def parse_elf(data, path):
    """ElfFile of the ELF file whose bytes are `data` (`path` names it in errors)."""
    if len(data) < _EHDR.size or data[:4] != ELF_MAGIC:
        raise ElfError(f"{path} is not an ELF file.")
    if data[4] != ELFCLASS64 or data[5] != ELFDATA2LSB:
        raise ElfError(f"{path} is not a 64-bit little-endian ELF file.")
    (_, _, _, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum,
     shstrndx) = _EHDR.unpack_from(data)
    info = ElfFile(path)
    segments = _table(data, phoff, phentsize, phnum, _PHDR, path, "program header")
    loads = [(vaddr, offset, filesz) for kind, _, offset, vaddr, _, filesz, _, _ in segments
             if kind == PT_LOAD]
    for kind, _, offset, _, _, filesz, _, _ in segments:
        if kind == PT_INTERP:
            info.interpreter = _string(_slice(data, offset, filesz, path, "PT_INTERP"), 0,
                                       path, "interpreter")
        elif kind == PT_DYNAMIC:
            _read_dynamic(info, data, _slice(data, offset, filesz, path, "PT_DYNAMIC"),
                          loads)
    if shnum:
        sections = _table(data, shoff, shentsize, shnum, _SHDR, path, "section header")
        if shstrndx >= shnum:
            raise ElfError(f"{path}: its section name table index {shstrndx} is not "
                           f"below its {shnum} sections.")
        names = sections[shstrndx]
        names_data = _slice(data, names[4], names[5], path, "section name table")
        for name, kind, _, _, offset, size, _, _, _, _ in sections:
            if kind != 8:  # SHT_NOBITS occupies no file space
                info.sections[_string(names_data, name, path, "section name")] = (
                    offset, size)
    return info


def _read_dynamic(info, data, dynamic, loads):
    """Fill `info`'s needed and runpath from the dynamic section's bytes."""
    entries = []
    for index in range(len(dynamic) // _DYN.size):
        tag, value = _DYN.unpack_from(dynamic, index * _DYN.size)
        if tag == DT_NULL:
            break
        entries.append((tag, value))
    strtab = next((value for tag, value in entries if tag == DT_STRTAB), None)
    strsz = next((value for tag, value in entries if tag == DT_STRSZ), None)
    if strtab is None or strsz is None:
        raise ElfError(f"{info.path}: its dynamic section has no string table.")
    offset = next((strtab - vaddr + file_offset for vaddr, file_offset, filesz in loads
                   if vaddr <= strtab < vaddr + filesz), None)
    if offset is None:
        raise ElfError(f"{info.path}: its dynamic string table at {strtab:#x} is in no "
                       f"loaded segment.")
    strings = _slice(data, offset, strsz, info.path, "dynamic string table")
    info.needed = [_string(strings, value, info.path, "DT_NEEDED")
                   for tag, value in entries if tag == DT_NEEDED]
    for wanted in (DT_RUNPATH, DT_RPATH):
        paths = [_string(strings, value, info.path, "run path")
                 for tag, value in entries if tag == wanted]
        if paths:
            info.runpath = [part for text in paths for part in text.split(":") if part]
            break


def section_bytes(data, name, path):
    """The bytes of the section called `name` in the ELF file whose bytes are `data`, or
    None (`path` names it in errors)."""
    info = parse_elf(data, path)
    if name not in info.sections:
        return None
    offset, size = info.sections[name]
    return _slice(data, offset, size, path, f"section {name}")


def modinfo(data):
    """A kernel module's .modinfo bytes as a dict: key -> list of values (keys repeat)."""
    fields = {}
    for item in data.split(b"\0"):
        key, sep, value = item.decode("utf-8", "replace").partition("=")
        if sep:
            fields.setdefault(key, []).append(value)
    return fields
