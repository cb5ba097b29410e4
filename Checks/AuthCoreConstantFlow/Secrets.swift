import AuthCore

/// OpenSSL's generator, with every byte it draws marked secret: private values and anything else an
/// API draws through it enter the checked flows as undefined memory.
struct SecretRandom: SecureRandomGenerator {
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        try SystemRandom().fill(buffer)
        ConstantFlow.classify(UnsafeRawBufferPointer(buffer))
    }
}

/// Secret bytes in wiping storage, marked secret.
func secret(_ text: String) -> SecureBytes {
    let bytes = SecureBytes(Array(text.utf8))
    bytes.withUnsafeBytes { ConstantFlow.classify($0) }
    return bytes
}

/// Marks a stored secret number (a verifier) secret.
func markSecret(_ value: BigUInt) {
    value.withUnsafeLimbBytes { ConstantFlow.classify($0) }
}

/// Marks a stored verifier's bytes (N's byte length) secret.
func markSecret(_ verifier: SRPVerifier) {
    verifier.verifierBytes.withUnsafeBytes { ConstantFlow.classify($0) }
}

/// Marks bytes the protocol publishes (a secret block drawn from the secret generator) public.
func markPublic(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { ConstantFlow.declassify($0) }
}
