"""Small pieces of the project's own reference models, shared by the generators (stdlib only).

These are the scripts' independent models of the algorithms (checked against the oracles and the
RFC vectors by the generators that use them), not the oracles themselves.
"""

import hmac

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
