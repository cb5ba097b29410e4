import AuthCore
import AuthCoreTestSupport
import Testing

@Suite("BigUInt over GMP")
struct BigUIntTests {
    @Test("bytes round trip: minimal, padded and sign-padded forms")
    func byteForms() throws {
        let value = BigUInt(bigEndianBytes: [0x00, 0x00, 0x80, 0x01])
        #expect(value.minimalBigEndianBytes == [0x80, 0x01])
        #expect(try value.bigEndianBytes(paddedTo: 4) == [0x00, 0x00, 0x80, 0x01])
        #expect(value.signPaddedBigEndianBytes == [0x00, 0x80, 0x01])
        #expect(BigUInt(bigEndianBytes: [0x7f, 0xff]).signPaddedBigEndianBytes == [0x7f, 0xff])
        #expect(BigUInt().signPaddedBigEndianBytes == [0x00])
        #expect(BigUInt().minimalBigEndianBytes == [])
        #expect(value.byteWidth == 2 && value.bitWidth == 16)
        #expect(errorCode { try value.bigEndianBytes(paddedTo: 1) } == .invalidLength)
    }

    @Test("hex: odd length, upper and lower case, leading zeros")
    func hexForms() throws {
        let value = try BigUInt(hex: "00aBc")
        #expect(value == BigUInt(0xabc))
        #expect(value.hexLowercased == "abc")
        #expect(value.hexUppercased == "ABC")
        #expect(BigUInt().hexLowercased == "0")
        #expect(errorCode { try BigUInt(hex: "") } == .invalidHex)
        #expect(errorCode { try BigUInt(hex: "12g4") } == .invalidHex)
    }

    @Test("description never shows the value")
    func description() throws {
        let secret = try BigUInt(hex: "DEADBEEFCAFE")
        #expect(secret.description == "BigUInt(48 bits)")
        #expect(!String(reflecting: secret).lowercased().contains("deadbeef"))
    }

