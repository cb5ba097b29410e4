import AuthCore
import AuthCoreHTTP
import AuthCoreTestSupport
import Foundation
import Testing

@testable import AuthCoreServer

/// A client address's text (access lines, audit lines) and network keys (failure counting, rate
/// limits), against plain reference formulas.
@Suite("Client addresses: text and network keys")
struct ClientAddressTests {
    /// The text as `String(_:)` and `String(_:radix:)` write each part (the form the access log has
    /// always had): dotted decimal, or eight lower-case hex groups without leading zeros.
    static func referenceText(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map { String($0) }.joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    @Test(
        "the text equals the reference on 3000 random IPv4 and IPv6 addresses (zero groups, one-digit parts, 255s), and known ones"
    )
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
        #expect(
            try ClientAddress(bytes: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [0x0a]).description
                == "2001:db8:0:0:0:0:0:a"
        )
    }

    @Test("a network key is the family, the prefix length and the address with the bits past the prefix cleared")
    func networkKeys() throws {
        let v4 = ClientAddress(ipv4: 192, 168, 37, 255)
        #expect(v4.network(prefixBits: 32) == [4, 32, 192, 168, 37, 255])
        #expect(v4.network(prefixBits: 20) == [4, 20, 192, 168, 32, 0])
        #expect(v4.network(prefixBits: 0) == [4, 0, 0, 0, 0, 0])
        #expect(v4.network(prefixBits: 99) == [4, 32, 192, 168, 37, 255])
        let v6 = try ClientAddress(bytes: (0..<16).map { UInt8(0xF0 | $0) })
        #expect(
            v6.network(prefixBits: 64) == [6, 64] + (0..<8).map { UInt8(0xF0 | $0) } + [UInt8](repeating: 0, count: 8)
        )
        #expect(v6.network(prefixBits: 60).count == 18)
        #expect(v6.network(prefixBits: 60)[9] == 0xF0)  // the eighth byte keeps its top four bits
    }
}

/// What the server reads from a request's head, byte for byte: field values without the spaces and
/// tabs around them (RFC 9112 §5: OWS), query arguments as given; and the sealed records' layout.
@Suite("Request fields and sealed records")
struct RequestFieldsAndRecordsTests {
    @Test(
        "header values lose the spaces and tabs around them (only those, only there); an all-blank value is empty; query arguments are kept as sent"
    )
    func fieldsAsTheHandlerSeesThem() async throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration()) { request in
            let fields = ["X-A", "X-B", "X-C"].map { "[\(request.headers.first(named: $0) ?? "nil")]" }
            let query = request.queryParameters.map { "\($0.key)=[\($0.value)]" }
            return HTTPResponse(
                status: 200,
                headers: [HTTPHeader("Content-Type", "text/plain")],
                body: Array((fields + query).joined(separator: ",").utf8)
            )
        }
        let head =
            "GET /f?q=%20x%20&e= HTTP/1.1\r\nHost: x\r\nX-A: \t a \t b\t \r\nX-B: \t \r\nX-C:c\r\nConnection: close\r\n\r\n"
        let answer = try await RawSocket.exchange(port: server.port, head)
        await server.stop(grace: .milliseconds(200))
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(80))")
        #expect(answer.hasSuffix("[a \t b],[],[c],q=[ x ],e=[]"), "\(answer.suffix(60))")
    }

    @Test(
        "a record's numbers are big-endian and its length prefix two bytes, whatever its capacity (the layout records sealed by earlier builds have)"
    )
    func recordLayout() {
        for capacity in [0, 1, 29, 64] {
            var record = RecordWriter(capacity: capacity)
            record.byte(7)
            record.uint64(0x0102_0304_0506_0708)
            record.lengthPrefixed(Array("ab".utf8))
            record.uint64(0xFFFF_FFFF_FFFF_FFFE)
            record.raw([0xAA, 0xBB])
            let bytes = record.bytes.withUnsafeBytes { Array($0) }
            #expect(
                bytes == [
                    7, 1, 2, 3, 4, 5, 6, 7, 8, 0, 2, 0x61, 0x62, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xAA,
                    0xBB,
                ],
                "capacity \(capacity)"
            )
        }
    }
}
