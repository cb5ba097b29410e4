"""RFC 5054 Appendix A groups, as seen through pysrp (PyPI `srp` 1.0.22, pure-Python `srp._pysrp`).

pysrp 1.0.22 ships only four of the seven RFC 5054 groups (NG_1024, NG_2048, NG_4096, NG_8192).
The other three (1536, 3072, 6144) are driven through pysrp's own NG_CUSTOM path with N and g
from RFC 5054 Appendix A, written out below.

`check_groups()` validates every group's N and g without trusting any single source:
- 3072, 4096, 6144, 8192 are the RFC 3526 MODP primes, recomputed here from their defining formula
  p = 2^n - 2^(n-64) - 1 + 2^64 * (floor(2^(n-130) * pi) + offset), with pi computed by Machin's formula;
- 1024, 1536, 2048 (SRP-specific primes) are checked to be safe primes (N and (N-1)/2 pass
  Miller-Rabin with fixed bases), with the right bit length; 1024 is also pinned by RFC 5054 Appendix B.
Used by generate_srp6a_vectors.py and pysrp_peer.py. Standard library plus `srp` only.
"""

import srp._pysrp as _pysrp

# RFC 5054 Appendix A, 1536-bit group (not in pysrp 1.0.22).
_N_1536 = (
    "9DEF3CAFB939277AB1F12A8617A47BBBDBA51DF499AC4C80BEEEA961"
    "4B19CC4D5F4F5F556E27CBDE51C6A94BE4607A291558903BA0D0F843"
    "80B655BB9A22E8DCDF028A7CEC67F0D08134B1C8B97989149B609E0B"
    "E3BAB63D47548381DBC5B1FC764E3F4B53DD9DA1158BFD3E2B9C8CF5"
    "6EDF019539349627DB2FD53D24B7C48665772E437D6C7F8CE442734A"
    "F7CCB7AE837C264AE3A9BEB87F8A2FE9B8B5292E5A021FFF5E91479E"
    "8CE7A28C2442C6F315180F93499A234DCF76E3FED135F9BB"
)

# RFC 5054 Appendix A, 3072-bit group (= RFC 3526 group 15; not in pysrp 1.0.22).
_N_3072 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E08"
    "8A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B"
    "302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9"
    "A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE6"
    "49286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8"
    "FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D"
    "670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C"
    "180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
    "3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D"
    "04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7D"
    "B3970F85A6E1E4C7ABF5AE8CDB0933D71E8C94E04A25619DCEE3D226"
    "1AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFC"
    "E0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF"
)

# RFC 5054 Appendix A, 6144-bit group (= RFC 3526 group 17; not in pysrp 1.0.22).
_N_6144 = (
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E08"
    "8A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B"
    "302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9"
    "A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE6"
    "49286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8"
    "FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D"
    "670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C"
    "180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
    "3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D"
    "04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7D"
    "B3970F85A6E1E4C7ABF5AE8CDB0933D71E8C94E04A25619DCEE3D226"
    "1AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C"
    "BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFC"
    "E0FD108E4B82D120A92108011A723C12A787E6D788719A10BDBA5B26"
    "99C327186AF4E23C1A946834B6150BDA2583E9CA2AD44CE8DBBBC2DB"
    "04DE8EF92E8EFC141FBECAA6287C59474E6BC05D99B2964FA090C3A2"
    "233BA186515BE7ED1F612970CEE2D7AFB81BDD762170481CD0069127"
    "D5B05AA993B4EA988D8FDDC186FFB7DC90A6C08F4DF435C934028492"
    "36C3FAB4D27C7026C1D4DCB2602646DEC9751E763DBA37BDF8FF9406"
    "AD9E530EE5DB382F413001AEB06A53ED9027D831179727B0865A8918"
    "DA3EDBEBCF9B14ED44CE6CBACED4BB1BDB7F1447E6CC254B33205151"
    "2BD7AF426FB8F401378CD2BF5983CA01C64B92ECF032EA15D1721D03"
    "F482D7CE6E74FEF6D55E702F46980C82B5A84031900B1C9E59E7C97F"
    "BEC7E8F323A97A7E36CC88BE0F1D45B7FF585AC54BD407B22B4154AA"
    "CC8F6D7EBF48E1D814CC5ED20F8037E0A79715EEF29BE32806A1D58B"
    "B7C5DA76F550AA3D8A1FBFF0EB19CCB1A313D55CDA56C9EC2EF29632"
    "387FE8D76E3C0468043E8F663F4860EE12BF2D5B0B7474D6E694F91E"
    "6DCC4024FFFFFFFFFFFFFFFF"
)

