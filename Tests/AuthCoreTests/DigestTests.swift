import AuthCore
import AuthCoreTestSupport
import Testing

@Suite("Hash functions (FIPS 180-4)")
struct DigestTests {
    // FIPS 180-2 Appendix B/C examples for "abc".
    static let abc: [(HashAlgorithm, String)] = [
        (.sha1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (.sha224, "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
        (.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha384, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (
            .sha512,
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
    ]

    @Test("one-shot digest of \"abc\" matches FIPS 180-2", arguments: abc)
    func oneShot(algorithm: HashAlgorithm, expected: String) {
        #expect(algorithm.hash(bytes: Array("abc".utf8)).hexLowercased == expected)
        #expect(algorithm.hash(bytes: Array("abc".utf8)).count == algorithm.byteCount)
    }

    @Test("typed hash functions agree with the run-time algorithm")
    func typedFunctions() {
        #expect(SHA224.hash(string: "abc").hexLowercased == Self.abc[1].1)
        #expect(SHA256.hash(string: "abc").hexLowercased == Self.abc[2].1)
        #expect(SHA384.hash(string: "abc").hexLowercased == Self.abc[3].1)
        #expect(SHA512.hash(string: "abc").hexLowercased == Self.abc[4].1)
        #expect(Insecure.SHA1.hash(string: "abc").hexLowercased == Self.abc[0].1)
        #expect(SHA256.byteCount == 32 && SHA256.blockByteCount == 64)
        #expect(SHA512.byteCount == 64 && SHA512.blockByteCount == 128)
    }

    @Test("incremental hashing equals one-shot, and finalize leaves the hasher usable")
    func incremental() {
        var hasher = SHA256()
        hasher.update(string: "a")
        let afterA = hasher.finalize()
        hasher.update(string: "bc")
        #expect(hasher.finalize().hexLowercased == Self.abc[2].1)
        #expect(afterA == SHA256.hash(string: "a"))
        #expect(afterA != hasher.finalize())
    }

    @Test("copies of a hasher are independent (copy on write)")
    func copyOnWrite() {
        var first = SHA512()
        first.update(string: "ab")
        var second = first
        second.update(string: "c")
        first.update(string: "x")
        #expect(second.finalize().hexLowercased == Self.abc[4].1)
        #expect(first.finalize() == SHA512.hash(string: "abx"))
    }

    @Test("empty message digests (FIPS 180 Len = 0)")
    func emptyMessage() {
        #expect(
            SHA256.hash(bytes: [UInt8]()).hexLowercased
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(Insecure.SHA1.hash(bytes: [UInt8]()).hexLowercased == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test("algorithm lookup by name accepts sha256 and SHA-256, rejects unknown names")
    func lookup() throws {
        #expect(try HashAlgorithm(named: "SHA-256") == .sha256)
        #expect(try HashAlgorithm(named: "sha1") == .sha1)
        #expect(errorCode { try HashAlgorithm(named: "md5") } == .unsupported)
    }

    @Test("Digest equality is by content and length")
    func digestEquality() {
        let a = SHA256.hash(string: "x")
        let b = SHA256.hash(string: "x")
        #expect(a == b)
        #expect(a != SHA256.hash(string: "y"))
        #expect(a.bytes.count == 32)
        #expect(a.base64 == Base64.encode(a.bytes))
    }
}
