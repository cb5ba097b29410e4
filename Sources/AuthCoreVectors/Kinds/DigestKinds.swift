import AuthCore

/// `hash`: `alg`, `msg_hex`, optional `repeat`, `expect.digest_hex` (vectors.md).
struct HashVectorKind: VectorKind {
    let name = "hash"
    static let maximumMessageBytes = 1 << 30

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: ["digest_hex"])
        let algorithm = try HashAlgorithm.fromVector(c, "alg")
        let message = try c.hexBytes("msg_hex")
        let repeatCount = try c.optionalInteger("repeat") ?? 1
        guard repeatCount >= 1 else { throw .invalid("repeat", "must be at least 1") }
        let (total, overflow) = Swift.max(1, message.count).multipliedReportingOverflow(by: repeatCount)
        guard !overflow, total <= Self.maximumMessageBytes else {
            throw .invalid("repeat", "message would exceed \(Self.maximumMessageBytes) bytes")
        }
        var hasher = algorithm.makeHasher()
        if repeatCount == 1 {
            hasher.update(bytes: message)
        } else {
            // Feed in chunks of ~64 KiB so a million repetitions stay cheap.
            let perChunk = max(1, 65_536 / max(1, message.count))
            var chunk: [UInt8] = []
            chunk.reserveCapacity(perChunk * message.count)
            for _ in 0..<perChunk { chunk.append(contentsOf: message) }
            var remaining = repeatCount
            chunk.withUnsafeBytes { whole in
                while remaining > 0 {
                    let take = min(remaining, perChunk)
                    hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: whole[0..<(take * message.count)]))
                    remaining -= take
                }
            }
        }
        let digest = hasher.finalize()
        for field in fields {
            try c.checkHex("expect.\(field)", expected: try c.string("expect.\(field)"), got: digest.bytes)
        }
    }
}

/// `hmac`: `alg`, `key_hex`, `msg_hex`, `expect.mac_hex` (a shorter expected MAC is a truncation).
struct HMACVectorKind: VectorKind {
    let name = "hmac"

    func check(_ c: VectorCase) throws(CaseFailure) {
        _ = try c.expectedFields(allowed: ["mac_hex"])
        let algorithm = try HashAlgorithm.fromVector(c, "alg")
        let key = try c.hexBytes("key_hex")
        let message = try c.hexBytes("msg_hex")
        let expectedHex = try c.string("expect.mac_hex")
        let mac = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in algorithm.authenticationCode(for: m, using: k) }
        }
        guard expectedHex.utf8.count % 2 == 0, expectedHex.utf8.count / 2 <= mac.count, !expectedHex.isEmpty else {
            throw .invalid(
                "expect.mac_hex",
                "length \(expectedHex.utf8.count / 2) bytes is not a valid (truncated) MAC length"
            )
        }
        let got = Array(mac.bytes.prefix(expectedHex.utf8.count / 2))
        try c.checkHex("expect.mac_hex", expected: expectedHex, got: got)
    }
}

/// `hkdf`: `alg`, `ikm_hex`, `salt_hex` (empty = no salt), `info_hex`, `length`, `expect.prk_hex`, `expect.okm_hex`.
struct HKDFVectorKind: VectorKind {
    let name = "hkdf"

    func check(_ c: VectorCase) throws(CaseFailure) {
        let fields = try c.expectedFields(allowed: ["prk_hex", "okm_hex"])
        let algorithm = try HashAlgorithm.fromVector(c, "alg")
        let ikm = try c.hexBytes("ikm_hex")
        let salt = try c.hexBytes("salt_hex")
        let info = try c.hexBytes("info_hex")
        let length = try c.integer("length")
        let prk = ikm.withUnsafeBytes { i in
            salt.withUnsafeBytes { s in algorithm.hkdfExtract(inputKeyMaterial: i, salt: s) }
        }
        let okm: SecureBytes
        do {
            okm = try prk.withUnsafeBytes { (p) throws(AuthCoreError) -> SecureBytes in
                try info.withUnsafeBytesTyped { (i) throws(AuthCoreError) -> SecureBytes in
                    try algorithm.hkdfExpand(pseudoRandomKey: p, info: i, outputByteCount: length)
                }
            }
        } catch {
            throw .invalid("length", error.reason)
        }
        for field in fields {
            let got = field == "prk_hex" ? prk.withUnsafeBytes { Array($0) } : okm.withUnsafeBytes { Array($0) }
            try c.checkHex("expect.\(field)", expected: try c.string("expect.\(field)"), got: got)
        }
    }
}
