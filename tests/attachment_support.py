"""Real small files for the attachment tests: a valid PNG of any size, a two-page PDF."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any


def png(
    width: int = 2,
    height: int = 2,
    *,
    rgb: tuple[int, int, int] = (200, 80, 40),
    rows: list[list[tuple[int, int, int]]] | None = None,
) -> bytes:
    """A valid PNG (browsers draw it), ``width`` x ``height`` of one colour, or of ``rows``."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    pixels = rows or [[rgb] * width] * height
    raw = b"".join(b"\x00" + b"".join(bytes(p) for p in row) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def pdf(pages: int = 2) -> bytes:
    """A small PDF of ``pages`` blank pages (objects written out, not compressed)."""
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>",
        *["<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"] * pages,
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, text in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{text}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def image_block(data: bytes, *, media_type: str = "image/png") -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": b64(data)},
    }


def document_block(data: bytes, *, title: str = "report.pdf") -> dict[str, Any]:
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": b64(data)},
        "title": title,
    }
