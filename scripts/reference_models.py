"""Small pieces of the project's own reference models, shared by the generators (stdlib only).

These are the scripts' independent models of the algorithms (checked against the oracles and the
RFC vectors by the generators that use them), not the oracles themselves.
"""

import hmac
import re
from urllib.parse import unquote_to_bytes

# RFC 3986 section 2.3 unreserved characters.
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def uri_encode(text, keep_slash=False):
    """RFC 3986 percent-encoding of the UTF-8 of `text`: every byte outside UNRESERVED (and `/`
    unless `keep_slash`) as %XX, upper-case hex."""
    out = []
    for b in text.encode("utf-8"):
        if b in UNRESERVED or (keep_slash and b == 0x2F):
            out.append(chr(b))
        else:
            out.append("%%%02X" % b)
    return "".join(out)


def hkdf_expand(alg, prk, info, length):
    """HKDF-Expand, RFC 5869 section 2.3: T(i) = HMAC(PRK, T(i-1) | info | i), the first `length` bytes."""
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), alg).digest()
        out += t
        i += 1
    return out[:length]


def remove_dot_segments(path):
    """RFC 3986 section 5.2.4."""
    inp, out = path, ""
    while inp:
        if inp.startswith("../"):
            inp = inp[3:]
        elif inp.startswith("./"):
            inp = inp[2:]
        elif inp.startswith("/./"):
            inp = "/" + inp[3:]
        elif inp == "/.":
            inp = "/"
        elif inp.startswith("/../") or inp == "/..":
            inp = "/" + inp[4:] if inp.startswith("/../") else "/"
            out = out[: out.rfind("/")] if "/" in out else ""
        elif inp in (".", ".."):
            inp = ""
        else:
            seg = re.match(r"/?[^/]*", inp).group(0)
            out += seg
            inp = inp[len(seg):]
    return out


def normalize_path(path):
    """A SigV4 canonical path (vectors.md, kind `sigv4`, convention 2): repeated `/` collapsed, dot segments removed."""
    path = re.sub(r"/+", "/", path)
    path = remove_dot_segments(path)
    return path or "/"


def split_query(query):
    """A raw query split on `&`, then on the first `=` (a key alone has an empty value); nothing decoded."""
    pairs = []
    if query == "":
        return pairs
    for piece in query.split("&"):
        k, _, v = piece.partition("=")
        pairs.append((k, v))
    return pairs


def pct_decode(s):
    """Percent-decoding to text (UTF-8)."""
    return unquote_to_bytes(s).decode("utf-8")


def canon_header_value(v):
    """A SigV4 canonical header value: trimmed, runs of spaces collapsed to one."""
    return re.sub(r" +", " ", v.strip(" \t"))


def canonical_uri(path, normalize=True, double_encode=True):
    """A SigV4 canonical URI (vectors.md, kind `sigv4`, conventions 1 and 2)."""
    if normalize:
        path = normalize_path(path)
    return uri_encode(path, keep_slash=True) if double_encode else path


def canonical_headers(headers):
    """SigV4's canonical header block and signed-header list of `(name, value)` pairs: names lower
    case, values trimmed with runs of spaces collapsed, repeated names joined with `,` in order."""
    values = {}
    for name, value in headers:
        values.setdefault(name.lower(), []).append(canon_header_value(value))
    names = sorted(values)
    return "".join("%s:%s\n" % (n, ",".join(values[n])) for n in names), ";".join(names)


def canonical_query_pairs(query):
    """A raw query's parameters, each key and value percent-decoded, then encoded (RFC 3986)."""
    return [(uri_encode(pct_decode(k)), uri_encode(pct_decode(v))) for k, v in split_query(query)]
