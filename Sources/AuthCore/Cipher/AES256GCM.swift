internal import CAuthCoreLibCrypto

/// AES-256 in Galois/Counter Mode (NIST SP 800-38D) through OpenSSL's EVP interface: authenticated
/// encryption for state that must leave the process, such as a server's sealed SRP handshake.
///
/// The sealed form is `ciphertext ‖ tag` with a 16-byte tag (SP 800-38D §5.2.1.2); the nonce is 12
/// bytes (the recommended IV length, §8.2) and must never repeat under one key: draw it from
/// ``SecureRandomGenerator`` (a 96-bit random nonce keeps the collision chance within §8.3's bound
/// for up to 2^32 seals per key). Opening checks the tag before any plaintext is returned; a wrong
/// key, nonce, associated data, ciphertext or tag is one error, `signatureMismatch` (the tag is a MAC).
public enum AES256GCM {
    /// The key length: 32 bytes.
    public static let keyByteCount = 32
    /// The nonce (IV) length: 12 bytes.
    public static let nonceByteCount = 12
    /// The tag length: 16 bytes.
    public static let tagByteCount = 16

    /// Encrypts `plaintext` and authenticates it with `associatedData`.
    ///
    /// - Returns: `ciphertext ‖ tag` (`plaintext.count + 16` bytes).
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a key that is not 32 bytes or a nonce that
    ///   is not 12; `.libcryptoFailure` if OpenSSL fails.
    public static func seal(
        _ plaintext: SecureBytes,
        key: SecureBytes,
        nonce: [UInt8],
        associatedData: [UInt8] = []
    ) throws(AuthCoreError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce)
        let context = try CipherContext()
        try context.initialize(encrypting: true, key: key, nonce: nonce)
        try context.authenticate(associatedData)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try sealed.withUnsafeMutableBytesTyped { (out) throws(AuthCoreError) in
            let written = try plaintext.withUnsafeBytes { (input) throws(AuthCoreError) in
                try context.update(input, into: out)
            }
            // invariant: GCM is a stream mode, so update writes exactly the input length and final writes nothing.
            precondition(written == plaintext.count, "GCM wrote \(written) of \(plaintext.count) bytes")
            try context.finish()
            try context.tag(into: UnsafeMutableRawBufferPointer(rebasing: out[plaintext.count...]))
        }
        return sealed
    }

    /// Checks the tag of `sealed` (`ciphertext ‖ tag`) under `key`, `nonce` and `associatedData`, and
    /// returns the plaintext.
    ///
    /// - Throws: `AuthCoreError.Code.signatureMismatch` when anything was changed (no plaintext
    ///   is returned); `.invalidParameter` for wrong key or nonce sizes; `.malformedInput` for a
    ///   `sealed` shorter than a tag.
    public static func open(
        _ sealed: [UInt8],
        key: SecureBytes,
        nonce: [UInt8],
        associatedData: [UInt8] = []
    ) throws(AuthCoreError) -> SecureBytes {
        try checkSizes(key: key, nonce: nonce)
        guard sealed.count >= tagByteCount else {
            throw AuthCoreError(
                .malformedInput,
                "sealed data of \(sealed.count) bytes is shorter than the \(tagByteCount)-byte tag"
            )
        }
        let context = try CipherContext()
        try context.initialize(encrypting: false, key: key, nonce: nonce)
        try context.authenticate(associatedData)
        let count = sealed.count - tagByteCount
        return try sealed.withUnsafeBytesTyped { (input) throws(AuthCoreError) -> SecureBytes in
            var plaintext = try SecureBytes(count: count) { (out) throws(AuthCoreError) in
                let written = try context.update(UnsafeRawBufferPointer(rebasing: input[..<count]), into: out)
                precondition(written == count, "GCM wrote \(written) of \(count) bytes")  // invariant: a stream mode
            }
            try context.expectTag(UnsafeRawBufferPointer(rebasing: input[count...]))
            do throws(AuthCoreError) {
                try context.finish()
            } catch {
                // The tag did not match: the decrypted bytes are wiped (SecureBytes) and not returned.
                plaintext = SecureBytes()
                throw AuthCoreError(.signatureMismatch, "sealed data failed authentication")
            }
            return plaintext
        }
    }

    private static func checkSizes(key: SecureBytes, nonce: [UInt8]) throws(AuthCoreError) {
        guard key.count == keyByteCount else {
            throw AuthCoreError(.invalidParameter, "AES-256-GCM key must be 32 bytes, not \(key.count)")
        }
        guard nonce.count == nonceByteCount else {
            throw AuthCoreError(.invalidParameter, "AES-256-GCM nonce must be 12 bytes, not \(nonce.count)")
        }
    }
}

