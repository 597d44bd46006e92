"""A small PDF text reader (and writer, for built-in data) without third-party dependencies.

The reader decodes content streams (uncompressed or FlateDecode) and collects the strings shown by
the text operators ``Tj``, ``TJ``, ``'`` and ``"``, starting a new line at ``T*``, ``Td``/``TD``
with a vertical move, and ``ET``. It covers text PDFs written by common tools with standard
encodings; scanned (image-only) PDFs or custom font encodings give little or no text.
"""

from __future__ import annotations

import re
import zlib

_STREAM = re.compile(rb"<<(.*?)>>\s*stream\r?\n(.*?)\r?\nendstream", re.DOTALL)
_TOKEN = re.compile(rb"\((?:\\.|[^\\)])*\)|\[|\]|<[0-9A-Fa-f\s]*>|/[^\s/\[\]()<>]+|-?\d*\.?\d+|[A-Za-z'\"*]+")


def _unescape(raw: bytes) -> str:
    out = bytearray()
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == 0x5C and i + 1 < len(raw):  # backslash
            n = raw[i + 1]
            simple = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("b"): 8, ord("f"): 12}
            if n in simple:
                out.append(simple[n])
                i += 2
            elif 0x30 <= n <= 0x37:
                m = re.match(rb"[0-7]{1,3}", raw[i + 1:i + 4])
                assert m is not None  # raw[i + 1] is an octal digit, so the match cannot fail
                out.append(int(m.group(0), 8) & 0xFF)
                i += 1 + len(m.group(0))
            elif n in (0x0A, 0x0D):
                i += 2
            else:
                out.append(n)
                i += 2
        else:
            out.append(c)
            i += 1
    return out.decode("latin-1")


def _string(tok: bytes) -> str:
    if tok.startswith(b"("):
        return _unescape(tok[1:-1])
    hexs = re.sub(rb"\s", b"", tok[1:-1])
    if len(hexs) % 2:
        hexs += b"0"
    data = bytes.fromhex(hexs.decode())
    if data.startswith(b"\xfe\xff"):
        return data[2:].decode("utf-16-be", "replace")
    return data.decode("latin-1")


def _content_text(stream: bytes) -> str:
    lines: list[str] = []
    cur: list[str] = []
    operands: list[bytes] = []
    in_array: list[str] | None = None
    for tok in _TOKEN.findall(stream):
        if tok == b"[":
            in_array = []
        elif tok == b"]":
            operands.append(b"__array__")
            cur_array = in_array or []
            in_array = None
            operands[-1] = "".join(cur_array).encode("utf-8", "replace")
        elif tok.startswith((b"(", b"<")) and not tok.startswith(b"<<"):
            if in_array is not None:
                in_array.append(_string(tok))
            else:
                operands.append(_string(tok).encode("utf-8", "replace"))
        elif re.fullmatch(rb"-?\d*\.?\d+", tok):
            if in_array is not None:
                if float(tok) < -200:
                    in_array.append(" ")
            else:
                operands.append(tok)
        elif tok.startswith(b"/"):
            operands.append(tok)
        else:
            op = tok
            if op in (b"Tj", b"TJ") and operands:
                cur.append(operands[-1].decode("utf-8", "replace"))
            elif op in (b"'", b'"') and operands:
                lines.append("".join(cur))
                cur = [operands[-1].decode("utf-8", "replace")]
            elif op in (b"T*", b"ET") or (op in (b"Td", b"TD") and len(operands) >= 2 and float(operands[-1]) != 0):
                if cur:
                    lines.append("".join(cur))
                    cur = []
            operands = []
    if cur:
        lines.append("".join(cur))
    return "\n".join(lines)


def extract_text(data: bytes) -> str:
    """The text of a PDF's content streams, one shown line per line."""
    if not data.startswith(b"%PDF"):
        raise ValueError("not a PDF file")
    parts = []
    for head, body in _STREAM.findall(data):
        if b"/Subtype /Image" in head or b"/Subtype/Image" in head:
            continue
        if b"FlateDecode" in head:
            try:
                body = zlib.decompress(body)
            except zlib.error:
                continue
        elif b"/Filter" in head:
            continue
        if b"BT" in body:
            parts.append(_content_text(body))
    return "\n".join(p for p in parts if p.strip())


def write_pdf(lines: list[str], *, compress: bool = True) -> bytes:
    """A one-page PDF showing ``lines`` in Helvetica (latin-1 text), for built-in workspace files."""

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    body = "BT /F1 11 Tf 50 780 Td 14 TL\n" + "\n".join(f"({esc(line)}) Tj T*" for line in lines) + "\nET"
    raw = body.encode("latin-1", "replace")
    stream = zlib.compress(raw) if compress else raw
    filt = b" /Filter /FlateDecode" if compress else b""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length " + str(len(stream)).encode() + filt + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + o + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
