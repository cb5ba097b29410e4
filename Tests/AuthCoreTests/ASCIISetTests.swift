import AuthCore
import Testing

@Suite("ASCII byte sets and computed hex digits")
struct ASCIISetTests {
    /// Every byte 0...255 against the character lists of the RFCs.
    @Test("the masks hold exactly the RFC 3986 unreserved and RFC 9110 tchar characters")
    func masksMatchTheirDefinitions() {
        let letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        let unreserved = Set((letters + "0123456789-._~").utf8)
        let token = Set((letters + "0123456789!#$%&'*+-.^_`|~").utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(ASCIISet.unreserved.contains(byte) == unreserved.contains(byte), "unreserved \(byte)")
            #expect(ASCIISet.token.contains(byte) == token.contains(byte), "token \(byte)")
        }
        #expect(unreserved.count == 66)
        #expect(token.count == 77)
    }

    @Test("hex digits of every nibble")
    func hexDigits() {
        let lower = Array("0123456789abcdef".utf8)
        let upper = Array("0123456789ABCDEF".utf8)
        for nibble in UInt8(0)..<16 {
            #expect(Hex.lowerDigit(nibble) == lower[Int(nibble)])
            #expect(Hex.upperDigit(nibble) == upper[Int(nibble)])
        }
    }
}
