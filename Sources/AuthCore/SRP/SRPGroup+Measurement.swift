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
        serverPublicValue b: BigUInt, multiplier k: BigUInt, x: [UInt8], u: [UInt8], random: some SecureRandomGenerator
    ) throws(AuthCoreError) -> () -> Void {
        let privateValue = try engine.generatePrivateValue(group: self, randomBitCount: 256, offsetBits: 512, random: random)
        let xLimbs = x.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        let uLimbs = u.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        let box = PrivateValueBox(privateValue)
        return { [engine] in
            _ = try? engine.clientPremaster(
                serverPublicValue: b, k: k, x: xLimbs, xBitCount: 256, u: uLimbs, privateValue: box.value)
        }
    }

    /// The server premaster `(A·v^u)^b` for a stored verifier `v` (secret) and a fresh `b`.
    package func preparedServerPremaster(
        clientPublicValue a: BigUInt, verifier: BigUInt, u: [UInt8], random: some SecureRandomGenerator
    ) throws(AuthCoreError) -> () -> Void {
        let privateValue = try engine.generatePrivateValue(group: self, randomBitCount: 256, offsetBits: 256, random: random)
        let v = try engine.checkedVerifier(verifier)
        let uLimbs = u.withUnsafeBytes { LimbBuffer(bigEndianBytes: $0, count: 4) }
        let box = PrivateValueBox(privateValue)
        return { [engine] in
            _ = try? engine.serverPremaster(clientPublicValue: a, verifier: v, u: uLimbs, uBitCount: 256, privateValue: box.value)
        }
    }
}

/// Holds a non-copyable private value for a measurement closure.
private final class PrivateValueBox: Sendable {
    let value: SRPPrivateValue
    init(_ value: consuming SRPPrivateValue) { self.value = value }
}
