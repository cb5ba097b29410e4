/// HKDF, the HMAC-based extract-and-expand key derivation function of RFC 5869.
///
/// ```swift
/// let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
/// let okm = try HKDF<SHA256>.expand(pseudoRandomKey: prk, info: info, outputByteCount: 42)
/// ```
public enum HKDF<H: HashFunction> {
    /// HKDF-Extract (RFC 5869 §2.2): `PRK = HMAC-Hash(salt, IKM)`; an empty salt means HashLen zero bytes.
    public static func extract(inputKeyMaterial: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer) -> SecureBytes {
        H.algorithm.hkdfExtract(inputKeyMaterial: inputKeyMaterial, salt: salt)
    }

    /// HKDF-Extract over byte collections.
    public static func extract(inputKeyMaterial: some Collection<UInt8>, salt: some Collection<UInt8>) -> SecureBytes {
        let ikm = SecureBytes(inputKeyMaterial)
        let s = Array(salt)
        return ikm.withUnsafeBytes { i in s.withUnsafeBytes { extract(inputKeyMaterial: i, salt: $0) } }
    }

    /// HKDF-Expand (RFC 5869 §2.3): `T(i) = HMAC-Hash(PRK, T(i-1) | info | i)`, `OKM` = the first L bytes.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` when `outputByteCount` is 0 or exceeds 255·HashLen.
    public static func expand(pseudoRandomKey: SecureBytes, info: some Collection<UInt8>, outputByteCount: Int)
        throws(AuthCoreError) -> SecureBytes
    {
        let infoBytes = Array(info)
        return try pseudoRandomKey.withUnsafeBytes { (prk) throws(AuthCoreError) -> SecureBytes in
            try infoBytes.withUnsafeBytesTyped { (i) throws(AuthCoreError) -> SecureBytes in
                try H.algorithm.hkdfExpand(pseudoRandomKey: prk, info: i, outputByteCount: outputByteCount)
            }
        }
    }

    /// Extract then expand (RFC 5869 §2).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` as ``expand(pseudoRandomKey:info:outputByteCount:)``.
    public static func deriveKey(
        inputKeyMaterial: some Collection<UInt8>, salt: some Collection<UInt8>, info: some Collection<UInt8>,
        outputByteCount: Int
    ) throws(AuthCoreError) -> SecureBytes {
        let prk = extract(inputKeyMaterial: inputKeyMaterial, salt: salt)
        return try expand(pseudoRandomKey: prk, info: info, outputByteCount: outputByteCount)
    }
}

extension HashAlgorithm {
    /// HKDF-Extract (RFC 5869 §2.2) with this hash.
    public func hkdfExtract(inputKeyMaterial: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer) -> SecureBytes {
        let prk: Digest
        if salt.isEmpty {
            let zeros = [UInt8](repeating: 0, count: byteCount)
            prk = zeros.withUnsafeBytes { authenticationCode(for: inputKeyMaterial, using: $0) }
        } else {
            prk = authenticationCode(for: inputKeyMaterial, using: salt)
        }
        return prk.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    /// HKDF-Expand (RFC 5869 §2.3) with this hash.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` when `outputByteCount` is 0 or exceeds 255·HashLen.
    public func hkdfExpand(pseudoRandomKey: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer, outputByteCount: Int)
        throws(AuthCoreError) -> SecureBytes
    {
        guard outputByteCount >= 1, outputByteCount <= 255 * byteCount else {
            throw AuthCoreError(
                .invalidLength, "HKDF output length \(outputByteCount) is outside 1...\(255 * byteCount) (RFC 5869 §2.3)")
        }
        var mac = KeyedHMAC(algorithm: self, key: pseudoRandomKey)
        return SecureBytes(count: outputByteCount) { out in
            var previous = Digest(count: 0)
            var written = 0
            var counter: UInt8 = 1
            while written < outputByteCount {
                let block = previous.withUnsafeBytes { prev in
                    withUnsafeBytes(of: counter) { c in mac.authenticationCode(forParts: prev, info, c) }
                }
                let take = Swift.min(byteCount, outputByteCount - written)
                block.withUnsafeBytes { b in
                    (out.baseAddress! + written).copyMemory(from: b.baseAddress!, byteCount: take)  // invariant: take > 0
                }
                written += take
                previous = block
                counter &+= 1
            }
        }
    }
}
