import AuthCore
import AuthCoreTestSupport
import Testing

@Suite("HMAC (RFC 2104, RFC 4231) and HKDF (RFC 5869)")
struct MACTests {
    // RFC 4231 §4.2 test case 1.
    let key1 = [UInt8](repeating: 0x0b, count: 20)
    let data1 = Array("Hi There".utf8)
    let mac1 = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"

    @Test("one-shot HMAC-SHA256 matches RFC 4231 case 1")
    func oneShot() {
        #expect(HMAC<SHA256>.authenticationCode(for: data1, using: key1).hexLowercased == mac1)
        #expect(
            HashAlgorithm.sha256.authenticationCode(
                for: UnsafeRawBufferPointer(start: nil, count: 0),
                using: UnsafeRawBufferPointer(start: nil, count: 0)
            ).hexLowercased == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"
        )  // HMAC("", "")
    }

    @Test("incremental HMAC equals one-shot and stays usable after finalize")
    func incremental() {
        var hmac = HMAC<SHA256>(key: key1)
        hmac.update(bytes: Array("Hi ".utf8))
        let partial = hmac.finalize()
        hmac.update(bytes: Array("There".utf8))
        #expect(hmac.finalize().hexLowercased == mac1)
        #expect(partial == HMAC<SHA256>.authenticationCode(for: Array("Hi ".utf8), using: key1))
    }

    @Test("a keyed context reused across messages gives the same MACs as one-shot")
    func keyedReuse() {
        var keyed = KeyedHMAC(algorithm: .sha256, key: key1)
        for message in ["Hi There", "", "another message", "Hi There"] {
            let expected = HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: key1)
            #expect(keyed.authenticationCode(for: Array(message.utf8)) == expected)
        }
        let parts = keyed.authenticationCode(streaming: { feed in
            Array("Hi ".utf8).withUnsafeBytes(feed)
            Array("There".utf8).withUnsafeBytes(feed)
        })
        #expect(parts.hexLowercased == mac1)
        // A stream abandoned half-way (the body throws) leaves no trace in the next MAC, first use or not.
        struct Stop: Error {}
        for fresh in [true, false] {
            var context = KeyedHMAC(algorithm: .sha256, key: key1)
            if !fresh { _ = context.authenticationCode(for: Array("warm-up".utf8)) }
            #expect(throws: Stop.self) {
                _ = try context.authenticationCode(streaming: { (feed) throws(Stop) in
                    Array("partial".utf8).withUnsafeBytes(feed)
                    throw Stop()
                })
            }
            #expect(context.authenticationCode(for: data1).hexLowercased == mac1)
        }
    }

    @Test("RFC 4231 case 6: a key longer than the block size is hashed first")
    func longKey() {
        let key = [UInt8](repeating: 0xaa, count: 131)
        let data = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        #expect(
            HMAC<SHA512>.authenticationCode(for: data, using: key).hexLowercased
                == "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        )
    }

    @Test("MAC verification is constant-time and rejects a flipped byte")
    func verification() {
        var mac = HMAC<SHA256>.authenticationCode(for: data1, using: key1).bytes
        #expect(HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: data1, using: key1))
        mac[31] ^= 1
        #expect(!HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: data1, using: key1))
        #expect(!HMAC<SHA256>.isValidAuthenticationCode(mac.prefix(16), authenticating: data1, using: key1))
    }

    // RFC 5869 Appendix A.1.
    @Test("HKDF-SHA256 matches RFC 5869 test case 1 (PRK and OKM)")
    func hkdfCase1() throws {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let salt = hex("000102030405060708090a0b0c")
        let info = hex("f0f1f2f3f4f5f6f7f8f9")
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        #expect(
            prk.withUnsafeBytes { Hex.encode($0) } == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
        )
        let okm = try HKDF<SHA256>.expand(pseudoRandomKey: prk, info: info, outputByteCount: 42)
        #expect(
            okm.withUnsafeBytes { Hex.encode($0) }
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        )
        let derived = try HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: 42)
        #expect(derived == okm)
    }

    @Test("HKDF with no salt uses HashLen zero bytes (RFC 5869 A.3)")
    func hkdfNoSalt() throws {
        let ikm = [UInt8](repeating: 0x0b, count: 22)
        let okm = try HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm,
            salt: [UInt8](),
            info: [UInt8](),
            outputByteCount: 42
        )
        #expect(
            okm.withUnsafeBytes { Hex.encode($0) }
                == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        )
        let explicitZeros = try HKDF<SHA256>.deriveKey(
            inputKeyMaterial: ikm,
            salt: [UInt8](repeating: 0, count: 32),
            info: [UInt8](),
            outputByteCount: 42
        )
        #expect(explicitZeros == okm)
    }

    @Test("HKDF rejects length 0 and lengths above 255·HashLen", arguments: [0, -1, 255 * 32 + 1, Int.max])
    func hkdfLengths(length: Int) {
        let prk = SecureBytes([UInt8](repeating: 1, count: 32))
        #expect(
            errorCode { try HKDF<SHA256>.expand(pseudoRandomKey: prk, info: [UInt8](), outputByteCount: length) }
                == .invalidLength
        )
    }

    @Test("HKDF accepts exactly 255·HashLen bytes")
    func hkdfMaximum() throws {
        let prk = SecureBytes([UInt8](repeating: 1, count: 20))
        let okm = try HKDF<Insecure.SHA1>.expand(pseudoRandomKey: prk, info: [UInt8](), outputByteCount: 255 * 20)
        #expect(okm.count == 5100)
    }
}
