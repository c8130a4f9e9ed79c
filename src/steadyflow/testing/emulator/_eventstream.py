"""AWS's binary event-stream framing, written without botocore.

Bedrock streams a model's answer as ``application/vnd.amazon.eventstream``
messages rather than SSE. Each message is framed as::

    total length (4) | headers length (4) | CRC32 of those 8 bytes (4)
    | headers | payload | CRC32 of everything before (4)

and each header as ``name length (1) | name | type (1, 7 = string) | value
length (2) | value``, all big-endian. The emulator writes only string
headers, which is all Bedrock's runtime sends.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping

__all__ = ["event_message"]

_STRING = 7


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack(">B", len(raw_name))
        + raw_name
        + struct.pack(">BH", _STRING, len(raw_value))
        + raw_value
    )


def event_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One framed event-stream message carrying ``payload``."""
    head = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", zlib.crc32(message))