    @Test("arithmetic for public values")
    func arithmetic() throws {
        let a = BigUInt(1_000_000_007)
        let b = BigUInt(998_244_353)
        #expect(a + b == BigUInt(1_998_244_360))
        #expect(a - b == BigUInt(1_755_654))
        #expect(try a * b == BigUInt(hex: String(UInt64(1_000_000_007) * 998_244_353, radix: 16)))
        #expect(try a.modulo(b) == BigUInt(1_755_654))
        #expect(
            try b.subtracting(a, modulo: BigUInt(97)) == BigUInt((998_244_353 + 97 * 20_000_000 - 1_000_000_007) % 97)
        )
        #expect(errorCode { try a.modulo(BigUInt()) } == .invalidParameter)
        #expect(try BigUInt(4).powerVariableTime(BigUInt(13), modulo: BigUInt(497)) == BigUInt(445))
    }

    @Test("copies are independent values")
    func valueSemantics() {
        let a = BigUInt(5)
        var b = a
        b = b + BigUInt(1)
        #expect(a == BigUInt(5))
        #expect(b == BigUInt(6))
    }

    @Test("secret modexp agrees with mpz_powm for random inputs over each RFC 5054 group size up to 4096")
    func secretPowerMatchesVariableTime() throws {
        let random = SeededRandom(seed: 42)
        for group in SRPGroup.standard.prefix(5) {
            let context = try ModularContext(modulus: group.modulus, maximumExponentBitCount: 512)
            for exponentBits in [1, 64, 256, 300, 512] {
                let base = try BigUInt(bigEndianBytes: random.bytes(group.byteCount)).modulo(group.modulus)
                var exponentBytes = random.bytes((exponentBits + 7) / 8)
                let spareBits = exponentBytes.count * 8 - exponentBits
                exponentBytes[0] &= UInt8(0xFF >> spareBits)  // fits exactly in exponentBits
                let exponent = BigUInt(bigEndianBytes: exponentBytes)
                let expected = try base.powerVariableTime(exponent, modulo: group.modulus)
                #expect(try context.power(base, secretExponent: exponent, exponentBitCount: exponentBits) == expected)
            }
        }
    }

    @Test("secret modexp edge cases: zero exponent, zero base, base ≥ N, leading zeros of the exponent")
    func secretPowerEdges() throws {
        let n = SRPGroup.rfc5054Group1024.modulus
        let context = try ModularContext(modulus: n, maximumExponentBitCount: 256)
        #expect(try context.power(BigUInt(7), secretExponent: BigUInt(), exponentBitCount: 256) == BigUInt(1))
        #expect(try context.power(BigUInt(), secretExponent: BigUInt(5), exponentBitCount: 256) == BigUInt())
        #expect(try context.power(n + BigUInt(2), secretExponent: BigUInt(10), exponentBitCount: 256) == BigUInt(1024))
        // An exponent ≥ N (same limb count as N) is not reduced: g^e ≠ g^(e mod N) in general.
        let wide = n + BigUInt(12345)
        let big = try ModularContext(modulus: n, maximumExponentBitCount: 1024)
        #expect(
            try big.power(BigUInt(3), secretExponent: wide, exponentBitCount: 1024)
                == BigUInt(3).powerVariableTime(wide, modulo: n)
        )
        // The same small exponent declared at two widths gives the same value.
        #expect(
            try context.power(BigUInt(3), secretExponent: BigUInt(5), exponentBitCount: 8)
                == context.power(BigUInt(3), secretExponent: BigUInt(5), exponentBitCount: 256)
        )
    }

    @Test("bad moduli and exponent lengths are typed errors")
    func badParameters() throws {
        #expect(errorCode { try ModularContext(modulus: BigUInt(), maximumExponentBitCount: 256) } == .invalidParameter)
        #expect(
            errorCode { try ModularContext(modulus: BigUInt(1), maximumExponentBitCount: 256) } == .invalidParameter
        )
        #expect(
            errorCode { try ModularContext(modulus: BigUInt(100), maximumExponentBitCount: 256) } == .invalidParameter
        )
        let huge = BigUInt(bigEndianBytes: [UInt8](repeating: 0xff, count: 2049))
        #expect(errorCode { try ModularContext(modulus: huge, maximumExponentBitCount: 256) } == .inputTooLarge)
        #expect(
            errorCode { try ModularContext(modulus: BigUInt(101), maximumExponentBitCount: 0) } == .invalidParameter
        )
        #expect(
            errorCode { try ModularContext(modulus: BigUInt(101), maximumExponentBitCount: 1 << 20) }
                == .invalidParameter
        )
        let context = try ModularContext(modulus: BigUInt(101), maximumExponentBitCount: 64)
        #expect(
            errorCode { try context.power(BigUInt(2), secretExponent: BigUInt(1 << 10), exponentBitCount: 8) }
                == .invalidParameter
        )
        #expect(
            errorCode { try context.power(BigUInt(2), secretExponent: BigUInt(3), exponentBitCount: 65) }
                == .invalidParameter
        )
        #expect(
            errorCode { try context.power(BigUInt(2), secretExponent: BigUInt(3), exponentBitCount: 0) }
                == .invalidParameter
        )
        #expect(errorCode { try BigUInt(2).powerVariableTime(BigUInt(3), modulo: BigUInt()) } == .invalidParameter)
    }

    @Test("GMP allocations go through AuthCore's zeroizing allocator")
    func zeroizingAllocatorInstalled() throws {
        let before = GMPAllocationCounter.total
        let big = BigUInt(bigEndianBytes: [UInt8](repeating: 0xab, count: 4096))
        let product = big * big
        #expect(product.byteWidth == 8192)
        #expect(GMPAllocationCounter.total > before)
    }

    @Test("subtracting a larger value is a programmer error (precondition)")
    func negativeSubtractionTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = BigUInt(1) - BigUInt(2)
        }
    }
}
