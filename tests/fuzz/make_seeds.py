#!/usr/bin/env python3
"""Writes the named seeds of the ucx_hello, mpi_control and appbench_protocol targets into
corpus/<target>/ (the frame_header and handshake seeds predate this script and are kept as
committed). One function per wire format, following its header's layout comment: after a
format change (a new hello field, a version bump) edit the function, rerun this, then
`run_fuzzers.sh --grow 2` so the grown inputs follow the new layout too.
Usage: /usr/bin/python3 tests/fuzz/make_seeds.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    os.makedirs(os.path.join(HERE, "corpus", target), exist_ok=True)
    with open(os.path.join(HERE, "corpus", target, name), "wb") as f:
        f.write(data)


# ucx/ucx_hello.hpp (version 2): u32 magic | u16 version | u16 address length | u64 tag,
# then the common hello v2 (comm/handshake.hpp: u32 magic | u16 version | u16 name length |
# u8[16] job token | u16 id length | u16 reserved | name | id), then the address.
TOKEN = bytes(range(16))


def common(name, ident=b"rank 0", hmagic=0x53484243, hver=2, nlen=None, idlen=None,
           reserved=0, token=TOKEN):
    nlen = len(name) if nlen is None else nlen
    idlen = len(ident) if idlen is None else idlen
    return (struct.pack("<IHH", hmagic, hver, nlen) + token +
            struct.pack("<HH", idlen, reserved) + name + ident)


def ucx(name=b"ucx://10.0.0.1:1234", addr=b"\x07" * 40, magic=0x58554243, ver=2, alen=None,
        tag=0x1122334455667788, **kw):
    alen = len(addr) if alen is None else alen
    return struct.pack("<IHHQ", magic, ver, alen, tag) + common(name, **kw) + addr


def ucx_hello():
    t = "ucx_hello"
    write(t, "valid", ucx())
    write(t, "valid_empty_name_one_byte_address", ucx(name=b"", addr=b"\x01"))
    write(t, "bad_magic", ucx(magic=0x58554244))
    write(t, "bad_version", ucx(ver=1))
    write(t, "version1_common_hello", ucx(hver=1))
    write(t, "id_over_limit", ucx(idlen=65, ident=b""))
    write(t, "reserved_nonzero", ucx(reserved=1))
    write(t, "bad_common_magic", ucx(hmagic=0))
    write(t, "address_length_zero", ucx(addr=b""))
    write(t, "address_length_over_limit", ucx(alen=16385, addr=b""))
    write(t, "name_over_limit", ucx(nlen=1025, name=b""))
    write(t, "truncated_fixed", ucx()[:20])
    write(t, "rest_shorter_than_announced", ucx()[:-1])
    write(t, "rest_longer_than_announced", ucx() + b"\0")


# mpi/mpi_control_wire.hpp, the structs' bytes. The target's first byte picks the decoder:
# 0 request, 1 reply (then the u64 nonce the connector expects), 2 close notice.
# Version 2 adds the job token and the sender's identity (u16 length + char[64]); the
# structs are padded to 8 bytes.
def ident(text=b"rank 0", n=None):
    n = len(text) if n is None else n
    return struct.pack("<H", n) + text.ljust(64, b"\0")


def request(magic=0x514D4243, ver=2, lane=1, svc=1, tag=20, nonce=7, idn=None):
    b = struct.pack("<IHHiiQ", magic, ver, lane, svc, tag, nonce) + TOKEN + ident(n=idn)
    return b.ljust((len(b) + 7) // 8 * 8, b"\0")


def reply(magic=0x524D4243, status=0, tag=17, lane=1, nonce=7, idn=None):
    b = struct.pack("<IiiiQ", magic, status, tag, lane, nonce) + ident(b"rank 1", idn)
    return b.ljust((len(b) + 7) // 8 * 8, b"\0")


def notice(magic=0x4E4D4243, tag=17, sent=3):
    return struct.pack("<IiQ", magic, tag, sent)


def mpi_control():
    t = "mpi_control"
    nonce = struct.pack("<Q", 7)
    write(t, "request_valid", b"\0" + request())
    write(t, "request_bad_magic", b"\0" + request(magic=1))
    write(t, "request_bad_version", b"\0" + request(ver=1))
    write(t, "request_id_over_limit", b"\0" + request(idn=65))
    write(t, "reply_id_over_limit", b"\1" + nonce + reply(idn=65))
    write(t, "reply_wrong_token_status", b"\1" + nonce + reply(status=3, lane=0))
    write(t, "request_short", b"\0" + request()[:16])
    write(t, "request_long", b"\0" + request() + b"\0" * 8)
    write(t, "reply_accept", b"\1" + nonce + reply())
    write(t, "reply_no_listener", b"\1" + nonce + reply(status=1, lane=0))
    write(t, "reply_wrong_nonce", b"\1" + nonce + reply(nonce=8))
    write(t, "reply_lane_out_of_range", b"\1" + nonce + reply(lane=9))
    write(t, "reply_short", b"\1" + nonce + reply()[:20])
    write(t, "notice_valid", b"\2" + notice())
    write(t, "notice_bad_magic", b"\2" + notice(magic=0))
    write(t, "notice_short", b"\2" + notice()[:12])


# appbench/distributed/protocol.hpp: op byte (the message's index in ControlMessage), then
# fields in order; integers little-endian fixed width; strings, blobs and lists as a u32
# count + items.
def u32(v): return struct.pack("<I", v)
def i32(v): return struct.pack("<i", v)
def u64(v): return struct.pack("<Q", v)
def s(x): return u32(len(x)) + x
def lst(items): return u32(len(items)) + b"".join(items)


def task(key, func, deps, args, worker):
    return s(key) + s(func) + lst([s(d) for d in deps]) + s(args) + i32(worker)


def appbench_protocol():
    t = "appbench_protocol"
    transfer = i32(0) + i32(1) + s(b"x-1") + u64(4096) + u64(10) + u64(20)
    stats = i32(1) + u64(5) + u64(700) + u64(900) + lst([transfer, transfer])
    write(t, "hello", b"\0\3" + i32(3))
    write(t, "hello_unknown_role", b"\0\4" + i32(3))
    write(t, "submit", b"\1" + u64(42) + lst([
        task(b"x-1", b"make_block", [b"a", b"b"], u64(3) + u64(1 << 40), 2),
        task(b"y", b"sum", [], b"", -1)]))
    write(t, "graph_done", b"\2" + u64(42) + lst([s(b"x-1") + i32(1) + u64(4096)]))
    write(t, "compute", b"\4" + s(b"y") + s(b"sum") + s(u64(9)) + lst([s(b"x-1") + i32(1)]))
    write(t, "task_failed", b"\6" + s(b"y") + s(b"boom") + i32(1))
    write(t, "data", b"\x09" + lst([s(b"x-1"), s(b"y")]) + lst([u32(2), u32(1)]))
    write(t, "stats_reply", b"\x0c" + u64(7) + lst([stats, stats]))
    write(t, "shutdown", b"\x0d")
    write(t, "unknown_op", b"\x0e")
    write(t, "count_beyond_message", b"\x07" + u32(0xFFFFFFFF) + s(b"a"))
    write(t, "trailing_byte", b"\x0d\0")
    # 100 empty tasks claimed, and the first one's dependency count claims the bytes the
    # other 99 need: both counts fit the remaining bytes on their own, and together cost
    # 14 bytes of memory per byte received (CI's fuzz run found it).
    first = s(b"") + s(b"") + u32((20 * 100 - 12) // 4)
    submit = b"\1" + u64(0) + u32(100) + first
    write(t, "regression_nested_counts_share_bytes", submit + b"\0" * (13 + 20 * 100 - len(submit)))


if __name__ == "__main__":
    ucx_hello()
    mpi_control()
    appbench_protocol()