# bits -> (pysrp ng_type, n_hex or None, g_hex or None). None: pysrp's built-in constants.
PYSRP_GROUPS = {
    1024: (_pysrp.NG_1024, None, None),
    1536: (_pysrp.NG_CUSTOM, _N_1536, "2"),
    2048: (_pysrp.NG_2048, None, None),
    3072: (_pysrp.NG_CUSTOM, _N_3072, "5"),
    4096: (_pysrp.NG_4096, None, None),
    6144: (_pysrp.NG_CUSTOM, _N_6144, "5"),
    8192: (_pysrp.NG_8192, None, None),
}

# RFC 5054 Appendix A generators.
RFC5054_G = {1024: 2, 1536: 2, 2048: 2, 3072: 5, 4096: 5, 6144: 5, 8192: 19}

# RFC 3526 offsets for the MODP groups that RFC 5054 reuses.
_RFC3526_OFFSET = {3072: 1690314, 4096: 240904, 6144: 929484, 8192: 4743158}

HASHES = {
    "sha1": _pysrp.SHA1,
    "sha256": _pysrp.SHA256,
    "sha512": _pysrp.SHA512,
}


def group_name(bits):
    return "rfc5054-%d" % bits


def parse_group(value):
    """Accept 2048, "2048" or "rfc5054-2048"; return the bit size."""
    if isinstance(value, bool):
        raise ValueError("bad group %r" % (value,))
    if isinstance(value, int):
        bits = value
    elif isinstance(value, str):
        s = value[len("rfc5054-"):] if value.startswith("rfc5054-") else value
        if not s.isdigit():
            raise ValueError("bad group %r" % (value,))
        bits = int(s)
    else:
        raise ValueError("bad group %r" % (value,))
    if bits not in PYSRP_GROUPS:
        raise ValueError("unknown group %r (known: %s)" % (value, sorted(PYSRP_GROUPS)))
    return bits


def pysrp_ng_args(bits):
    """Keyword arguments selecting the group in pysrp's User / Verifier / create_salted_verification_key."""
    ng_type, n_hex, g_hex = PYSRP_GROUPS[bits]
    return {"ng_type": ng_type, "n_hex": n_hex, "g_hex": g_hex}


def get_N_g(bits):
    ng_type, n_hex, g_hex = PYSRP_GROUPS[bits]
    return _pysrp.get_ng(ng_type, n_hex, g_hex)


def _pi_fixed(bits):
    """floor(pi * 2^bits), by Machin's formula with guard bits (integers only)."""
    guard = 64
    one = 1 << (bits + guard)

    def arctan_inv(x):
        total = term = one // x
        x2 = x * x
        n = 1
        sign = -1
        while term:
            term //= x2
            total += sign * (term // (2 * n + 1))
            sign = -sign
            n += 1
        return total

    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)
    return pi >> guard


def _rfc3526_prime(n):
    return (1 << n) - (1 << (n - 64)) - 1 + (1 << 64) * ((_pi_fixed(n - 130)) + _RFC3526_OFFSET[n])


def _probable_prime(n):
    if n < 2:
        return False
    small = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71]
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in small[:12]:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def check_groups():
    """Raise AssertionError unless every group's N, g are the RFC 5054 values."""
    for bits in sorted(PYSRP_GROUPS):
        N, g = get_N_g(bits)
        assert N.bit_length() == bits, (bits, N.bit_length())
        assert g == RFC5054_G[bits], (bits, g)
        if bits in _RFC3526_OFFSET:
            assert N == _rfc3526_prime(bits), "group %d: N is not the RFC 3526 prime" % bits
        else:
            assert _probable_prime(N) and _probable_prime((N - 1) // 2), "group %d: N is not a safe prime" % bits