/// One `EVP_CIPHER_CTX` for AES-256-GCM, freed (and cleansed by OpenSSL) on deinit.
private final class CipherContext {
    let context: OpaquePointer

    init() throws(AuthCoreError) {
        guard let context = EVP_CIPHER_CTX_new() else { throw libcryptoError("EVP_CIPHER_CTX_new") }
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    func initialize(encrypting: Bool, key: SecureBytes, nonce: [UInt8]) throws(AuthCoreError) {
        // Fetched once (EVPHandles): no implicit fetch per call.
        guard let cipher = EVPHandles.shared.aes256GCM else { throw libcryptoError("EVP_CIPHER_fetch(AES-256-GCM)") }
        // The default GCM IV length is 12 bytes, the only one accepted here, so no IVLEN control call.
        let status = key.withUnsafeBytes { keyBytes in
            nonce.withUnsafeBytes { nonceBytes in
                EVP_CipherInit_ex2(
                    context,
                    cipher,
                    keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    nonceBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    encrypting ? 1 : 0,
                    nil
                )
            }
        }
        guard status == 1 else { throw libcryptoError("EVP_CipherInit_ex2") }
    }

    func authenticate(_ associatedData: [UInt8]) throws(AuthCoreError) {
        guard !associatedData.isEmpty else { return }
        guard associatedData.count <= Int(Int32.max) else {
            throw AuthCoreError(.inputTooLarge, "AES-256-GCM associated data over 2 GiB")
        }
        var ignored: Int32 = 0
        let status = associatedData.withUnsafeBytes { bytes in
            EVP_CipherUpdate(
                context,
                nil,
                &ignored,
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                Int32(clamping: bytes.count)
            )
        }
        guard status == 1 else { throw libcryptoError("EVP_CipherUpdate (associated data)") }
    }

    /// Encrypts or decrypts `input` into `output` (at least as large); returns the bytes written.
    func update(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(AuthCoreError) -> Int {
        guard !input.isEmpty else { return 0 }
        guard input.count <= Int(Int32.max) else { throw AuthCoreError(.inputTooLarge, "AES-256-GCM input over 2 GiB") }
        var written: Int32 = 0
        guard
            EVP_CipherUpdate(
                context,
                output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                &written,
                input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                Int32(input.count)
            ) == 1
        else { throw libcryptoError("EVP_CipherUpdate") }
        return Int(written)
    }

    /// Ends the operation; when decrypting, this is where the tag is checked.
    func finish() throws(AuthCoreError) {
        var written: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        let status = scratch.withUnsafeMutableBytes {
            EVP_CipherFinal_ex(context, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), &written)
        }
        guard status == 1 else { throw libcryptoError("EVP_CipherFinal_ex") }
    }

    func tag(into output: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(output.count), output.baseAddress) == 1 else {
            throw libcryptoError("EVP_CTRL_GCM_GET_TAG")
        }
    }

    func expectTag(_ tag: UnsafeRawBufferPointer) throws(AuthCoreError) {
        // OpenSSL copies the expected tag; the pointer is not written through.
        guard
            EVP_CIPHER_CTX_ctrl(
                context,
                EVP_CTRL_GCM_SET_TAG,
                Int32(tag.count),
                UnsafeMutableRawPointer(mutating: tag.baseAddress)
            ) == 1
        else {
            throw libcryptoError("EVP_CTRL_GCM_SET_TAG")
        }
    }
}
