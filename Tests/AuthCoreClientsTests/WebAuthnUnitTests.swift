import AuthCore
import AuthCoreClients
import Foundation
import Testing

/// The pieces of the software authenticator that need no relying party: CBOR heads against RFC 8949
/// Appendix A's examples, the P-256 keys, and what the authenticator refuses as a browser would. The
/// ceremonies themselves are verified by py_webauthn in `WebAuthnRelyingPartyTests`.
@Suite("WebAuthn pieces: CBOR, P-256 keys, the authenticator's own checks")
struct WebAuthnUnitTests {
    @Test("CBOR integers, byte and text strings and map heads as RFC 8949 Appendix A writes them")
    func cborAppendixA() {
        let integers: [(Int64, String)] = [
            (0, "00"), (1, "01"), (10, "0a"), (23, "17"), (24, "1818"), (25, "1819"), (100, "1864"), (1000, "1903e8"),
            (1_000_000, "1a000f4240"),
            (1_000_000_000_000, "1b000000e8d4a51000"), (-1, "20"), (-10, "29"), (-100, "3863"), (-1000, "3903e7"),
        ]
        for (value, hex) in integers {
            var writer = CBORWriter()
            writer.integer(value)
            #expect(Hex.encode(writer.bytes) == hex, "\(value)")
        }
        var strings = CBORWriter()
        strings.byteString([UInt8]())
        strings.byteString([1, 2, 3, 4] as [UInt8])
        strings.text("")
        strings.text("a")
        strings.text("IETF")
        strings.text("\u{00fc}")
        strings.mapHead(0)
        #expect(Hex.encode(strings.bytes) == "40" + "4401020304" + "60" + "6161" + "6449455446" + "62c3bc" + "a0")
        var long = CBORWriter()
        long.byteString([UInt8](repeating: 7, count: 300))
        #expect(Array(long.bytes.prefix(3)) == [0x59, 0x01, 0x2C])
    }

    @Test("P-256 keys: fresh ones differ, their signatures verify, a changed message or key does not")
    func keys() throws {
        let first = try P256KeyPair()
        let second = try P256KeyPair()
        #expect(first.publicKey != second.publicKey)
        #expect(first.publicKey.count == 65 && first.publicKey.first == 0x04)
        let message = Array("authenticatorData || clientDataHash".utf8)
        let signature = try message.withUnsafeBytes { try first.signature(for: $0) }
        #expect(try P256KeyPair.isValidSignature(signature, for: message, publicKey: first.publicKey))
        #expect(try !P256KeyPair.isValidSignature(signature, for: message + [0], publicKey: first.publicKey))
        #expect(try !P256KeyPair.isValidSignature(signature, for: message, publicKey: second.publicKey))
        #expect(
            "\(first)" == "P256KeyPair(public X \(Hex.encode(first.publicKeyX)))",
            "the description shows the public X only"
        )
    }

    @Test(
        "the authenticator refuses what a browser refuses: an origin with a path or plain http elsewhere than loopback, an RP id outside the origin's domain, options without ES256"
    )
    func refusals() async throws {
        for origin in [
            "https://example.com/path", "http://example.com", "ftp://example.com", "https://exa\"mple.com",
            "https://example.com#x", "https://example.com?",
        ] {
            #expect(throws: AuthCoreError.self) { try SoftwareWebAuthnAuthenticator(origin: origin) }
        }
        #expect((try? SoftwareWebAuthnAuthenticator(origin: "http://localhost:8080")) != nil)
        let authenticator = try SoftwareWebAuthnAuthenticator(origin: "https://login.example.com")
        func creation(_ members: [String: Any]) throws -> [UInt8] {
            var options: [String: Any] = [
                "challenge": "AAECAw", "rp": ["id": "example.com", "name": "x"],
                "user": ["id": "dXNlcg", "name": "u", "displayName": "u"],
                "pubKeyCredParams": [["type": "public-key", "alg": -7]],
            ]
            options.merge(members) { _, new in new }
            return [UInt8](try JSONSerialization.data(withJSONObject: options))
        }
        _ = try await authenticator.createCredential(options: try creation([:]))
        let foreign = await #expect(throws: AuthCoreError.self) {
            try await authenticator.createCredential(options: try creation(["rp": ["id": "ample.com", "name": "x"]]))
        }
        #expect(foreign?.code == .invalidParameter)
        let rsaOnly = await #expect(throws: AuthCoreError.self) {
            try await authenticator.createCredential(
                options: try creation(["pubKeyCredParams": [["type": "public-key", "alg": -257]]])
            )
        }
        #expect(rsaOnly?.code == .unsupported)
        let none = await #expect(throws: AuthCoreError.self) {
            try await authenticator.getAssertion(
                options: [UInt8](
                    try JSONSerialization.data(withJSONObject: ["challenge": "AAECAw", "rpId": "other.example.com"])
                )
            )
        }
        #expect(none?.code == .invalidParameter, "other.example.com is not login.example.com's domain")
        let malformed = await #expect(throws: AuthCoreError.self) {
            try await authenticator.getAssertion(options: Array("[]".utf8))
        }
        #expect(malformed?.code == .malformedResponse)
    }

    @Test(
        "origins are written lower-cased as scheme://host[:port]; an RP id is never a bare label nor part of an IP address"
    )
    func originsAndRPIDs() async throws {
        let authenticator = try SoftwareWebAuthnAuthenticator(origin: "HTTPS://Login.Example.COM:8443")
        #expect(await authenticator.origin == "https://login.example.com:8443")
        func request(_ rpId: String) throws -> [UInt8] {
            [UInt8](try JSONSerialization.data(withJSONObject: ["challenge": "AAECAw", "rpId": rpId]))
        }
        for rpId in ["com", "example.com.evil", "ogin.example.com"] {
            let error = await #expect(throws: AuthCoreError.self) {
                try await authenticator.getAssertion(options: try request(rpId))
            }
            #expect(error?.code == .invalidParameter, "\(rpId)")
        }
        // example.com is a parent domain: allowed, and then there is no credential for it.
        let none = await #expect(throws: AuthCoreError.self) {
            try await authenticator.getAssertion(options: try request("example.com"))
        }
        #expect(none?.code == .credentialsUnavailable)
        let local = try SoftwareWebAuthnAuthenticator(origin: "http://127.0.0.1:9000")
        let fragment = await #expect(throws: AuthCoreError.self) {
            try await local.getAssertion(options: try request("0.0.1"))
        }
        #expect(fragment?.code == .invalidParameter)
    }
}
