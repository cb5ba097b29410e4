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
    public static func expand(
        pseudoRandomKey: SecureBytes,
        info: some Collection<UInt8>,
        outputByteCount: Int
    )
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
        inputKeyMaterial: some Collection<UInt8>,
        salt: some Collection<UInt8>,
        info: some Collection<UInt8>,
        outputByteCount: Int
    ) throws(AuthCoreError) -> SecureBytes {
        let prk = extract(inputKeyMaterial: inputKeyMaterial, salt: salt)
        return try expand(pseudoRandomKey: prk, info: info, outputByteCount: outputByteCount)
    }
}

extension HashAlgorithm {
    /// HKDF-Extract (RFC 5869 §2.2) with this hash. The PRK is written by OpenSSL straight into
    /// wiping storage: no copy of it on the stack.
    public func hkdfExtract(inputKeyMaterial: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer) -> SecureBytes {
        let zeros = [UInt8](repeating: 0, count: salt.isEmpty ? byteCount : 0)
        let handle = zeros.withUnsafeBytes { MACHandle.makeContext(algorithm: self, key: salt.isEmpty ? $0 : salt) }
        let mac = MACHandle(owning: handle, algorithm: self)
        mac.update(inputKeyMaterial)
        return mac.finalizeSecret()
    }

    /// HKDF-Expand (RFC 5869 §2.3) with this hash. Each block T(i) is written into a wiping
    /// buffer, read back as T(i-1) for the next, and copied out: no block on the stack.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` when `outputByteCount` is 0 or exceeds 255·HashLen.
    public func hkdfExpand(
        pseudoRandomKey: UnsafeRawBufferPointer,
        info: UnsafeRawBufferPointer,
        outputByteCount: Int
    )
        throws(AuthCoreError) -> SecureBytes
    {
        guard outputByteCount >= 1, outputByteCount <= 255 * byteCount else {
            throw AuthCoreError(
                .invalidLength,
                "HKDF output length \(outputByteCount) is outside 1...\(255 * byteCount) (RFC 5869 §2.3)"
            )
        }
        let mac = MACHandle(algorithm: self, key: pseudoRandomKey)
        let size = byteCount
        var block = SecureBytes(count: size) { _ in }
        return SecureBytes(count: outputByteCount) { out in
            var written = 0
            var counter: UInt8 = 1
            while written < outputByteCount {
                // T(i) = HMAC(PRK, T(i-1) | info | i); T(0) is empty. T(i-1) is read before T(i) overwrites it.
                if counter > 1 { mac.reset() }
                block.withUnsafeMutableBytes { t in
                    mac.update(UnsafeRawBufferPointer(rebasing: t[0..<(counter > 1 ? size : 0)]))
                    mac.update(info)
                    withUnsafeBytes(of: counter) { mac.update($0) }
                    mac.finalize(into: t)
                    let take = Swift.min(size, outputByteCount - written)
                    UnsafeMutableRawBufferPointer(rebasing: out[written..<(written + take)]).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: t[0..<take])
                    )
                    written += take
                }
                counter &+= 1
            }
        }
    }
}
