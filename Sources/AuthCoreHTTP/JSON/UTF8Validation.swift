/// Whether `bytes` are well-formed UTF-8 (RFC 3629 §4: no overlong forms, no surrogates, nothing past U+10FFFF).
package func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    while index < bytes.count {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: length = 1
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: return false
        }
        guard bytes.count - index >= length else { return false }
        for offset in 1..<Swift.max(1, length) {
            let byte = bytes[index + offset]
            guard (offset == 1 ? lower...upper : 0x80...0xBF).contains(byte) else { return false }
        }
        index += length
    }
    return true
}
