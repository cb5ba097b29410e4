/// Base64 encoding and strict decoding (RFC 4648 §4 standard and §5 URL-safe alphabets).
public enum Base64 {
    /// Which RFC 4648 alphabet to use.
    public struct Alphabet: Hashable, Sendable {
        let plus: UInt8
        let slash: UInt8
        let isURLSafe: Bool
        /// RFC 4648 §4: `+` and `/`, padded with `=`.
        public static let standard = Alphabet(plus: UInt8(ascii: "+"), slash: UInt8(ascii: "/"), isURLSafe: false)
        /// RFC 4648 §5: `-` and `_`; padding optional on decode, omitted on encode (as in JWTs).
        public static let urlSafe = Alphabet(plus: UInt8(ascii: "-"), slash: UInt8(ascii: "_"), isURLSafe: true)
    }

    static let standardTable: [UInt8] = makeDecodeTable(.standard)
    static let urlSafeTable: [UInt8] = makeDecodeTable(.urlSafe)

    static func makeDecodeTable(_ alphabet: Alphabet) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(c)] = UInt8(i)
        }
        table[Int(alphabet.plus)] = 62
        table[Int(alphabet.slash)] = 63
        return table
    }

    static func encodeSymbols(_ alphabet: Alphabet) -> [UInt8] {
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + [alphabet.plus, alphabet.slash]
    }

    static let standardSymbols = encodeSymbols(.standard)
    static let urlSafeSymbols = encodeSymbols(.urlSafe)

    /// Encodes bytes; the standard alphabet pads with `=`, the URL-safe one does not unless asked.
    public static func encode(
        _ bytes: UnsafeRawBufferPointer,
        alphabet: Alphabet = .standard,
        padding: Bool? = nil
    )
        -> String
    {
        let pad = padding ?? !alphabet.isURLSafe
        let symbols = alphabet.isURLSafe ? urlSafeSymbols : standardSymbols
        return String(unsafeUninitializedCapacity: encodedCount(bytes.count)) { out in
            encode(bytes, into: out, padding: pad) { symbols[Int($0)] }
        }
    }

    /// The number of symbols `count` bytes encode to, padded.
    static func encodedCount(_ count: Int) -> Int { count / 3 * 4 + (count % 3 == 0 ? 0 : 4) }

    /// Writes the encoding of `bytes` to `out` (room for ``encodedCount(_:)``), each 6-bit value
    /// through `symbol` (inlined, so the table lookup of the public `encode`
    /// costs what it did before this was shared); returns the number of symbols written.
    @inline(__always)
    static func encode(
        _ bytes: UnsafeRawBufferPointer,
        into out: UnsafeMutableBufferPointer<UInt8>,
        padding pad: Bool,
        symbol: (UInt32) -> UInt8
    ) -> Int {
        var o = 0
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out[o] = symbol(v >> 18)
            out[o + 1] = symbol(v >> 12 & 63)
            out[o + 2] = symbol(v >> 6 & 63)
            out[o + 3] = symbol(v & 63)
            o += 4
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out[o] = symbol(v >> 18)
            out[o + 1] = symbol(v >> 12 & 63)
            o += 2
            if pad {
                out[o] = UInt8(ascii: "=")
                out[o + 1] = UInt8(ascii: "=")
                o += 2
            }
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out[o] = symbol(v >> 18)
            out[o + 1] = symbol(v >> 12 & 63)
            out[o + 2] = symbol(v >> 6 & 63)
            o += 3
            if pad {
                out[o] = UInt8(ascii: "=")
                o += 1
            }
        }
        return o
    }

    /// The standard-alphabet symbol of a 6-bit value computed with no table and no branch, so a
    /// secret's bytes leave no trace in the cache or the branch predictor: `A` plus a correction
    /// for each range the value is past (`a`, `0`, `+`, `/`), each selected by the sign of a
    /// difference (the method of libsodium's and BoringSSL's constant-time Base64).
    static func constantTimeStandardSymbol(_ value: UInt32) -> UInt8 {
        // Wrapping arithmetic: no overflow check (a branch) on the way. `ctgrind` checks the
        // compiled code (the device-password flow), where LLVM could still choose a branch.
        let v = Int32(bitPattern: value)
        var c = v &+ 65  // A..Z for 0...25
        c = c &+ (((25 &- v) >> 8) & 6)  // a..z for 26...51: 'a' - 26 = 71
        c = c &- (((51 &- v) >> 8) & 75)  // 0..9 for 52...61: '0' - 52 = -4
        c = c &- (((61 &- v) >> 8) & 15)  // '+' for 62
        c = c &+ (((62 &- v) >> 8) & 3)  // '/' for 63
        return UInt8(truncatingIfNeeded: c)
    }

    /// The standard, padded encoding of a secret (a device password), into wiping storage through
    /// ``constantTimeStandardSymbol(_:)``: no `String` copy, no table lookup.
    package static func encodeSecret(_ secret: SecureBytes) -> SecureBytes {
        secret.withUnsafeBytes { bytes in
            SecureBytes(count: encodedCount(bytes.count)) { out in
                let written = encode(
                    bytes,
                    into: out.bindMemory(to: UInt8.self),
                    padding: true,
                    symbol: constantTimeStandardSymbol
                )
                assert(written == out.count)
            }
        }
    }

    /// Encodes bytes; see ``encode(_:alphabet:padding:)-(UnsafeRawBufferPointer,_,_)``.
    public static func encode(
        _ bytes: some Collection<UInt8>,
        alphabet: Alphabet = .standard,
        padding: Bool? = nil
    )
        -> String
    {
        Array(bytes).withUnsafeBytes { encode($0, alphabet: alphabet, padding: padding) }
    }

    /// Decodes Base64 strictly.
    ///
    /// The standard alphabet requires `=` padding to a multiple of four characters; the URL-safe
    /// alphabet accepts it with or without padding. Characters outside the alphabet, misplaced
    /// padding, an impossible length and non-zero unused trailing bits (a non-canonical encoding) are
    /// rejected.
    ///
    /// - Parameters:
    ///   - text: the encoded text.
    ///   - alphabet: ``Alphabet/standard`` or ``Alphabet/urlSafe``.
    ///   - field: the name used in the error reason (never the value).
    ///   - allowEmpty: whether `""` decodes to no bytes (default: it is an error).
    /// - Throws: ``AuthCoreError/Code/invalidBase64``.
    public static func decode(
        _ text: some StringProtocol,
        alphabet: Alphabet = .standard,
        field: String = "base64",
        allowEmpty: Bool = false
    ) throws(AuthCoreError) -> [UInt8] {
        var utf8 = Array(text.utf8)
        defer { utf8.secureZeroize() }
        if utf8.isEmpty {
            if allowEmpty { return [] }
            throw AuthCoreError(.invalidBase64, "\(field): empty")
        }
        var end = utf8.count
        var padCount = 0
        while end > 0 && utf8[end - 1] == UInt8(ascii: "=") && padCount < 2 {
            end -= 1
            padCount += 1
        }
        if alphabet.isURLSafe {
            if padCount > 0 && utf8.count % 4 != 0 {
                throw AuthCoreError(.invalidBase64, "\(field): padding does not complete a 4-character group")
            }
        } else if utf8.count % 4 != 0 {
            throw AuthCoreError(.invalidBase64, "\(field): length \(utf8.count) is not a multiple of 4")
        }
        let rest = end % 4
        if rest == 1 {
            throw AuthCoreError(.invalidBase64, "\(field): impossible length")
        }
        if padCount > 0 && (rest == 0 || (rest == 2 && padCount != 2) || (rest == 3 && padCount != 1)) {
            throw AuthCoreError(.invalidBase64, "\(field): misplaced padding")
        }
        let table = alphabet.isURLSafe ? urlSafeTable : standardTable
        var out = [UInt8]()
        out.reserveCapacity(end / 4 * 3 + 2)
        var i = 0
        func value(_ index: Int) throws(AuthCoreError) -> UInt32 {
            let v = table[Int(utf8[index])]
            if v == 0xFF {
                out.secureZeroize()
                throw AuthCoreError(.invalidBase64, "\(field): invalid character at offset \(index)")
            }
            return UInt32(v)
        }
        while i + 4 <= end {
            let v = try value(i) << 18 | value(i + 1) << 12 | value(i + 2) << 6 | value(i + 3)
            out.append(UInt8(v >> 16))
            out.append(UInt8(v >> 8 & 0xFF))
            out.append(UInt8(v & 0xFF))
            i += 4
        }
        if rest == 2 {
            let v = try value(i) << 18 | value(i + 1) << 12
            guard v & 0xFFFF == 0 else {
                out.secureZeroize()
                throw AuthCoreError(.invalidBase64, "\(field): non-canonical trailing bits")
            }
            out.append(UInt8(v >> 16))
        } else if rest == 3 {
            let v = try value(i) << 18 | value(i + 1) << 12 | value(i + 2) << 6
            guard v & 0xFF == 0 else {
                out.secureZeroize()
                throw AuthCoreError(.invalidBase64, "\(field): non-canonical trailing bits")
            }
            out.append(UInt8(v >> 16))
            out.append(UInt8(v >> 8 & 0xFF))
        }
        return out
    }
}
