/// RFC 3986 percent-encoding on UTF-8 bytes: the one percent encoder of the package (signers,
/// presigned URLs, form bodies, the CLI). No `CharacterSet`.
package enum PercentEncoding {
    /// Which bytes stay as they are; every other byte is written `%XX` (upper-case hex, RFC 3986 §2.1).
    package enum EncodeSet {
        /// `A-Za-z0-9-._~` (RFC 3986 §2.3 unreserved): query keys and values, form bodies, URI segments.
        case unreserved
        /// Unreserved and `/`: paths (SigV4's canonical URI, OSS V4's canonical resource).
        case unreservedAndSlash

        @inline(__always)
        func keeps(_ byte: UInt8) -> Bool {
            ASCIISet.unreserved.contains(byte) || (self == .unreservedAndSlash && byte == UInt8(ascii: "/"))
        }
    }

    /// Appends `bytes` encoded under `set` (to a growing array, or to an ``OutputCursor`` that checks
    /// its room: at most three bytes each).
    @inline(__always)
    static func encode<C: Collection<UInt8>, Sink: ByteSink>(_ bytes: C, _ set: EncodeSet, into out: inout Sink) {
        for byte in bytes { append(byte, set, into: &out) }
    }

    /// ``encode(_:_:into:)`` of contiguous bytes into a cursor, eight at a time (SWAR: one mask per
    /// word instead of a set test and a store per byte). A word whose bytes are all kept is stored
    /// whole; otherwise the kept bytes before its first escaped one are stored as one word, that
    /// byte and the escaped ones right after it in the word are written `%XX`, and the scan goes on
    /// from the next byte (so text that is escaped throughout takes one load per word). The last
    /// one to seven bytes are one padded word: stored when all kept, else byte by byte.
    /// Differential-tested against the per-byte form (`SigningDifferentialTests`), into exact-size
    /// buffers too.
    ///
    /// A word's store writes eight bytes when the buffer has room for them past the position, and
    /// exactly the kept bytes otherwise (``OutputCursor/writeWord(_:keeping:)``): the extra bytes
    /// (the word's later bytes, or padding) lie past the position, inside the buffer, and are
    /// overwritten by what follows or left past the result. So one cursor must write the buffer in
    /// order from there (no other cursor writing ahead in it).
    @inline(__always)
    package static func encode(_ bytes: UnsafeBufferPointer<UInt8>, _ set: EncodeSet, into out: inout OutputCursor) {
        guard let source = UnsafeRawPointer(bytes.baseAddress) else { return }
        let count = bytes.count
        var index = 0
        while index &+ 8 <= count {
            let raw = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let word = UInt64(littleEndian: raw)
            var escaped = ~keptMask(word, set) & SWAR.highs
            if escaped == 0 {
                out.writeWord(raw)
                index &+= 8
                continue
            }
            let run = escaped.trailingZeroBitCount &>> 3  // kept bytes before the first escaped one
            if run > 0 { out.writeWord(raw, keeping: run) }
            var lane = run
            escaped &>>= UInt64(lane &* 8)
            repeat {
                writeEscape(UInt8(truncatingIfNeeded: word &>> UInt64(lane &* 8)), into: &out)
                lane &+= 1
                escaped &>>= 8
            } while lane < 8 && escaped & 0x80 != 0
            index &+= lane
        }
        let rest = count &- index
        guard rest > 0 else { return }
        let word = SWAR.loadPartial(source, offset: index, count: rest, padding: UInt8(ascii: "a"))  // `a` is kept
        if keptMask(word, set) == SWAR.highs {
            out.writeWord(UInt64(littleEndian: word), keeping: rest)
            return
        }
        while index < count {
            append(bytes[index], set, into: &out)
            index &+= 1
        }
    }

    /// 0x80 in each byte of `word` (lanes in little-endian order) that `set` keeps, exact in every
    /// lane: the range tests run on the bytes' low seven bits (so no lane's sum carries into the
    /// next, as a byte from 0xC1 up would), and bytes from 0x80 up are never kept.
    @inline(__always)
    private static func keptMask(_ word: UInt64, _ set: EncodeSet) -> UInt64 {
        let kept = SWAR.unreservedOrSlashMask(word & ~SWAR.highs) & ~word & SWAR.highs
        return set == .unreserved ? kept & ~SWAR.equalMask(word, UInt8(ascii: "/")) : kept
    }

    /// `%XX` (upper-case hex) for a byte the set does not keep.
    @inline(__always)
    private static func writeEscape<Sink: ByteSink>(_ byte: UInt8, into out: inout Sink) {
        out.appendByte(UInt8(ascii: "%"))
        out.appendByte(Hex.upperDigit(byte >> 4))
        out.appendByte(Hex.upperDigit(byte & 0x0F))
    }

    package static func encoded(_ text: some StringProtocol, _ set: EncodeSet = .unreserved) -> String {
        String(decoding: encodedBytes(text, set), as: UTF8.self)
    }

    /// `text`'s bytes encoded under `set`.
    package static func encodedBytes(_ text: some StringProtocol, _ set: EncodeSet = .unreserved) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        encode(text.utf8, set, into: &out)
        return out
    }

    /// Appends the encoding of the percent-decoded `raw` (a `%` not followed by two hex digits stays
    /// literal and is encoded as `%25`): SigV4's canonical form of a query written any way.
    @inline(__always)
    static func reencode<Sink: ByteSink>(_ raw: UnsafeBufferPointer<UInt8>, _ set: EncodeSet, into out: inout Sink) {
        let digits = Hex.digitValues
        var i = 0
        while i < raw.count {
            var byte = raw[i]
            if byte == UInt8(ascii: "%"), i &+ 2 < raw.count, digits[Int(raw[i &+ 1])] != 0xFF,
                digits[Int(raw[i &+ 2])] != 0xFF
            {
                byte = digits[Int(raw[i &+ 1])] << 4 | digits[Int(raw[i &+ 2])]
                i &+= 3
            } else {
                i &+= 1
            }
            append(byte, set, into: &out)
        }
    }

    @inline(__always)
    private static func append<Sink: ByteSink>(_ byte: UInt8, _ set: EncodeSet, into out: inout Sink) {
        if set.keeps(byte) {
            out.appendByte(byte)
        } else {
            writeEscape(byte, into: &out)
        }
    }

    /// Decodes `%XX` escapes; an escape that is not two hex digits is kept literally (`%` stays `%`).
    /// `+` is not a space here (RFC 3986, as AWS and OSS read paths and query strings).
    package static func decode<C: Collection<UInt8>>(_ bytes: C) -> [UInt8] where C.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        let digits = Hex.digitValues
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.endIndex {
                let hi = digits[Int(bytes[i + 1])]
                let lo = digits[Int(bytes[i + 2])]
                if hi != 0xFF && lo != 0xFF {
                    out.append(hi << 4 | lo)
                    i += 3
                    continue
                }
            }
            out.append(byte)
            i += 1
        }
        return out
    }

    /// `text` decoded, or nil when the decoded bytes are not UTF-8.
    package static func decoded(_ text: some StringProtocol) -> String? {
        String(validating: decode(Array(text.utf8)), as: UTF8.self)
    }
}

/// Where canonical bytes are written: a growing array, or a checked ``OutputCursor``.
protocol ByteSink {
    mutating func appendByte(_ byte: UInt8)
}

extension Array: ByteSink where Element == UInt8 {
    @inline(__always) mutating func appendByte(_ byte: UInt8) { append(byte) }
}

extension OutputCursor: ByteSink {
    @inline(__always) mutating func appendByte(_ byte: UInt8) { writeByte(byte) }
}
