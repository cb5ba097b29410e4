import AuthCore
import AuthCoreServer
import AuthCoreTestSupport
import Testing

/// A client address's text (access lines, audit lines) and network keys (failure counting, rate
/// limits), against plain reference formulas.
@Suite("Client addresses: text and network keys")
struct ClientAddressTests {
    /// The text as `String(_:)` and `String(_:radix:)` write each part (the form the access log has
    /// always had): dotted decimal, or eight lower-case hex groups without leading zeros.
    static func referenceText(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map { String($0) }.joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }

    @Test("the text equals the reference on 3000 random IPv4 and IPv6 addresses (zero groups, one-digit parts, 255s), and known ones")
    func textMatchesTheReference() throws {
        let random = SeededRandom(seed: 0x4144_4452)
        for round in 0..<3000 {
            let count = round % 2 == 0 ? 4 : 16
            // Bytes biased to the edges: 0, small, 255, and random.
            let bytes = (0..<count).map { _ -> UInt8 in
                switch random.next() % 4 {
                case 0: 0
                case 1: UInt8(random.next() % 10)
                case 2: 255
                default: UInt8(truncatingIfNeeded: random.next())
                }
            }
            let address = try ClientAddress(bytes: bytes)
            #expect(address.description == Self.referenceText(address.bytes), "\(bytes)")
        }
        #expect(ClientAddress(ipv4: 127, 0, 0, 1).description == "127.0.0.1")
        #expect(try ClientAddress(bytes: [UInt8](repeating: 0, count: 15) + [1]).description == "0:0:0:0:0:0:0:1")
        #expect(try ClientAddress(bytes: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [0x0a]).description == "2001:db8:0:0:0:0:0:a")
    }

    @Test("a network key is the family, the prefix length and the address with the bits past the prefix cleared")
    func networkKeys() throws {
        let v4 = ClientAddress(ipv4: 192, 168, 37, 255)
        #expect(v4.network(prefixBits: 32) == [4, 32, 192, 168, 37, 255])
        #expect(v4.network(prefixBits: 20) == [4, 20, 192, 168, 32, 0])
        #expect(v4.network(prefixBits: 0) == [4, 0, 0, 0, 0, 0])
        #expect(v4.network(prefixBits: 99) == [4, 32, 192, 168, 37, 255])
        let v6 = try ClientAddress(bytes: (0..<16).map { UInt8(0xF0 | $0) })
        #expect(v6.network(prefixBits: 64) == [6, 64] + (0..<8).map { UInt8(0xF0 | $0) } + [UInt8](repeating: 0, count: 8))
        #expect(v6.network(prefixBits: 60).count == 18)
        #expect(v6.network(prefixBits: 60)[9] == 0xF0)  // the eighth byte keeps its top four bits
    }
}
