/// Secret operations prepared for measurement (`make ct-count`, `make dudect`): the operands are
/// loaded into fixed-width storage up front, so the returned closure runs exactly the engine
/// operation whose cost must not depend on the secret.
extension SRPGroup {
    /// `g^e` through the fixed-base comb, `e` given as big-endian bytes of a `bitCount`-bit exponent.
    package func preparedGeneratorPower(exponent: [UInt8], bitCount: Int) -> () -> Void {
        let limbs = exponent.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: (bitCount + 63) / 64) }
        return { [engine] in _ = try? engine.generatorPowerMontgomery(limbs, bitCount: bitCount) }
    }

    /// The client premaster `(B - k·g^x)^(a + u·x)`, with `a` drawn from `random` (256 bits plus
    /// the offset) and `x`, `u` as 32-byte big-endian values.
    package func preparedClientPremaster(
        serverPublicValue b: BigUInt,
        multiplier k: BigUInt,
        x: [UInt8],
        u: [UInt8],
        random: some SecureRandomGenerator
    ) throws(AuthCoreError) -> () -> Void {
        let privateValue = try engine.generatePrivateValue(
            group: self,
            randomBitCount: 256,
            offsetBits: 512,
            random: random
        )
        let xLimbs = x.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        let uLimbs = u.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        let box = PrivateValueBox(privateValue)
        return { [engine] in
            _ = try? engine.clientPremaster(
                serverPublicValue: b,
                k: k,
                x: xLimbs,
                xBitCount: 256,
                u: uLimbs,
                privateValue: box.value
            )
        }
    }

    /// A verifier `v = g^x` written at N's byte length, `x` as 32 big-endian bytes.
    package func preparedVerifier(x: [UInt8]) -> () -> Void {
        let limbs = x.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        return { [engine] in _ = try? engine.verifierBytes(privateKey: limbs, bitCount: 256) }
    }

    /// The server premaster `(A·v^u)^b` for a stored verifier (secret, big-endian bytes at N's
    /// length, read as a server reads it) and a fresh `b`.
    package func preparedServerPremaster(
        clientPublicValue a: BigUInt,
        verifierBytes: [UInt8],
        u: [UInt8],
        random: some SecureRandomGenerator
    ) throws(AuthCoreError) -> () -> Void {
        let privateValue = try engine.generatePrivateValue(
            group: self,
            randomBitCount: 256,
            offsetBits: 256,
            random: random
        )
        let stored = SecureBytes(verifierBytes)
        let uLimbs = u.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        let box = PrivateValueBox(privateValue)
        return { [engine] in  // the verifier read and checked as a server does, then S
            guard let v = try? engine.checkedVerifier(stored) else { return }
            _ = try? engine.serverPremaster(
                clientPublicValue: a,
                verifier: v,
                u: uLimbs,
                uBitCount: 256,
                privateValue: box.value
            )
        }
    }
}

/// Holds a non-copyable private value for a measurement closure.
private final class PrivateValueBox: Sendable {
    let value: SRPPrivateValue
    init(_ value: consuming SRPPrivateValue) { self.value = value }
}

extension SRPConfiguration {
    /// `K = H(S)` (or `H(PAD(S))`) for `S` given as big-endian bytes below N.
    package func preparedSessionKey(premasterBytes: [UInt8]) -> () -> Void {
        let s = premasterBytes.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: group.engine.limbCount) }
        return { _ = self.sessionKey(premasterSecret: s) }
    }
}

extension CognitoSRP {
    /// The claim key HKDF(PADs(u), PADs(S)) for `S` given as big-endian bytes below N.
    package static func preparedClaimKey(premasterBytes: [UInt8]) -> () -> Void {
        let s = premasterBytes.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: group.engine.limbCount) }
        let u = BigUInt(bigEndianBytes: [UInt8](repeating: 0x11, count: 32))  // public
        return { _ = try? claimKey(premasterSecret: s, scramblingParameter: u) }
    }
}
