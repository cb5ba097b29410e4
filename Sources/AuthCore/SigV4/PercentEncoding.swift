/// RFC 3986 percent-encoding on UTF-8 bytes (no `CharacterSet`; the unreserved set is ``ASCIISet/unreserved``).
enum PercentEncoding {
    /// Appends `bytes` with every byte outside the unreserved set (and `/` when `keepSlash`) as `%XX`.
    @inline(__always)
    static func encode<C: Collection<UInt8>>(_ bytes: C, keepSlash: Bool, into out: inout [UInt8]) {
        for byte in bytes {
            if ASCIISet.unreserved.contains(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHexDigit(byte >> 4))
                out.append(upperHexDigit(byte & 0x0F))
            }
        }
    }

    static func encoded(_ text: some StringProtocol, keepSlash: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        encode(text.utf8, keepSlash: keepSlash, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes; an escape that is not two hex digits is kept literally (`%` stays `%`).
    /// `+` is not a space here (RFC 3986, as AWS reads query strings).
    static func decode<C: Collection<UInt8>>(_ bytes: C) -> [UInt8] where C.Index == Int {
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
}
